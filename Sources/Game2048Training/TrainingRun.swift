import Game2048
import Game2048Network
import Game2048Solver
import GymSystem
import Synchronization

/// One training run of a ``TDLearner``'s network, in the order a ``TrainingSchedule`` sets: the network's games
/// (OTD+TC switching to TC where the schedule says), then the afterstate table's part, from games or by one sweep;
/// with a checkpoint every so many games, and a stop at the first game whose values diverged.
///
///     let run = TrainingRun(learner: learner, schedule: schedule, tableLearning: .sweep, threads: 1, lanes: 2, seed: 1)
///     let outcome = try run.run(TrainingRun.Hooks(metadata: { metadata }))
///
/// The hooks are where the caller reports and saves: the run itself prints nothing and writes only its checkpoints.
public final class TrainingRun: Sendable {
    /// The learner, whose network the run trains and whose stop ends it.
    public let learner: TDLearner
    /// How the run divides its games and seconds.
    public let schedule: TrainingSchedule
    /// How the table's part learns (unused when the schedule gives the table no share).
    public let tableLearning: TableLearning
    /// Threads of the network's games and of a sweep (the table's games are played on one).
    public let threads: Int
    /// Games each thread plays at once (see ``TrainingPlan/lanes``).
    public let lanes: Int
    /// The seed of the games.
    public let seed: UInt64
    /// Where and how often the weights are saved during the run, if they are.
    public let checkpoint: Checkpoint?

    /// A save of the weights every `every` games, to `path`.
    public struct Checkpoint: Sendable, Hashable {
        /// Games between two saves: a save follows every game whose count, earlier runs' included, is a multiple.
        public var every: Int
        /// The weights file.
        public var path: String

        /// Creates a checkpoint.
        public init(every: Int, path: String) {
            (self.every, self.path) = (every, path)
        }
    }

    /// Why a run stopped before its schedule's end, other than the learner's stop.
    public enum Halt: Sendable {
        /// A value became infinite or NaN in this game (the total count): the weights are garbage from there, so
        /// they are neither saved nor trained further.
        case diverged(game: Int)
        /// A checkpoint's save failed; the weights in memory are whole.
        case checkpointFailed(WeightsFileError)
    }

    /// What the caller is told as the run goes, and asked for.
    public struct Hooks {
        /// The metadata a checkpoint saves with the weights (the counters so far).
        public var metadata: @Sendable () -> TrainingMetadata
        /// After every game that did not diverge, with its result and the total count of games; before the switch
        /// to TC and the checkpoint that may follow it. Called one game at a time.
        public var game: @Sendable (_ result: GameResult, _ total: Int) -> Void
        /// OTD+TC switched to TC after this many games in total.
        public var coherenceStarted: @Sendable (_ game: Int) -> Void
        /// The table's part begins with games, from this many games in total, by this learner.
        public var tableGamesStarting: (_ game: Int, _ learner: AfterstateLearner) -> Void
        /// The table's part is about to sweep: the network's weights no longer change from here, so the caller
        /// saves them (an error ends the run, unswept).
        public var sweepStarting: () throws -> Void
        /// The sweep's progress.
        public var sweepProgress: ((OptimalSolver.Progress) -> Void)?

        /// Creates hooks; those not given do nothing.
        public init(
            metadata: @escaping @Sendable () -> TrainingMetadata,
            game: @escaping @Sendable (_ result: GameResult, _ total: Int) -> Void = { _, _ in },
            coherenceStarted: @escaping @Sendable (_ game: Int) -> Void = { _ in },
            tableGamesStarting: @escaping (_ game: Int, _ learner: AfterstateLearner) -> Void = { _, _ in },
            sweepStarting: @escaping () throws -> Void = {},
            sweepProgress: ((OptimalSolver.Progress) -> Void)? = nil
        ) {
            (self.metadata, self.game, self.coherenceStarted) = (metadata, game, coherenceStarted)
            (self.tableGamesStarting, self.sweepStarting) = (tableGamesStarting, sweepStarting)
            self.sweepProgress = sweepProgress
        }
    }

    /// What a run did.
    public struct Outcome: Sendable {
        /// Why it stopped early, if it did (the learner's stop aside).
        public var halt: Halt?
        /// The games the network played in this run.
        public var networkGames: Int
        /// The game count, earlier runs' included, from which the table learned; meaningful when ``learnedTable``.
        public var tableFrom: Int
        /// Whether the table's part began.
        public var learnedTable: Bool
        /// The sweep's outcome, when the table's part swept.
        public var swept: AfterstateSweep.Outcome?
        /// The game count at which OTD+TC switched to TC in this run, if it did.
        public var coherenceStartedAt: Int?
    }

    /// Creates a run of `learner` by `schedule`.
    public init(
        learner: TDLearner, schedule: TrainingSchedule, tableLearning: TableLearning, threads: Int, lanes: Int, seed: UInt64,
        checkpoint: Checkpoint? = nil
    ) {
        (self.learner, self.schedule, self.tableLearning, self.threads) = (learner, schedule, tableLearning, threads)
        (self.lanes, self.seed, self.checkpoint) = (lanes, seed, checkpoint)
    }

    /// Runs the schedule: the network's part, then the table's, unless the run halted or was stopped before it.
    ///
    /// - Throws: what ``Hooks/sweepStarting`` throws.
    public func run(_ hooks: Hooks) throws -> Outcome {
        let learner = self.learner, schedule = self.schedule, checkpoint = self.checkpoint
        let metadata = hooks.metadata, gameHook = hooks.game, coherenceStarted = hooks.coherenceStarted
        let start = SystemClock.monotonicSeconds()
        let switches = learner.method == .otdThenTC
        let halt = Mutex<Halt?>(nil)
        let switchedAt = Mutex<Int?>(nil)
        let learnsTable = Atomic<Bool>(false)
        // A resumed run may start past its switch point.
        if switches && !learner.learnsByCoherence && schedule.coherenceIsDue(game: schedule.gamesBefore, elapsed: { 0 }) {
            learner.startCoherence()
            switchedAt.withLock { $0 = schedule.gamesBefore }
            coherenceStarted(schedule.gamesBefore)
        }
        let onGame = { @Sendable (result: GameResult, total: Int) -> Bool in
            guard !result.diverged else {
                halt.withLock { $0 = $0 ?? .diverged(game: total) }
                return false
            }
            gameHook(result, total)
            if switches && !learner.learnsByCoherence && !learnsTable.load(ordering: .relaxed)
                && schedule.coherenceIsDue(game: total, elapsed: { SystemClock.monotonicSeconds() - start }) && learner.startCoherence()
            {
                switchedAt.withLock { $0 = total }
                coherenceStarted(total)
            }
            if let checkpoint, total % checkpoint.every == 0 {
                do throws(WeightsFileError) {
                    try WeightsFile.save(learner.network, metadata: metadata(), to: checkpoint.path)
                } catch {
                    halt.withLock { $0 = $0 ?? .checkpointFailed(error) }
                    return false
                }
            }
            return true
        }
        var played = 0
        if schedule.learnsNetwork {
            let plan = TrainingPlan(games: schedule.networkGames, seconds: schedule.networkSeconds, threads: threads, lanes: lanes, seed: seed)
            played = TrainingLoop(learner: learner, gamesBefore: schedule.gamesBefore).run(plan, onGame: onGame)
        }
        let tableFrom = schedule.gamesBefore + played
        var swept: AfterstateSweep.Outcome? = nil
        if schedule.learnsTable && halt.withLock({ $0 == nil }) && !learner.stop.isRequested {
            learnsTable.store(true, ordering: .relaxed)
            // What the clock leaves of the run's seconds, read when the part begins.
            var remaining: Double? { schedule.seconds.map { max(0.001, $0 - (SystemClock.monotonicSeconds() - start)) } }
            switch tableLearning {
            case .games:
                let tableLearner = AfterstateLearner(network: learner.network, rules: learner.rules, stop: learner.stop)
                hooks.tableGamesStarting(tableFrom, tableLearner)
                tableLearner.run(TrainingPlan(games: schedule.games, seconds: remaining, seed: seed), gamesBefore: tableFrom, onGame: onGame)
            case .sweep:
                try hooks.sweepStarting()
                swept = AfterstateSweep.run(
                    table: learner.network.afterstates!, rules: learner.rules, threads: threads, seconds: remaining, stop: learner.stop,
                    progress: hooks.sweepProgress)
            }
        }
        return Outcome(
            halt: halt.withLock { $0 }, networkGames: played, tableFrom: tableFrom, learnedTable: learnsTable.load(ordering: .relaxed),
            swept: swept, coherenceStartedAt: switchedAt.withLock { $0 })
    }
}
