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

    /// One orientation's four indices of the default network (its four 6-tuples' weights, table offsets included).
    @usableFromInline typealias OrientationIndices = (Int, Int, Int, Int)

    /// The default network's 32 feature indices of a board, four per orientation in ``orientations(of:)``'s order:
    /// what ``defaultFeatureIndices(of:)`` works out, a training move stores, and a sum or an update reads.
    @usableFromInline typealias DefaultFeatureIndices = (
        OrientationIndices, OrientationIndices, OrientationIndices, OrientationIndices,
        OrientationIndices, OrientationIndices, OrientationIndices, OrientationIndices
    )

    /// The four 6-tuple indices of the default network in one orientation, table offsets included.
    @inlinable @inline(__always)
    static func defaultIndices(_ x: UInt64) -> OrientationIndices {
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
    static func defaultIndicesOfRowMirror(_ x: UInt64) -> OrientationIndices {
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
    static func defaultFeatureIndices(of board: UInt64) -> DefaultFeatureIndices {
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

    /// Calls `body` with the packed ``ValueFunction`` of this network: each closure is the same code,
    /// specialized for its kind. For the calls of this extension, one at a time; hot loops are generic
    /// over the value function and switch over ``reading`` once per game or decision.
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    @inlinable @inline(__always)
    package func withPackedValue<Result>(
        _ defaultTuples: (DefaultTupleValue) -> Result, _ packedRuns: (PackedRunValue) -> Result
    ) -> Result {
        switch reading {
        case .defaultTuples: return defaultTuples(DefaultTupleValue(self))
        case .packedRuns: return packedRuns(PackedRunValue(self))
        case .cells: preconditionFailure("a packed 4x4 board needs a 4x4 network with 16 values per cell")
        }
    }

    /// Calls `body` with the weight index of every feature of a 4×4 bitboard, its stage's offset included.
    func forEachFeature(of board: Bitboard, _ body: (Int) -> Void) {
        let offset = stageOffset(of: board)
        withPackedValue({ $0.forEachFeature(of: board) { body(offset + $0) } }, { $0.forEachFeature(of: board) { body(offset + $0) } })
    }

    /// The value of a 4×4 bitboard.
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    public func value(of board: Bitboard) -> Float {
        withPackedValue({ $0.value(of: board) }, { $0.value(of: board) })
    }

    /// Adds `delta` to every feature weight of a 4×4 bitboard.
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    public func update(_ board: Bitboard, by delta: Float) {
        withPackedValue({ $0.update(board, by: delta) }, { $0.update(board, by: delta) })
    }

    /// Adds `delta` to every feature weight of a 4×4 bitboard and returns the board's new value.
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    public func updateAndValue(_ board: Bitboard, by delta: Float) -> Float {
        withPackedValue({ $0.updateAndValue(board, by: delta) }, { $0.updateAndValue(board, by: delta) })
    }

    /// One learning step on a 4×4 bitboard toward `target` (see ``ValueFunction/learn(_:toward:step:accumulators:)``).
    func learn(_ board: Bitboard, toward target: Float, step: Float, accumulators: CoherenceAccumulators? = nil) {
        withPackedValue(
            { $0.learn(board, toward: target, step: step, accumulators: accumulators) },
            { $0.learn(board, toward: target, step: step, accumulators: accumulators) })
    }

    /// Whether ``value(of:)-(Bitboard)`` applies to this network.
    public var readsBitboards: Bool { reading != .cells }
}
