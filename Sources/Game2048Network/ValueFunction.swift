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
    /// How many indices ``ValueFunction/storeFeatures(of:at:)`` writes for a board: a board's feature
    /// indices worked out once, so that a move that prefetches its afterstates' weights, then sums them,
    /// then (at the next move) learns the chosen one does not work them out three times. 0 for a kind that
    /// reads them off the board each time (the default implementations below).
    static var storedFeatureCount: Int { get }
    /// Writes `board`'s feature indices at `slot` (``ValueFunction/storedFeatureCount`` of them).
    func storeFeatures(of board: Position, at slot: UnsafeMutablePointer<Int32>)
    /// ``ValueFunction/value(of:)`` of `board`, whose indices ``ValueFunction/storeFeatures(of:at:)`` wrote
    /// at `slot`: the same Float.
    func value(of board: Position, storedAt slot: UnsafePointer<Int32>) -> Float
    /// ``ValueFunction/prefetch(_:)`` of `board`, whose indices are at `slot`.
    func prefetch(_ board: Position, storedAt slot: UnsafePointer<Int32>)
    /// ``ValueFunction/learn(_:toward:step:accumulators:)`` of `board`, whose indices are at `slot`: the
    /// same weights.
    func learn(
        _ board: Position, storedAt slot: UnsafePointer<Int32>, toward target: Float, step: Float, accumulators: CoherenceAccumulators?)
}

// A kind that stores no indices reads them off the board each time.
extension ValueFunction {
    @inlinable package static var storedFeatureCount: Int { 0 }

    @inlinable @inline(__always)
    package func storeFeatures(of board: Position, at slot: UnsafeMutablePointer<Int32>) {}

    @inlinable @inline(__always)
    package func value(of board: Position, storedAt slot: UnsafePointer<Int32>) -> Float { value(of: board) }

    @inlinable @inline(__always)
    package func prefetch(_ board: Position, storedAt slot: UnsafePointer<Int32>) { prefetch(board) }

    @inlinable @inline(__always)
    package func learn(
        _ board: Position, storedAt slot: UnsafePointer<Int32>, toward target: Float, step: Float, accumulators: CoherenceAccumulators?
    ) {
        learn(board, toward: target, step: step, accumulators: accumulators)
    }
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

    /// The four moves of `board`, each legal afterstate's feature indices stored in `slots` (four slots of
    /// ``storedFeatureCount`` each, in `Direction` order) and its weights asked for: what
    /// ``greedyMove(among:)`` reads. A caller with several games asks for the next game's candidates
    /// before it waits on this one's, so that their loads overlap.
    @inlinable @inline(__always)
    package func candidates(on board: Position, table: Bitboard.MoveTable, slots: UnsafeMutablePointer<Int32>) -> MoveCandidates<Self> {
        @inline(__always) func candidate(_ direction: Direction) -> MoveOutcome<Position> {
            let outcome = board.move(direction, table: table)
            if outcome.changed {
                let slot = slots + direction.rawValue &* Self.storedFeatureCount
                storeFeatures(of: outcome.afterstate, at: slot)
                prefetch(outcome.afterstate, storedAt: slot)
            }
            return outcome
        }
        return MoveCandidates(up: candidate(.up), right: candidate(.right), down: candidate(.down), left: candidate(.left), slots: slots)
    }

    /// The greedy move on `board`, `argmax r + V(afterstate)` over the legal moves, as ``greedyMove(among:)``
    /// chooses it, for a caller that plays one game: each legal afterstate's indices are worked out for the
    /// prefetch and again for the sum, in registers. Kept in slots, as a training move keeps them for its update,
    /// the sums' loads waited on the slots' and greedy evaluation ran 6 % slower (3.52 against 3.29 M moves a
    /// second), for 9 % fewer instructions.
    @inlinable @inline(__always)
    package func greedyMove(on board: Position, table: Bitboard.MoveTable) -> GreedyChoice<Position> {
        let up = board.move(.up, table: table), right = board.move(.right, table: table)
        let down = board.move(.down, table: table), left = board.move(.left, table: table)
        @inline(__always) func prefetchIfLegal(_ outcome: MoveOutcome<Position>) { if outcome.changed { prefetch(outcome.afterstate) } }
        prefetchIfLegal(up)
        prefetchIfLegal(right)
        prefetchIfLegal(down)
        prefetchIfLegal(left)
        @inline(__always) func valueIfLegal(_ outcome: MoveOutcome<Position>) -> Float { outcome.changed ? value(of: outcome.afterstate) : 0 }
        return Self.choose(
            (up, valueIfLegal(up)), (right, valueIfLegal(right)), (down, valueIfLegal(down)), (left, valueIfLegal(left)))
    }

    /// The first legal move in `Direction` order, unless a later one is strictly better (as in `Expectimax`),
    /// given the four moves in that order with their afterstates' values (0 for an illegal move).
    @inlinable @inline(__always)
    static func choose(
        _ up: (MoveOutcome<Position>, Float), _ right: (MoveOutcome<Position>, Float), _ down: (MoveOutcome<Position>, Float),
        _ left: (MoveOutcome<Position>, Float)
    ) -> GreedyChoice<Position> {
        // A pure function of the best so far, not a nested function that assigns a captured `best`: in a
        // generic context that capture is checked for exclusive access at run time, a call per move.
        @inline(__always) func better(
            _ best: GreedyChoice<Position>, _ outcome: MoveOutcome<Position>, _ direction: Direction, _ value: Float
        ) -> GreedyChoice<Position> {
            let total = Float(outcome.reward) + value
            guard outcome.changed && (!best.found || total > best.value) else { return best }
            return GreedyChoice(
                direction: direction, afterstate: outcome.afterstate, reward: outcome.reward, highestMerge: outcome.highestMerge,
                value: total, found: true)
        }
        let none = GreedyChoice(direction: .up, afterstate: up.0.afterstate, reward: 0, highestMerge: 0, value: 0, found: false)
        return better(better(better(better(none, up.0, .up, up.1), right.0, .right, right.1), down.0, .down, down.1), left.0, .left, left.1)
    }

    /// The greedy move among a board's candidates, `argmax r + V(afterstate)` over the legal moves: its
    /// direction, afterstate, reward, largest merge and value, and whether any move is legal.
    ///
    /// The first legal move in `Direction` order is kept unless a later one is strictly better, as
    /// in `Expectimax`. The four moves are made and every legal afterstate's weights prefetched
    /// (``candidates(on:table:slots:)``) before any value is summed, so that the up to 128 cache misses
    /// are in flight together instead of one move's 32 at a time (measured: a quarter more moves per
    /// second in training and in greedy play).
    @inlinable @inline(__always)
    package func greedyMove(among candidates: MoveCandidates<Self>) -> GreedyChoice<Position> {
        @inline(__always) func valueIfLegal(_ outcome: MoveOutcome<Position>, _ direction: Direction) -> Float {
            outcome.changed ? value(of: outcome.afterstate, storedAt: candidates.slot(direction)) : 0
        }
        return Self.choose(
            (candidates.up, valueIfLegal(candidates.up, .up)), (candidates.right, valueIfLegal(candidates.right, .right)),
            (candidates.down, valueIfLegal(candidates.down, .down)), (candidates.left, valueIfLegal(candidates.left, .left)))
    }
}
