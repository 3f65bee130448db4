import CPrefetch
import Game2048

/// A network's value function on one board type: which weights a board reads, and the value,
/// update, prefetch and greedy move built on them.
///
/// An implementation states one thing, ``forEachFeature(of:_:)``; the rest has default
/// implementations on top of it, which a fast path may replace by code that gives the same Float
/// (the tests compare them). Three conform, one for each way a ``NTupleNetwork`` is read (see
/// ``NTupleNetwork/Reading``):
/// - ``DefaultTupleValue``: the default 4 × 6-tuple network on the packed 4×4 `Bitboard`, unrolled;
/// - ``PackedRunValue``: any patterns on the packed 4×4 `Bitboard`, as runs of consecutive cells;
/// - ``CellTupleValue``: any patterns on a `Board` of any size, a cell at a time.
///
/// Staged networks are not a kind of their own: every kind reads its indices off the tables of the
/// board's stage (``NTupleNetwork/stageOffset(of:)``), so every kind has stages for free.
///
/// The training loop, greedy evaluation and the packed search are generic over this protocol and
/// `@inlinable`, so each kind gets its own specialized copy; the kind is chosen once per game or
/// decision, at the entry point (``NTupleNetwork/reading``), never tested move by move.
@usableFromInline
package protocol ValueFunction {
    /// The boards read.
    associatedtype Position: LearnableBoard
    /// The network whose weights are read and written.
    var network: NTupleNetwork { get }
    /// Calls `body` with the index of every feature weight of `board` within its stage's tables (add
    /// ``NTupleNetwork/stageOffset(of:)`` for the index in ``NTupleNetwork/weights``): one per pattern
    /// and symmetry, symmetric twins each time they occur.
    ///
    /// Relative to the stage, so that a read or a prefetch is one addressing mode off a pointer made
    /// once per board (an offset added to every index measured 9 % slower training).
    func forEachFeature(of board: Position, _ body: (Int) -> Void)
    /// `V(board)`: the sum of its feature weights, in ``forEachFeature(of:_:)``'s order or one that
    /// gives the same Float for every board.
    func value(of board: Position) -> Float
    /// One learning step on `board` toward `target`: TD(0)'s, adding `step · (target − V(board))` to its
    /// feature weights, or with `accumulators` TC's (`step` is then TC's meta rate per feature).
    func learn(_ board: Position, toward target: Float, step: Float, accumulators: CoherenceAccumulators?)
    /// Asks the CPU to start loading the weights ``value(of:)`` reads on `board`, without waiting (a
    /// hint: it changes no value).
    func prefetch(_ board: Position)
}

extension ValueFunction {
    @inlinable @inline(__always)
    package func value(of board: Position) -> Float { featureSum(of: board) }

    /// The sum of `board`'s feature weights, in ``forEachFeature(of:_:)``'s order: the value of a network without
    /// an afterstate table (``NTupleNetwork/afterstates``).
    @inlinable @inline(__always)
    func featureSum(of board: Position) -> Float {
        let w = network.weights.base + network.stageOffset(of: board)
        var sum: Float = 0
        forEachFeature(of: board) { sum += w[$0] }
        return sum
    }

    @inlinable @inline(__always)
    package func learn(_ board: Position, toward target: Float, step: Float, accumulators: CoherenceAccumulators?) {
        learn(board, error: target - featureSum(of: board), step: step, accumulators: accumulators)
    }

    @inlinable @inline(__always)
    package func prefetch(_ board: Position) {
        let w = UnsafeRawPointer(network.weights.base + network.stageOffset(of: board))
        forEachFeature(of: board) { prefetch_for_read(w + $0 &* MemoryLayout<Float>.stride) }
    }

    /// Adds `delta` to every feature weight of `board`.
    @inlinable @inline(__always)
    func update(_ board: Position, by delta: Float) {
        let w = network.weights.base + network.stageOffset(of: board)
        forEachFeature(of: board) { w[$0] += delta }
    }

    /// Adds `delta` to every feature weight of `board` and returns its new value.
    @inlinable @inline(__always)
    package func updateAndValue(_ board: Position, by delta: Float) -> Float {
        update(board, by: delta)
        // A second pass, not a running sum: symmetric twins share a weight, and a running sum
        // would read it before its second update. The loads hit cache.
        return featureSum(of: board)
    }

    /// A TC update of every feature of `board` (see ``CoherenceAccumulators``).
    @inlinable @inline(__always)
    func coherentUpdate(_ board: Position, error: Float, step: Float, accumulators: CoherenceAccumulators) {
        precondition(accumulators.count == network.weights.count, "the accumulators are for another network")
        let w = network.weights.base, offset = network.stageOffset(of: board)
        forEachFeature(of: board) { accumulators.update(w, at: offset &+ $0, error: error, step: step) }
    }

    /// One learning step on `board` with a TD `error` already known: TD(0)'s `step · error` on every
    /// feature weight, or with `accumulators` TC's.
    @inlinable @inline(__always)
    package func learn(_ board: Position, error: Float, step: Float, accumulators: CoherenceAccumulators?) {
        if let accumulators {
            coherentUpdate(board, error: error, step: step, accumulators: accumulators)
        } else {
            update(board, by: step * error)
        }
    }

    /// Prefetches the features of every legal afterstate of `board`: the weights
    /// ``greedyMove(on:table:prefetched:)`` will read on it.
    @inlinable @inline(__always)
    package func prefetchMoves(on board: Position, table: Bitboard.MoveTable) {
        for direction in Direction.allCases {
            let outcome = board.move(direction, table: table)
            if outcome.changed { prefetch(outcome.afterstate) }
        }
    }

    /// The greedy move on `board`, `argmax r + V(afterstate)` over the legal moves: its afterstate,
    /// reward, largest merge and value, and whether any move is legal.
    ///
    /// The first legal move in `Direction` order is kept unless a later one is strictly better, as
    /// in `Expectimax`. The four moves are made first, every legal afterstate's weights prefetched,
    /// and only then the values summed, so that the up to 128 cache misses are in flight together
    /// instead of one move's 32 at a time (measured: a quarter more moves per second in training and
    /// in greedy play). With `prefetched`, the caller has already asked for them
    /// (``prefetchMoves(on:table:)``) and the move does not again.
    @inlinable @inline(__always)
    package func greedyMove(on board: Position, table: Bitboard.MoveTable, prefetched: Bool = false)
        -> (afterstate: Position, reward: Int64, highestMerge: UInt8, value: Float, found: Bool)
    {
        let up = board.move(.up, table: table), right = board.move(.right, table: table)
        let down = board.move(.down, table: table), left = board.move(.left, table: table)
        @inline(__always) func prefetchIfLegal(_ outcome: MoveOutcome<Position>) {
            if !prefetched && outcome.changed { prefetch(outcome.afterstate) }
        }
        prefetchIfLegal(up)
        prefetchIfLegal(right)
        prefetchIfLegal(down)
        prefetchIfLegal(left)
        @inline(__always) func valueIfLegal(_ outcome: MoveOutcome<Position>) -> Float {
            outcome.changed ? value(of: outcome.afterstate) : 0
        }
        let values = (valueIfLegal(up), valueIfLegal(right), valueIfLegal(down), valueIfLegal(left))
        typealias Choice = (afterstate: Position, reward: Int64, highestMerge: UInt8, value: Float, found: Bool)
        // A pure function of the best so far, not a nested function that assigns a captured `best`: in a
        // generic context that capture is checked for exclusive access at run time, a call per move.
        @inline(__always) func better(_ best: Choice, _ outcome: MoveOutcome<Position>, _ value: Float) -> Choice {
            let total = Float(outcome.reward) + value
            guard outcome.changed && (!best.found || total > best.value) else { return best }
            return (outcome.afterstate, outcome.reward, outcome.highestMerge, total, true)
        }
        let none: Choice = (board, 0, 0, 0, false)
        return better(better(better(better(none, up, values.0), right, values.1), down, values.2), left, values.3)
    }
}
