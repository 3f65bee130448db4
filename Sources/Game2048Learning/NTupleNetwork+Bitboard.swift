import CPrefetch
import Game2048

// The 4×4 fast path: features straight from the packed board.

extension NTupleNetwork {
    /// A 4×4 bitboard with its columns in reverse order.
    @inlinable @inline(__always)
    static func mirrorColumns(_ x: UInt64) -> UInt64 {
        ((x & 0x000F_000F_000F_000F) << 12) | ((x & 0x00F0_00F0_00F0_00F0) << 4)
            | ((x & 0x0F00_0F00_0F00_0F00) >> 4) | ((x & 0xF000_F000_F000_F000) >> 12)
    }

    /// A 4×4 bitboard with its rows in reverse order.
    @inlinable @inline(__always)
    static func mirrorRows(_ x: UInt64) -> UInt64 {
        (x << 48) | ((x & 0xFFFF_0000) << 16) | ((x >> 16) & 0xFFFF_0000) | (x >> 48)
    }

    /// The eight orientations of a 4×4 bitboard: mirrors of columns and rows, and their transposes.
    ///
    /// The order matches ``image(of:symmetry:rows:cols:)``'s only as a set: the
    /// value is a sum over all eight, so the order does not matter.
    @inlinable @inline(__always)
    static func orientations(of board: UInt64) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        let a = board, b = mirrorColumns(a), c = mirrorRows(a), d = mirrorRows(b)
        // One transpose: transposing a column mirror gives a row mirror of the transpose, and back.
        let t = Bitboard(rawValue: a).transposed.rawValue, tc = mirrorColumns(t)
        return (a, b, c, d, t, mirrorRows(t), tc, mirrorRows(tc))
    }

    /// The four 6-tuple indices of the default network in one orientation, table offsets included.
    @inlinable @inline(__always)
    static func defaultIndices(_ x: UInt64) -> (Int, Int, Int, Int) {
        let table = 1 << 24
        // [6,7,0,1,2,3], [10,11,4,5,6,7]: two cells of the next row, then a whole row.
        let i0 = Int(truncatingIfNeeded: ((x >> 24) & 0xFF) | ((x & 0xFFFF) << 8))
        let i1 = Int(truncatingIfNeeded: ((x >> 40) & 0xFF) | ((x & 0xFFFF_0000) >> 8))
        // [5,6,7,1,2,3], [9,10,11,5,6,7]: three cells of the next row, then three of this one.
        let i2 = Int(truncatingIfNeeded: ((x >> 20) & 0xFFF) | ((x << 8) & 0xFF_F000))
        let i3 = Int(truncatingIfNeeded: ((x >> 36) & 0xFFF) | ((x >> 8) & 0xFF_F000))
        return (i0, table + i1, 2 * table + i2, 3 * table + i3)
    }

    /// `defaultIndices(mirrorRows(x))`, read from `x` itself (rows 3, 2, 1 in place of 0, 1, 2):
    /// the same indices for fewer instructions than mirroring first.
    @inlinable @inline(__always)
    static func defaultIndicesOfRowMirror(_ x: UInt64) -> (Int, Int, Int, Int) {
        let table = 1 << 24
        let i0 = Int(truncatingIfNeeded: ((x >> 40) & 0xFF) | ((x >> 40) & 0xFF_FF00))
        let i1 = Int(truncatingIfNeeded: ((x >> 24) & 0xFF) | ((x >> 24) & 0xFF_FF00))
        let i2 = Int(truncatingIfNeeded: ((x >> 36) & 0xFFF) | ((x >> 40) & 0xFF_F000))
        let i3 = Int(truncatingIfNeeded: ((x >> 20) & 0xFFF) | ((x >> 24) & 0xFF_F000))
        return (i0, table + i1, 2 * table + i2, 3 * table + i3)
    }

    /// The default network's 32 feature indices of a 4×4 bitboard, four per orientation in
    /// ``orientations(of:)``'s order: two column mirrors and one transpose made, the four row
    /// mirrors read in place.
    @inlinable @inline(__always)
    static func defaultFeatureIndices(of board: UInt64) -> (
        (Int, Int, Int, Int), (Int, Int, Int, Int), (Int, Int, Int, Int), (Int, Int, Int, Int),
        (Int, Int, Int, Int), (Int, Int, Int, Int), (Int, Int, Int, Int), (Int, Int, Int, Int)
    ) {
        let a = board, b = mirrorColumns(a)
        let t = Bitboard(rawValue: a).transposed.rawValue, tc = mirrorColumns(t)
        return (
            defaultIndices(a), defaultIndices(b), defaultIndicesOfRowMirror(a), defaultIndicesOfRowMirror(b),
            defaultIndices(t), defaultIndicesOfRowMirror(t), defaultIndices(tc), defaultIndicesOfRowMirror(tc)
        )
    }

    /// Calls `visit` with each of the eight orientations, unrolled by hand: a loop over an array literal of
    /// the eight would allocate.
    @inlinable @inline(__always)
    static func forEach(
        _ o: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64), _ visit: (UInt64) -> Void
    ) {
        visit(o.0)
        visit(o.1)
        visit(o.2)
        visit(o.3)
        visit(o.4)
        visit(o.5)
        visit(o.6)
        visit(o.7)
    }

    /// Calls `body` with the weight index of every feature of a 4×4 bitboard.
    @inlinable @inline(__always)
    func forEachFeature(of board: Bitboard, _ body: (Int) -> Void) {
        guard packedLayout == .defaultSixTuples else { return forEachCustomFeature(NTupleNetwork.orientations(of: board.rawValue), body) }
        let f = NTupleNetwork.defaultFeatureIndices(of: board.rawValue)
        @inline(__always) func visit(_ i: (Int, Int, Int, Int)) {
            body(i.0)
            body(i.1)
            body(i.2)
            body(i.3)
        }
        visit(f.0)
        visit(f.1)
        visit(f.2)
        visit(f.3)
        visit(f.4)
        visit(f.5)
        visit(f.6)
        visit(f.7)
    }

    /// ``forEachFeature(of:_:)-(Bitboard,_)`` for other patterns, apart so that the default network's code stays
    /// as small as it is: every pattern's index from its runs of consecutive cells, in each of the eight orientations.
    @inlinable
    func forEachCustomFeature(_ o: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64), _ body: (Int) -> Void) {
        // The three arrays' storage, read without bounds checks (their sizes are fixed at init: one start
        // per pattern and one more, one run or more per pattern, one offset per pattern).
        packedRuns.withUnsafeBufferPointer { runs in
            packedRunStarts.withUnsafeBufferPointer { starts in
                tableOffsets.withUnsafeBufferPointer { offsets in
                    @inline(__always) func visit(_ x: UInt64) {
                        for p in 0..<offsets.count {
                            var index = 0
                            for run in runs[starts[p]..<starts[p + 1]] {
                                index |= Int(truncatingIfNeeded: (x >> run.source) & run.mask) << run.destination
                            }
                            body(offsets[p] + index)
                        }
                    }
                    NTupleNetwork.forEach(o, visit)
                }
            }
        }
    }

    /// The value of a 4×4 bitboard.
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    @inlinable
    public func value(of board: Bitboard) -> Float {
        precondition(packedLayout != .none, "value(of: Bitboard) needs a 4x4 network with 16 values per cell")
        if packedLayout == .defaultSixTuples { return defaultValue(board) }
        let w = weights.base + stageOffset(of: board)
        var sum: Float = 0
        forEachFeature(of: board) { sum += w[$0] }
        return sum
    }

    /// Adds `delta` to every feature weight of a 4×4 bitboard.
    @inlinable
    public func update(_ board: Bitboard, by delta: Float) {
        precondition(packedLayout != .none, "update(_: Bitboard, by:) needs a 4x4 network with 16 values per cell")
        let w = weights.base + stageOffset(of: board)
        forEachFeature(of: board) { w[$0] += delta }
    }

    /// Adds `delta` to every feature weight of a 4×4 bitboard and returns the board's new value.
    @inlinable
    public func updateAndValue(_ board: Bitboard, by delta: Float) -> Float {
        precondition(packedLayout != .none, "updateAndValue(_: Bitboard, by:) needs a 4x4 network with 16 values per cell")
        let w = weights.base + stageOffset(of: board)
        forEachFeature(of: board) { w[$0] += delta }
        // A second pass, not a running sum: symmetric twins share a weight, and a
        // running sum would read it before its second update. The loads hit cache.
        return packedLayout == .defaultSixTuples ? defaultValue(board) : value(of: board)
    }

    /// Asks the CPU to start loading every feature weight of a 4×4 bitboard, the same ones
    /// ``value(of:)-(Bitboard)`` reads, and returns without waiting for them.
    ///
    /// A board's 32 weights are random reads in tables of hundreds of megabytes, most of them cache
    /// misses. The loads of a sum cannot retire before their data arrives, so the CPU's reorder window
    /// holds about one board's at a time; prefetches retire at once, and the misses of several boards
    /// then overlap.
    @inlinable @inline(__always)
    func prefetchFeatures(of board: Bitboard) {
        let w = UnsafeRawPointer(weights.base + stageOffset(of: board))
        forEachFeature(of: board) { prefetch_for_read(w + $0 * MemoryLayout<Float>.stride) }
    }

    /// The default network's value, unrolled: 32 independent loads the CPU can overlap.
    @inlinable @inline(__always)
    func defaultValue(_ board: Bitboard) -> Float {
        let w = weights.base + stageOffset(of: board)
        let f = NTupleNetwork.defaultFeatureIndices(of: board.rawValue)
        @inline(__always) func four(_ i: (Int, Int, Int, Int)) -> Float { (w[i.0] + w[i.1]) + (w[i.2] + w[i.3]) }
        return ((four(f.0) + four(f.1)) + (four(f.2) + four(f.3))) + ((four(f.4) + four(f.5)) + (four(f.6) + four(f.7)))
    }

    /// One learning step on a 4×4 bitboard toward `target`: TD(0)'s, adding `step · (target − V(board))`
    /// to its feature weights, or with `accumulators` TC's (see ``CoherenceAccumulators``; `step` is then
    /// TC's meta rate per feature).
    ///
    /// The same, bit for bit, as `update(board, by: step * (target - value(of: board)))` or
    /// `coherentUpdate(board, error: target - value(of: board), step: step, accumulators: accumulators)`,
    /// but the default network computes its 32 indices once for both the read and the write.
    @inlinable @inline(__always)
    func learn(_ board: Bitboard, toward target: Float, step: Float, accumulators: CoherenceAccumulators? = nil) {
        guard packedLayout == .defaultSixTuples else {
            let error = target - defaultOrCustomValue(board)
            if let accumulators {
                coherentUpdate(board, error: error, step: step, accumulators: accumulators)
            } else {
                update(board, by: step * error)
            }
            return
        }
        let offset = stageOffset(of: board), w = weights.base + offset
        let (a, b, c, d, e, f, g, h) = NTupleNetwork.defaultFeatureIndices(of: board.rawValue)
        @inline(__always) func four(_ i: (Int, Int, Int, Int)) -> Float { (w[i.0] + w[i.1]) + (w[i.2] + w[i.3]) }
        // The sum in ``defaultValue(_:)``'s order, so that the value is the same Float.
        let value = ((four(a) + four(b)) + (four(c) + four(d))) + ((four(e) + four(f)) + (four(g) + four(h)))
        // Every feature in ``forEachFeature(of:_:)-(Bitboard,_)``'s order; symmetric twins share a weight
        // and are updated twice, as in ``update(_:by:)``. Inlined into each branch below.
        @inline(__always) func forEachIndex(_ body: (Int) -> Void) {
            // Unrolled: a loop over an array literal of the eight would allocate.
            @inline(__always) func visit(_ i: (Int, Int, Int, Int)) {
                body(i.0)
                body(i.1)
                body(i.2)
                body(i.3)
            }
            visit(a)
            visit(b)
            visit(c)
            visit(d)
            visit(e)
            visit(f)
            visit(g)
            visit(h)
        }
        if let accumulators {
            precondition(accumulators.count == weights.count, "the accumulators are for another network")
            let error = target - value, base = weights.base
            forEachIndex { accumulators.update(base, at: offset + $0, error: error, step: step) }
        } else {
            let delta = step * (target - value)
            forEachIndex { w[$0] += delta }
        }
    }

    /// Prefetches the features of every legal afterstate of `board` (``prefetchFeatures(of:)``): the
    /// weights ``greedyMove(on:table:prefetched:)`` will read on it.
    @inlinable @inline(__always)
    func prefetchMoves(on board: Bitboard, table: Bitboard.MoveTable) {
        for direction in Direction.allCases {
            let outcome = table.move(board, direction)
            if outcome.changed { prefetchFeatures(of: outcome.afterstate) }
        }
    }

    /// The greedy move on a 4×4 bitboard, `argmax r + V(afterstate)` over the legal moves: its
    /// afterstate, reward, largest merge and value, and whether any move is legal.
    ///
    /// The first legal move in `Direction` order is kept unless a later one is strictly better,
    /// as in ``Expectimax``. The four moves are made first, every legal afterstate's weights
    /// prefetched (``prefetchFeatures(of:)``), and only then the values summed, so that the up to
    /// 128 cache misses are in flight together instead of one move's 32 at a time (measured: a
    /// quarter more moves per second in training and in greedy play). With `prefetched`, the caller
    /// has already asked for them (``prefetchMoves(on:table:)``) and the move does not again.
    @inlinable @inline(__always)
    func greedyMove(on board: Bitboard, table: Bitboard.MoveTable, prefetched: Bool = false)
        -> (afterstate: Bitboard, reward: Int64, highestMerge: UInt8, value: Float, found: Bool)
    {
        let up = table.move(board, .up), right = table.move(board, .right)
        let down = table.move(board, .down), left = table.move(board, .left)
        @inline(__always) func prefetchIfLegal(_ outcome: MoveOutcome<Bitboard>) {
            if !prefetched && outcome.changed { prefetchFeatures(of: outcome.afterstate) }
        }
        prefetchIfLegal(up)
        prefetchIfLegal(right)
        prefetchIfLegal(down)
        prefetchIfLegal(left)
        @inline(__always) func valueIfLegal(_ outcome: MoveOutcome<Bitboard>) -> Float {
            outcome.changed ? defaultOrCustomValue(outcome.afterstate) : 0
        }
        let values = (valueIfLegal(up), valueIfLegal(right), valueIfLegal(down), valueIfLegal(left))
        var best = (afterstate: board, reward: Int64(0), highestMerge: UInt8(0), value: Float(0), found: false)
        @inline(__always) func consider(_ outcome: MoveOutcome<Bitboard>, _ value: Float) {
            let total = Float(outcome.reward) + value
            if outcome.changed && (!best.found || total > best.value) {
                best = (outcome.afterstate, outcome.reward, outcome.highestMerge, total, true)
            }
        }
        consider(up, values.0)
        consider(right, values.1)
        consider(down, values.2)
        consider(left, values.3)
        return best
    }

    /// Whether ``value(of:)-(Bitboard)`` applies to this network.
    @inlinable
    public var readsBitboards: Bool { packedLayout != .none }
}
