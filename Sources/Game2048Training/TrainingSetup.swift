import Game2048
import Game2048Network
import Game2048Solver
import GymSystem

/// A training run, set up: the network to train (a new one, or the `--resume` file's), its learner, how the run
/// divides its games and seconds, and how its afterstate table learns, all decided and checked before the first
/// game from a ``TrainingRequest``.
///
///     let setup = try TrainingSetup(request)      // reads the files, refuses what cannot run
///     let outcome = try setup.run(hooks, networkSaved: {})
///     let metadata = try setup.save(after: outcome, counted: counters)
///
/// Everything a run decides is here, and everything it refuses is refused here, with a ``TrainingError``; a caller
/// only reports what it is told (``run(_:networkSaved:)``'s hooks) and the outputs it owns (a learning curve).
public struct TrainingSetup: Sendable {
    /// What was asked.
    public let request: TrainingRequest
    /// The rules of the run's games: the request's, or the resumed file's.
    public let rules: Rules
    /// The metadata the run starts from: a new network's, or the resumed file's with this run's settings.
    public let base: TrainingMetadata
    /// The learner, whose network the run trains.
    public let learner: TDLearner
    /// Games each thread plays at once: as asked, else 2 where a move prefetches its weights (the packed 4×4
    /// board, the README's figures), 1 elsewhere.
    public let lanes: Int
    /// How the run divides its games and seconds between the network and the afterstate table.
    public let schedule: TrainingSchedule
    /// How the table's part learns (unused when the schedule gives the table no share).
    public let tableLearning: TableLearning
    /// Why the table learns from games though no method was asked for, when it does: the sweep would not fit in
    /// memory, or the table's seconds are fewer than a sweep takes.
    public let gamesInsteadOfSweep: String?
    /// Optimal play's expected score, from the request's solution file, if it has one.
    public let optimalScore: Double?

    /// The network the run trains.
    public var network: NTupleNetwork { learner.network }

    /// Whether the table's part is a sweep.
    public var sweeps: Bool { schedule.learnsTable && tableLearning == .sweep }

    /// Whether TC's accumulators start again from zero: a resumed file does not store them.
    public var restartsAccumulators: Bool { request.resume != nil && base.learning.needsAccumulators }

    /// The tile below which the saved metadata suggests the search's downgrading tile, or `nil` where it suggests
    /// none: the suggestion is measured on 4×4 networks only (see `TileDowngrade.suggestedLimit`). A network whose
    /// later stages read their boards downgraded (`StageBoards.downgraded`) has learned the boards from that tile on
    /// as they are read, and a search that downgraded them first would send them all back to the first stage.
    public var downgradeSuggestionCeiling: UInt8? {
        guard rules.rows == 4 && rules.cols == 4 else { return nil }
        return network.featureDowngradeLimit != 0 ? network.featureDowngradeLimit : TileDowngrade.defaultLimit
    }

    /// The size of the weights file the run writes, known before the first game: a sweep fills the table with
    /// every reachable afterstate.
    public var weightsFileBytes: Int {
        let extraAfterstates = sweeps ? Int(OptimalSolver.estimatedAfterstates(rules: rules)) : 0
        return WeightsFile.fileSize(of: network, metadata: base) + AfterstateTable.fileBytes(holding: extraAfterstates)
    }

    /// Sets up the run `request` asks for: reads its `--resume` and solution files and checks them against it, and
    /// the memory the learner and a sweep take.
    ///
    /// - Throws: ``TrainingError/settings(_:)`` when the request contradicts a file or itself, ``TrainingError/failure(_:)``
    ///   when the memory cannot hold the run; the files' own errors.
    public init(_ request: TrainingRequest) throws {
        self.request = request
        let (network, base, rules) = try Self.start(request)
        (self.base, self.rules) = (base, rules)
        optimalScore = try request.solution.map { path throws -> Double in
            let solution = try Solution.load(from: path)
            guard solution.rules == rules, solution.objective == .score else {
                throw TrainingError.settings(
                    "--solution \(path) solves \(solution.rules.sizeLabel) for \(solution.objective.summary) under other rules than this "
                        + "run's \(rules.sizeLabel) games; solve the board with the same rules flags")
            }
            return solution.expectedScore
        }
        if let resume = request.resume {
            try Self.checkMemory(
                TDLearner.memoryBytes(weights: network.weights.count, method: base.learning), for: "the learner of \(resume)",
                threads: request.threads + 1)
        }
        if let tile = request.restartFrom, !TrainingRequest.isRestartTile(tile) {
            throw TrainingError.settings("--restart-from must be a power of two, got \(tile)")
        }
        lanes = request.lanes ?? (network.readsBitboards ? 2 : 1)
        learner = TDLearner(
            network: network, rules: rules, alpha: Float(base.alpha), schedule: request.schedule, method: base.learning,
            coherenceAlpha: Float(base.coherenceAlpha), coherenceStarted: base.coherenceStarted, restartChance: request.restart,
            restartTile: request.restartFrom ?? TrainingRequest.restartTiles.lowerBound)
        schedule = Self.schedule(request, base: base, network: network, rules: rules)
        (tableLearning, gamesInsteadOfSweep) = try Self.tableLearning(request, schedule: schedule, network: network, rules: rules)
    }

    /// The schedule of a run of `request` from `base`: the network learns first, then the afterstate table over it
    /// (on a small board): each part gets its share of the games to reach, else of this run's seconds. A file with a
    /// table learns only the table.
    static func schedule(_ request: TrainingRequest, base: TrainingMetadata, network: NTupleNetwork, rules: Rules) -> TrainingSchedule {
        TrainingSchedule(
            gamesBefore: base.games, games: request.games, seconds: request.seconds,
            tableShare: TrainingSchedule.tableShare(of: network, asked: request.tableShare, rules: rules), coherenceFrom: base.coherenceFrom)
    }

    /// How `schedule`'s table learns, and why it learns from games when that was not asked for.
    ///
    /// Unless asked, a sweep that the clock would cut before its first value, or that the memory cannot hold,
    /// gives way to the games; asked, a sweep that cannot fit is refused before the first game.
    static func tableLearning(
        _ request: TrainingRequest, schedule: TrainingSchedule, network: NTupleNetwork, rules: Rules
    ) throws(TrainingError) -> (TableLearning, gamesInsteadOfSweep: String?) {
        if let asked = request.tableLearning, !schedule.learnsTable {
            throw .settings(
                "--table-learning \(asked.rawValue): this \(rules.sizeLabel) run learns no afterstate table "
                    + (network.afterstates == nil && !AfterstateTable.fits(rows: rules.rows, cols: rules.cols)
                        ? "(a table is for boards of up to \(AfterstateTable.maxCells) cells)" : "(--table-share 0)"))
        }
        // Every thread the run starts: the trainers', the sweep's and the one that watches them.
        let (method, sweepShortfall) = schedule.tableLearning(asked: request.tableLearning, rules: rules, threads: request.threads + 2)
        if request.tableLearning == .sweep, let sweepShortfall {
            throw .failure("--table-learning sweep: \(sweepShortfall); nothing was trained (--table-learning games needs less)")
        }
        guard schedule.learnsTable && request.tableLearning == nil && method == .games else { return (method, nil) }
        let sweepSeconds = formatFixed(AfterstateSweep.expectedSeconds(rules: rules), digits: 0)
        return (
            method,
            sweepShortfall
                ?? "a sweep of \(rules.sizeLabel) takes about \(sweepSeconds) s, "
                + "more than the table's \(formatFixed(schedule.tableSeconds ?? 0, digits: 1)) s: --table-learning sweep asks for it"
        )
    }

    /// Refuses a run that would allocate `bytes` more than this process may take, for `what`, on `threads` threads
    /// it starts: past its limit the allocation would stop the process without a word.
    public static func checkMemory(_ bytes: Int, for what: String, threads: Int) throws(TrainingError) {
        if let shortfall = MemoryShortfall.of(holding: bytes, threads: threads) {
            throw .failure("\(what) needs \(byteSize(bytes)) of memory, and \(shortfall); nothing was trained")
        }
    }
}
