import Game2048
import Synchronization
import Game2048Network

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
/// learner at once: updates are lock-free ("Hogwild!"). One thread can also play
/// several games at once, a move of each in turn
/// (``trainGames(lanes:using:mayStart:finished:)``), which on 4×4 hides much of
/// the time a move waits on its weights.
///
/// `LearningMethod.tc` replaces the one rate by each weight's temporal coherence
/// (`CoherenceAccumulators`, meta rate ``coherenceAlpha``); `LearningMethod.otdThenTC`
/// starts as TD and switches to TC at ``startCoherence()`` (Guei, Chen & Wu 2022). On a
/// staged network (`NTupleNetwork.stageCount` > 1) the first afterstate a game chooses
/// in a new stage promotes it (`NTupleNetwork.promote(toStage:)`), and that move's value
/// is read again from the promoted tables before it serves as a target.
///
/// The games follow the `Rules`: their size, spawn distribution and initial tiles; a
/// `Rules.winTile` ends a game as the environment does (the board that reaches it is
/// terminal, its afterstate learns toward 0), and the step limit (`EpisodeRules.stepLimit`) truncates it (the last
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
    /// TC's accumulators, for `LearningMethod.tc` and `LearningMethod.otdThenTC`.
    public let accumulators: CoherenceAccumulators?
    /// Whether games started from now on learn by TC.
    let coherenceOn: Atomic<Bool>
    /// The chance that a game which ended is played again from its restart point, the board on which it first held
    /// its largest tile (``trainGames(lanes:using:mayStart:finished:)``; 0: every game from the starting tiles).
    ///
    /// A game's late boards are its rarest: every game passes through the early ones, few reach a 16 384 tile, and
    /// they are where a network that plays well early still loses its games. Playing the stretch after a game's
    /// largest tile again, with new spawns, trains on those boards as often as the chance asks, as Matsuzaki's
    /// restarts (2017) and Jaśkowski's carousel shaping (2018) do with their own choices of starting boards.
    public let restartChance: Double
    /// The smallest tile a restart point holds: a game restarts from the board on which it first held its largest
    /// tile only when that tile is this one or larger (4, any tile a merge makes, by default).
    public let restartTile: Int
    /// ``restartChance`` as a threshold of `bernoulli(threshold:)`.
    @usableFromInline let restartThreshold: UInt64

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
    /// How the training games start, spawn and end: the environment's own episode rules.
    @usableFromInline let episode: EpisodeRules
    @usableFromInline let rowTable: Bitboard.MoveTable
    /// The afterstates a backward game keeps at most twice over: a longer game (an 8×8 game plays
    /// millions of moves) learns its oldest block of this many before it ends, so its memory stays
    /// bounded and a stop waits for at most two blocks a game (32 games of 8×8: about a second). A
    /// 4×4 game is that long only past the 32 768 tile. Internal, for tests of the blocks.
    @usableFromInline var backwardBlock = 1 << 14
    /// The reward a move that makes the win tile has at least (a merge into it scores its value), `Int64.max` for none.
    @usableFromInline let winReward: Int64

    /// The memory a learner allocates beside its network of `weights` weights: the accumulators of temporal
    /// coherence (two a weight) for a method that needs them.
    public static func memoryBytes(weights: Int, method: LearningMethod) -> Int {
        method.needsAccumulators ? NTupleNetwork.memoryBytes(weights: 2 * weights) : 0
    }

    /// Creates a learner for `network` under `rules`.
    ///
    /// - Precondition: the network's board size is the rules'.
    ///
    /// - Parameters:
    ///   - network: the network to train, shared with the caller (a class).
    ///   - rules: the rules of the training games.
    ///   - alpha: TD's learning rate (`LearningMethod.td`, and the first part of `LearningMethod.otdThenTC`).
    ///   - schedule: when a game's updates are applied.
    ///   - method: how errors change the weights.
    ///   - coherenceAlpha: TC's meta learning rate β.
    ///   - coherenceStarted: for `LearningMethod.otdThenTC`, whether the switch to TC happened already (a resumed run).
    ///   - restartChance: ``restartChance``.
    ///   - restartTile: ``restartTile``.
    /// - Precondition: `restartChance` is in `TrainingRequest.restartChances`, `restartTile` a power of two in
    ///   `TrainingRequest.restartTiles`.
    public init(
        network: NTupleNetwork, rules: Rules, alpha: Float = 0.1, schedule: Schedule = .forward,
        method: LearningMethod = .td, coherenceAlpha: Float = 1, coherenceStarted: Bool = false, restartChance: Double = 0,
        restartTile: Int = TrainingRequest.restartTiles.lowerBound
    ) {
        precondition(TrainingRequest.restartChances.contains(restartChance), "restartChance is \(restartChance)")
        precondition(TrainingRequest.isRestartTile(restartTile), "restartTile is \(restartTile)")
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
        episode = rules.episodeRules
        rowTable = Bitboard.MoveTable()
        winReward = rules.winTile.map(Int64.init) ?? Int64.max
        self.restartChance = restartChance
        self.restartTile = restartTile
        restartThreshold = bernoulliThreshold(probability: restartChance)
    }

    /// Whether `board` holds the rules' win tile; checked only when a move or a spawn could have made it.
    @inlinable @inline(__always)
    func reachesWin(reward: Int64, _ board: some GameBoard) -> Bool {
        (reward >= winReward || episode.winExponent <= 2) && episode.isWon(highest: board.maxExponent)
    }

    /// Whether games started now learn by TC.
    public var learnsByCoherence: Bool { coherenceOn.load(ordering: .relaxed) }

    /// Switches `LearningMethod.otdThenTC` from TD to TC for the games started from now on;
    /// returns whether it switched (not for another method, nor a second time).
    @discardableResult
    public func startCoherence() -> Bool {
        guard method == .otdThenTC else { return false }
        return coherenceOn.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// Why TD does not train a network whose afterstate table holds values: its targets and errors would mix the
    /// table's values with the tuples' (``AfterstateLearner`` trains such a network).
    static let tableRefusal = "TD trains the tuples of a network whose afterstate table is empty"

    /// Plays one game with learning and returns its result.
    @discardableResult
    public func trainGame(using rng: inout Xoshiro256StarStar) -> GameResult {
        precondition(network.afterstates?.count ?? 0 == 0, TDLearner.tableRefusal)
        return switch network.reading {
        case .defaultTuples: trainGame(DefaultTupleValue(network), using: &rng)
        case .packedRuns: trainGame(PackedRunValue(network), using: &rng)
        case .cells: trainGame(CellTupleValue(network), using: &rng)
        }
    }

    /// One game read through `valueFunction`: the hot loop of training, specialized for each
    /// `ValueFunction`.
    @inlinable
    func trainGame<V: ValueFunction>(_ valueFunction: V, using rng: inout Xoshiro256StarStar) -> GameResult {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: TrainingGame<V>.slotCapacity) { slots in
            var game = TrainingGame(self, valueFunction, slots: slots.baseAddress.unsafelyUnwrapped, using: &rng)
            while !game.isOver { game.step(self, valueFunction, using: &rng) }
            return game.finish(self)
        }
    }

    /// Plays games `lanes` at a time on this thread, interleaved move by move, for as long as
    /// `mayStart` allows new ones; calls `finished` with each game's result as it ends.
    ///
    /// While one game sums its afterstates' values, the weights the next lane's move will read are
    /// already on their way (`NTupleNetwork`'s tables are hundreds of megabytes, and most reads miss
    /// every cache): on 4×4, two lanes play about an eighth more moves a second than one. The games
    /// share the weights as games on several threads do, but in a fixed order: a seed gives the same
    /// games every time. One lane plays the games of ``trainGame(using:)``, one after the other.
    ///
    /// - Parameters:
    ///   - lanes: games in progress at once, at least 1.
    ///   - rng: the generator every lane's spawns are drawn from, in the order the moves are played.
    ///   - mayStart: asked before each game starts; `false` starts no more (the lanes still playing finish).
    ///   - finished: called with each game's result, in the order the games end.
    public func trainGames(
        lanes: Int, using rng: inout Xoshiro256StarStar, mayStart: () -> Bool, finished: (GameResult) -> Void
    ) {
        precondition(lanes >= 1, "lanes must be at least 1")
        precondition(network.afterstates?.count ?? 0 == 0, TDLearner.tableRefusal)
        switch network.reading {
        case .defaultTuples: trainGames(DefaultTupleValue(network), lanes: lanes, using: &rng, mayStart: mayStart, finished: finished)
        case .packedRuns: trainGames(PackedRunValue(network), lanes: lanes, using: &rng, mayStart: mayStart, finished: finished)
        case .cells: trainGames(CellTupleValue(network), lanes: lanes, using: &rng, mayStart: mayStart, finished: finished)
        }
    }

    /// ``trainGames(lanes:using:mayStart:finished:)`` read through `valueFunction`, specialized as
    /// ``trainGame(using:)`` is.
    @inlinable
    func trainGames<V: ValueFunction>(
        _ valueFunction: V, lanes: Int, using rng: inout Xoshiro256StarStar, mayStart: () -> Bool, finished: (GameResult) -> Void
    ) {
        // Each lane's game and whether the lane still plays (no new game may start where one ended). A new game
        // starts where one ends, so the lanes keep their order.
        // Games are mutated in place: a copy would copy a backward game's path.
        var games: [TrainingGame<V>] = []
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: lanes &* TrainingGame<V>.slotCapacity)
        defer { slots.deallocate() }
        @inline(__always) func laneSlots(_ lane: Int) -> UnsafeMutablePointer<Int32> { slots + lane &* TrainingGame<V>.slotCapacity }
        for lane in 0..<lanes {
            guard mayStart() else { break }
            games.append(TrainingGame(self, valueFunction, slots: laneSlots(lane), using: &rng))
        }
        var playing = [Bool](repeating: true, count: games.count)
        var remaining = games.count
        games.withUnsafeMutableBufferPointer { games in
            while remaining > 0 {
                for lane in games.indices where playing[lane] {
                    // The next lane's weights start loading before this lane's move waits on its own, which the
                    // lane before asked for (only the lane before a lane prefetches it, so never twice). The last
                    // lane playing prefetches its own, within its move.
                    var next = lane
                    repeat { next = next + 1 == games.count ? 0 : next + 1 } while !playing[next] && next != lane
                    if next != lane && !games[next].isOver { games[next].prepare(self) }
                    if !games[lane].isOver { games[lane].stepNotingRestartPoint(self, valueFunction, using: &rng) }
                    guard games[lane].isOver else { continue }
                    finished(games[lane].finish(self))
                    if mayStart() {
                        // A draw only where a restart may follow: without restarts the games are those of before.
                        let point = games[lane].restartPoint
                        let restart = point != nil && rng.bernoulli(threshold: restartThreshold)
                        games[lane] = TrainingGame(self, valueFunction, slots: laneSlots(lane), restartingFrom: restart ? point : nil, using: &rng)
                    } else {
                        playing[lane] = false
                        remaining -= 1
                    }
                }
            }
        }
    }
}
