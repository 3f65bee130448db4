import Game2048
import Synchronization

/// The result of one game, for statistics.
public struct GameResult: Hashable, Sendable {
    /// The final score.
    public var score: Int64
    /// The largest tile reached (its value).
    public var maxTile: Int
    /// Moves played.
    public var moves: Int

    /// Creates a result.
    public init(score: Int64, maxTile: Int, moves: Int) {
        self.score = score
        self.maxTile = maxTile
        self.moves = moves
    }
}

/// Temporal-difference learning of afterstate values, as in Szubert & Jaśkowski (2014).
///
///     let learner = TDLearner(network: NTupleNetwork(rows: 4, cols: 4), rules: Rules(), alpha: 0.1)
///     var rng = Xoshiro256StarStar(seed: 1)
///     for _ in 0..<1_000 { learner.trainGame(using: &rng) }
///
/// Each move is chosen greedily over afterstates, `argmax_a r(s, a) + V(s ⊕ a)`
/// (the afterstate is the board after the slide, before the spawn), and after each
/// move the previous afterstate's value moves toward the TD(0) target
/// `r' + V(s'')`, the reward and afterstate value of the move chosen next; at the
/// end of the game the target is 0:
///
///     V(s_after) ← V(s_after) + α / features · (r' + V(s'_after) − V(s_after))
///
/// `alpha` is split over the features that take part in a value (32 for the
/// default 4×4 network), the convention of TDL2048.
///
/// ``Schedule/forward`` applies each update right after the next move (online,
/// as Szubert & Jaśkowski describe it); ``Schedule/backward`` plays the game
/// first and then applies the same TD(0) updates from the last afterstate to
/// the first, so each target already uses the value just updated after it: the
/// end-of-game signal travels the whole episode at once (as the TDL2048
/// framework does). At equal time the two learn alike here, and forward, the
/// default, plays about 10 % more moves per second: its updates touch weights
/// that the move selection has just brought into cache. Games run on the packed
/// `Bitboard` on 4×4 boards and on `Board` otherwise, with the package's
/// spawn rule and generator, so a seed gives the same training run every time
/// (with one thread). Several threads may call ``trainGame(using:)`` on one
/// learner at once: updates are lock-free ("Hogwild!").
///
/// ``LearningMethod/tc`` replaces the one rate by each weight's temporal coherence
/// (``CoherenceAccumulators``, meta rate ``coherenceAlpha``); ``LearningMethod/otdThenTC``
/// starts as TD and switches to TC at ``startCoherence()`` (Guei, Chen & Wu 2022). On a
/// staged network (``NTupleNetwork/stageCount`` > 1) the first afterstate a game chooses
/// in a new stage promotes it (``NTupleNetwork/promote(toStage:)``), and that move's value
/// is read again from the promoted tables before it serves as a target.
///
/// The games follow the `Rules`: their size, spawn distribution and initial tiles; a
/// `Rules.winTile` ends a game as the environment does (the board that reaches it is
/// terminal, its afterstate learns toward 0), and `Rules.maxSteps` truncates it (the last
/// afterstate is left as it is: the game did not end, it was cut). `Rules.invalidAction`
/// never applies, as the learner plays only legal moves. ``stop`` ends the games in progress
/// early, truncated the same way.
public final class TDLearner: @unchecked Sendable {
    /// The network being trained.
    public let network: NTupleNetwork
    /// The rules of the games played.
    public let rules: Rules
    /// The learning rate before it is split over the features.
    public let alpha: Float
    /// When the TD updates of a game are applied.
    public let schedule: Schedule
    /// How TD errors change the weights.
    public let method: LearningMethod
    /// The TC meta learning rate β, before it is split over the features.
    public let coherenceAlpha: Float
    /// TC's accumulators, for ``LearningMethod/tc`` and ``LearningMethod/otdThenTC``.
    public let accumulators: CoherenceAccumulators?
    /// Whether games started from now on learn by TC.
    let coherenceOn: Atomic<Bool>

    /// When the TD updates of a game are applied.
    public enum Schedule: String, Sendable, CaseIterable {
        /// After every move, toward the next move's reward and afterstate value.
        case forward
        /// After the game, from its last afterstate back to its first.
        case backward
    }
    /// Ends training early: checked every ``stopCheckInterval`` moves of a game, and by ``TrainingLoop`` between games.
    public let stop = TrainingStop()
    /// Moves between two looks at ``stop`` within a game: one comparison a move, a clock read every 4 096.
    public static let stopCheckInterval = 4096

    @usableFromInline let step: Float
    @usableFromInline let coherenceStep: Float
    @usableFromInline let fourThreshold: UInt64
    @usableFromInline let rowTable: Bitboard.MoveTable
    /// The rules' step limit, `Int.max` for none.
    @usableFromInline let maxSteps: Int
    /// The reward a move that makes the win tile has at least (a merge into it scores its value), `Int64.max` for none.
    @usableFromInline let winReward: Int64
    /// The win tile's exponent (`UInt8.max` for none); a spawned 4 reaches it when it is 2.
    @usableFromInline let winExponent: UInt8

    /// Creates a learner for `network` under `rules`.
    ///
    /// - Precondition: the network's board size is the rules'.
    ///
    /// - Parameters:
    ///   - network: the network to train, shared with the caller (a class).
    ///   - rules: the rules of the training games.
    ///   - alpha: TD's learning rate (``LearningMethod/td``, and the first part of ``LearningMethod/otdThenTC``).
    ///   - schedule: when a game's updates are applied.
    ///   - method: how errors change the weights.
    ///   - coherenceAlpha: TC's meta learning rate β.
    ///   - coherenceStarted: for ``LearningMethod/otdThenTC``, whether the switch to TC happened already (a resumed run).
    public init(
        network: NTupleNetwork, rules: Rules, alpha: Float = 0.1, schedule: Schedule = .forward,
        method: LearningMethod = .td, coherenceAlpha: Float = 1, coherenceStarted: Bool = false
    ) {
        precondition(network.rows == rules.rows && network.cols == rules.cols, "the network is for another board size")
        self.network = network
        self.rules = rules
        self.alpha = alpha
        self.schedule = schedule
        self.method = method
        self.coherenceAlpha = coherenceAlpha
        accumulators = method.needsAccumulators ? CoherenceAccumulators(count: network.weights.count) : nil
        coherenceOn = Atomic(method == .tc || (method == .otdThenTC && coherenceStarted))
        step = alpha / Float(network.featureCount)
        coherenceStep = coherenceAlpha / Float(network.featureCount)
        fourThreshold = bernoulliThreshold(probability: rules.spawnFourProbability)
        rowTable = Bitboard.MoveTable()
        maxSteps = rules.maxSteps ?? Int.max
        winReward = rules.winTile.map(Int64.init) ?? Int64.max
        winExponent = rules.winExponent ?? UInt8.max
    }

    /// Whether `board` holds the rules' win tile; checked only when a move or a spawn could have made it.
    @inlinable @inline(__always)
    func reachesWin(reward: Int64, _ board: some GameBoard) -> Bool {
        (reward >= winReward || winExponent <= 2) && board.maxExponent >= winExponent
    }

    /// Whether games started now learn by TC.
    public var learnsByCoherence: Bool { coherenceOn.load(ordering: .relaxed) }

    /// Switches ``LearningMethod/otdThenTC`` from TD to TC for the games started from now on;
    /// returns whether it switched (not for another method, nor a second time).
    @discardableResult
    public func startCoherence() -> Bool {
        guard method == .otdThenTC else { return false }
        return coherenceOn.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// One update of `board` toward a target `error` above its value: TD's, or TC's when `coherent`.
    @inlinable @inline(__always)
    func learn(_ board: Bitboard, error: Float, coherent: Bool) {
        if coherent, let accumulators {
            network.coherentUpdate(board, error: error, step: coherenceStep, accumulators: accumulators)
        } else {
            network.update(board, by: step * error)
        }
    }

    /// One update of `board`, as ``learn(_:error:coherent:)-(Bitboard,_,_)``.
    func learn(_ board: Board, error: Float, coherent: Bool) {
        if coherent, let accumulators {
            network.coherentUpdate(board, error: error, step: coherenceStep, accumulators: accumulators)
        } else {
            network.update(board, by: step * error)
        }
    }

    /// Plays one game with learning and returns its result.
    @discardableResult
    public func trainGame(using rng: inout Xoshiro256StarStar) -> GameResult {
        if network.readsBitboards { return trainGame(on: Bitboard.self, using: &rng) }
        return trainGame(on: Board.self, using: &rng)
    }

    /// One game on boards of type `B`: the hot loop of training, specialized for each board
    /// (`Bitboard` on 4×4, `Board` elsewhere).
    @inlinable
    func trainGame<B: LearnableBoard>(on _: B.Type, using rng: inout Xoshiro256StarStar) -> GameResult {
        var board = B.empty(for: self)
        for _ in 0..<rules.initialTiles { _ = board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng) }
        var previous: B? = nil
        var score: Int64 = 0, moves = 0
        let backward = schedule == .backward
        let coherent = learnsByCoherence, staged = network.stageCount > 1
        var gameStage = 0
        if staged { gameStage = network.stage(maxExponent: board.maxExponent); network.promote(toStage: gameStage) }
        var path: [(afterstate: B, reward: Float)] = []
        if backward { path.reserveCapacity(4096) }
        var truncated = false, nextCheck = min(maxSteps, TDLearner.stopCheckInterval)
        // With a win tile of 4, the first tiles may already end the game.
        let wonAtStart = reachesWin(reward: 0, board)
        while !wonAtStart {
            var (best, bestReward, bestValue, found) = board.greedyMove(for: self)
            if staged && found {
                // A new stage: promote it, and read the move's value again from its copied tables.
                let stage = network.stage(maxExponent: best.maxExponent)
                if stage > gameStage {
                    gameStage = stage
                    if network.promote(toStage: stage) { bestValue = Float(bestReward) + best.value(in: network) }
                }
            }
            if !backward, let previous {
                let target: Float = found ? bestValue : 0
                previous.learn(in: self, toward: target, coherent: coherent)
            }
            guard found else { break }
            if backward { path.append((best, Float(bestReward))) }
            score += bestReward
            moves += 1
            // The win tile ends the game: the afterstate is terminal (forward learns it toward 0 here, backward below).
            if reachesWin(reward: bestReward, best) {
                if !backward { best.learn(in: self, error: -best.value(in: network), coherent: coherent) }
                board = best
                break
            }
            // The step limit or a stop truncates the game: its last afterstate is not updated.
            if moves >= nextCheck {
                if moves >= maxSteps || stop.isDue { (truncated, board) = (true, best); break }
                nextCheck = min(maxSteps, moves + TDLearner.stopCheckInterval)
            }
            // A packed board with two 32 768 tiles ends the game here (without a terminal
            // update, so the network does not learn to fear it).
            if best.holdsTooLargeATile { break }
            previous = best
            board = best
            _ = board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng)
            if winExponent <= 2 && reachesWin(reward: 0, board) {
                if !backward { best.learn(in: self, error: -best.value(in: network), coherent: coherent) }
                break
            }
        }
        if backward {
            // From the last afterstate (target 0: the game ended; its own value when it was cut) back to the first.
            var target: Float = 0
            if truncated, let last = path.popLast() { target = last.reward + last.afterstate.value(in: network) }
            for (afterstate, reward) in path.reversed() {
                let value = afterstate.value(in: network)
                if coherent {
                    afterstate.learn(in: self, error: target - value, coherent: true)
                    target = reward + afterstate.value(in: network)
                } else {
                    target = reward + afterstate.updateAndValue(in: network, by: step * (target - value))
                }
            }
        }
        return GameResult(score: score, maxTile: Board.value(ofExponent: board.maxExponent), moves: moves)
    }
}

extension NTupleNetwork {
    @inlinable @inline(__always)
    func defaultOrCustomValue(_ board: Bitboard) -> Float {
        packedLayout == .defaultSixTuples ? defaultValue(board) : value(of: board)
    }
}

extension Bitboard {
    /// The number of cells holding 15 (the 32 768 tile).
    @inlinable
    static func countLimitTiles(_ board: Bitboard) -> Int {
        (0..<16).count { board[$0] == 15 }
    }
}
