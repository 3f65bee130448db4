import Dispatch
import Game2048
import Synchronization
import Game2048Network

/// When a training run stops, and how it is seeded.
public struct TrainingPlan: Sendable {
    /// Stop after this many games in total (counting games before a resume), if set.
    public var games: Int?
    /// Stop after this many seconds of this run, if set.
    public var seconds: Double?
    /// Threads playing games at once over the shared network.
    public var threads: Int
    /// Games each thread plays at once, interleaved move by move (see ``TDLearner/trainGames(lanes:using:mayStart:finished:)``;
    /// 1 by default, one game after another; `g2048 train` takes 2 on 4×4).
    public var lanes: Int
    /// The seed; thread `t` plays with the `t + 1`-th output of `SplitMix64(seed + gamesBefore)`.
    public var seed: UInt64

    /// Creates a plan; with neither `games` nor `seconds` the run never stops by itself.
    public init(games: Int? = nil, seconds: Double? = nil, threads: Int = 1, lanes: Int = 1, seed: UInt64 = 1) {
        self.games = games
        self.seconds = seconds
        self.threads = threads
        self.lanes = lanes
        self.seed = seed
    }
}

/// Runs a ``TDLearner`` on one or more threads until the plan says stop.
///
///     let loop = TrainingLoop(learner: learner, gamesBefore: 0)
///     loop.run(TrainingPlan(games: 10_000, threads: 2)) { result, gamesDone in … }
///
/// With one thread the run is deterministic: the same seed (and the same number of
/// lanes) gives the same games and the same weights. With more, threads update the
/// shared weights without locks ("Hogwild!"), so games per second scale with cores
/// and results vary slightly from run to run.
public struct TrainingLoop: Sendable {
    /// The learner.
    public let learner: TDLearner
    /// Games already trained before this run (when resuming).
    public let gamesBefore: Int

    /// Creates a loop.
    public init(learner: TDLearner, gamesBefore: Int) {
        self.learner = learner
        self.gamesBefore = gamesBefore
    }

    /// Trains until the plan's limit or the learner's ``TDLearner/stop``; returns the number of games this run played.
    ///
    /// A time limit or a stop request also ends the games in progress (within
    /// ``TDLearner/stopCheckInterval`` moves); those are reported, truncated.
    ///
    /// - Parameters:
    ///   - plan: when the run stops, how many threads play, and the seed.
    ///   - onGame: called after every game, one call at a time (never
    ///     concurrently), with the result and the total number of games so far; return
    ///     `false` to stop the run early.
    @discardableResult
    public func run(_ plan: TrainingPlan, onGame: @escaping @Sendable (GameResult, Int) -> Bool) -> Int {
        let threads = max(1, plan.threads)
        let seeds = VectorEnvironment.seeds(from: plan.seed &+ UInt64(gamesBefore), count: threads)
        // The learner's stop holds the deadline, so a long game in progress sees it too.
        learner.stop.setDeadline(secondsFromNow: plan.seconds)
        defer { learner.stop.setDeadline(secondsFromNow: nil) }
        let state = Mutex<(started: Int, finished: Int, stop: Bool)>((gamesBefore, gamesBefore, false))
        let learner = self.learner
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var rng = Xoshiro256StarStar(seed: seeds[thread])
            learner.trainGames(
                lanes: max(1, plan.lanes), using: &rng,
                mayStart: {
                    state.withLock { s -> Bool in
                        if s.stop { return false }
                        if let games = plan.games, s.started >= games { return false }
                        if learner.stop.isDue { s.stop = true; return false }
                        s.started += 1
                        return true
                    }
                },
                finished: { result in
                    state.withLock { s in
                        s.finished += 1
                        if !onGame(result, s.finished) { s.stop = true }
                    }
                })
        }
        return state.withLock { $0.finished } - gamesBefore
    }
}
