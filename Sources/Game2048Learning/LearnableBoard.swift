import Game2048

/// What ``TDLearner``'s one training loop needs of a board beyond `GameBoard`: the network's
/// reads and writes on it, and the greedy move.
///
/// Two boards conform: the packed 4×4 `Bitboard` (features straight from the `UInt64`, the
/// four moves made before any value is read) and `Board` (any size). The loop is generic and
/// `@inlinable`, so each board gets its own specialized copy: the packed one compiles to the
/// code a loop written for `Bitboard` alone would be.
@usableFromInline
protocol LearnableBoard: GameBoard {
    /// The empty board of the learner's rules.
    static func empty(for learner: TDLearner) -> Self
    /// The greedy move, `argmax r + V(afterstate)`: its afterstate, reward, `r + V` and whether any move is legal;
    /// `prefetched` when ``prefetchMoves(for:)`` was called on this board already.
    func greedyMove(for learner: TDLearner, prefetched: Bool) -> (afterstate: Self, reward: Int64, value: Float, found: Bool)
    /// Starts loading the weights ``greedyMove(for:prefetched:)`` will read on this board, without waiting (a
    /// hint: it changes no value).
    func prefetchMoves(for learner: TDLearner)
    /// `V(self)` in `network`.
    func value(in network: NTupleNetwork) -> Float
    /// Adds `delta` to every feature weight and returns the new value.
    func updateAndValue(in network: NTupleNetwork, by delta: Float) -> Float
    /// One TD or TC update toward a target `error` above the current value.
    func learn(in learner: TDLearner, error: Float, coherent: Bool)
    /// One TD or TC update toward `target`: ``learn(in:error:coherent:)`` with `target − V(self)`,
    /// which the packed default network does reading its feature indices once.
    func learn(in learner: TDLearner, toward target: Float, coherent: Bool)
    /// Whether the board cannot go on: on a packed board, two 32 768 tiles (four bits hold no more).
    var holdsTooLargeATile: Bool { get }
}

extension Bitboard: LearnableBoard {
    @inlinable
    static func empty(for learner: TDLearner) -> Bitboard { Bitboard(rawValue: 0) }

    @inlinable @inline(__always)
    func greedyMove(for learner: TDLearner, prefetched: Bool) -> (afterstate: Bitboard, reward: Int64, value: Float, found: Bool) {
        let best = learner.network.greedyMove(on: self, table: learner.rowTable, prefetched: prefetched)
        return (best.afterstate, best.reward, best.value, best.found)
    }

    @inlinable @inline(__always)
    func prefetchMoves(for learner: TDLearner) { learner.network.prefetchMoves(on: self, table: learner.rowTable) }

    @inlinable @inline(__always)
    func value(in network: NTupleNetwork) -> Float { network.defaultOrCustomValue(self) }

    @inlinable @inline(__always)
    func updateAndValue(in network: NTupleNetwork, by delta: Float) -> Float { network.updateAndValue(self, by: delta) }

    @inlinable @inline(__always)
    func learn(in learner: TDLearner, error: Float, coherent: Bool) { learner.learn(self, error: error, coherent: coherent) }

    @inlinable @inline(__always)
    func learn(in learner: TDLearner, toward target: Float, coherent: Bool) {
        if coherent, let accumulators = learner.accumulators {
            learner.network.learn(self, toward: target, step: learner.coherenceStep, accumulators: accumulators)
        } else {
            learner.network.learn(self, toward: target, step: learner.step)
        }
    }

    @inlinable @inline(__always)
    var holdsTooLargeATile: Bool { holdsLimitTile && Bitboard.countLimitTiles(self) >= 2 }
}

extension Board: LearnableBoard {
    @usableFromInline
    static func empty(for learner: TDLearner) -> Board { Board(rules: learner.rules) }

    @usableFromInline
    func greedyMove(for learner: TDLearner, prefetched: Bool) -> (afterstate: Board, reward: Int64, value: Float, found: Bool) {
        var best: (afterstate: Board, reward: Int64, value: Float, found: Bool) = (self, 0, -Float.infinity, false)
        // The first legal move in Direction order, unless a later one is strictly better.
        for direction in Direction.allCases {
            let outcome = moved(direction)
            guard outcome.changed else { continue }
            let value = Float(outcome.reward) + learner.network.value(of: outcome.afterstate)
            if value > best.value { best = (outcome.afterstate, outcome.reward, value, true) }
        }
        return best
    }

    /// Nothing: a `Board`'s features are computed and read one at a time.
    @usableFromInline
    func prefetchMoves(for learner: TDLearner) {}

    @usableFromInline
    func value(in network: NTupleNetwork) -> Float { network.value(of: self) }

    @usableFromInline
    func updateAndValue(in network: NTupleNetwork, by delta: Float) -> Float { network.updateAndValue(self, by: delta) }

    @usableFromInline
    func learn(in learner: TDLearner, error: Float, coherent: Bool) { learner.learn(self, error: error, coherent: coherent) }

    @usableFromInline
    func learn(in learner: TDLearner, toward target: Float, coherent: Bool) {
        learner.learn(self, error: target - value(in: learner.network), coherent: coherent)
    }

    @usableFromInline
    var holdsTooLargeATile: Bool { false }
}
