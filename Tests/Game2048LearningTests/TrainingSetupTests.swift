import Game2048
import Game2048Solver
import GymSystem
import TestSupport
import Testing

@testable import Game2048Network
@testable import Game2048Training

/// What a training run decides before its first game, and what it refuses, from a request: the library's side of
/// `g2048 train`, called directly.
struct TrainingSetupTests {
    /// A request on `rows` × `cols` with a small network (one 4-tuple), written to `out`.
    static func request(rows: Int, cols: Int, rules: Rules? = nil, out: String = "w.bin") throws -> TrainingRequest {
        var request = try TrainingRequest(rules: rules ?? Rules(rows: rows, cols: cols), out: out)
        request.patterns = try TuplePattern.parse("0,1,2,3", rows: rows, cols: cols, valueCount: 16)
        return request
    }

    @Test func lanesAreTwoWhereMovesPrefetchUnlessAsked() throws {
        #expect(try TrainingSetup(Self.request(rows: 4, cols: 4)).lanes == 2)
        #expect(try TrainingSetup(Self.request(rows: 2, cols: 4)).lanes == 1)
        var asked = try Self.request(rows: 4, cols: 4)
        asked.lanes = 3
        #expect(try TrainingSetup(asked).lanes == 3)
    }

    /// A sweep unless the table's seconds are fewer than a sweep of the board takes; the setup says why not.
    @Test func theTableSweepsUnlessTheClockIsTooShort() throws {
        var request = try Self.request(rows: 2, cols: 4)
        request.games = 1_000
        let bySweep = try TrainingSetup(request)
        #expect(bySweep.tableLearning == .sweep && bySweep.sweeps && bySweep.gamesInsteadOfSweep == nil)
        (request.games, request.seconds) = (nil, 1)
        let byGames = try TrainingSetup(request)
        #expect(byGames.tableLearning == .games && !byGames.sweeps)
        let sweepSeconds = formatFixed(AfterstateSweep.expectedSeconds(rules: request.rules), digits: 0)
        #expect(
            byGames.gamesInsteadOfSweep
                == "a sweep of 2x4 takes about \(sweepSeconds) s, more than the table's 0.8 s: --table-learning sweep asks for it")
        // Asked for, either method is kept, and nothing is explained.
        request.tableLearning = .sweep
        let asked = try TrainingSetup(request)
        #expect(asked.tableLearning == .sweep && asked.gamesInsteadOfSweep == nil)
        // A sweep fills the table: the weights file's size counts every afterstate it will hold.
        #expect(asked.weightsFileBytes > byGames.weightsFileBytes)
    }

    @Test func aTableLearningMethodWithoutATableIsRefused() throws {
        var request = try Self.request(rows: 4, cols: 4)
        request.tableLearning = .games
        #expect(throws: TrainingError.settings("--table-learning games: this 4x4 run learns no afterstate table (a table is for boards of up to 9 cells)")) {
            try TrainingSetup(request)
        }
        var small = try Self.request(rows: 2, cols: 3)
        (small.tableLearning, small.tableShare) = (.sweep, 0)
        #expect(throws: TrainingError.settings("--table-learning sweep: this 2x3 run learns no afterstate table (--table-share 0)")) {
            try TrainingSetup(small)
        }
    }

    @Test func aSolutionOfOtherRulesIsRefused() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s.bin")
        let solution = try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2))
        try solution.save(to: path)
        var request = try Self.request(rows: 2, cols: 2, rules: Rules(rows: 2, cols: 2, spawnFourProbability: 0.25))
        request.solution = path
        #expect(
            throws: TrainingError.settings(
                "--solution \(path) solves 2x2 for \(solution.objective.summary) under other rules than this run's 2x2 games; solve the board with the same rules flags"
            )
        ) { try TrainingSetup(request) }
        var same = try Self.request(rows: 2, cols: 2)
        same.solution = path
        #expect(try TrainingSetup(same).optimalScore == solution.expectedScore)
    }

    /// A learner's memory is refused before the first game, naming what needs it: a resumed file's learner is
    /// checked once the file says how many weights it has.
    @Test func memoryThatCannotBeHadIsRefused() throws {
        let bytes = 1 << 62
        let shortfall = try #require(MemoryShortfall.of(holding: bytes, threads: 2))
        #expect(
            throws: TrainingError.failure("the learner of w.bin needs \(byteSize(bytes)) of memory, and \(shortfall); nothing was trained")
        ) { try TrainingSetup.checkMemory(bytes, for: "the learner of w.bin", threads: 2) }
        #expect(throws: Never.self) { try TrainingSetup.checkMemory(1 << 20, for: "the learner of w.bin", threads: 2) }
    }

    @Test func aResumedFileKeepsWhatItIsMadeOf() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("w.bin")
        let network = NTupleNetwork(rows: 2, cols: 3)
        var metadata = TrainingMetadata(games: 10, moves: 100, seed: 5, alpha: 0.2, initialValue: 0, elapsedSeconds: 1)
        metadata.learning = .tc
        try WeightsFile.save(network, metadata: metadata, to: path)
        var request = try TrainingRequest(rules: Rules(rows: 3, cols: 3), out: path)
        (request.resume, request.size) = (path, (3, 3))
        #expect(
            throws: TrainingError.settings(
                "--rows/--cols say 3x3, but --resume \(path) holds a 2x3 network; leave them out to continue it")
        ) { try TrainingSetup(request) }
        request = try TrainingRequest(rules: Rules(), out: path, alpha: 0.1)
        request.resume = path
        #expect(throws: TrainingError.settings("--alpha is TD's learning rate; --resume \(path) learns by tc, which uses --tc-alpha")) {
            try TrainingSetup(request)
        }
        // What is not asked continues the file's: its counters, seed and method, and its accumulators start again.
        request = try TrainingRequest(rules: Rules(), out: path)
        request.resume = path
        let resumed = try TrainingSetup(request)
        #expect(resumed.rules.rows == 2 && resumed.base.games == 10 && resumed.base.seed == 5 && resumed.base.learning == .tc)
        #expect(resumed.restartsAccumulators && resumed.downgradeSuggestionCeiling == nil)
    }

    @Test func aRateGivenToTemporalCoherenceIsRefused() throws {
        #expect(throws: TrainingError.settings("--alpha is TD's learning rate; --learning tc uses --tc-alpha")) {
            try TrainingRequest(rules: Rules(), out: "w.bin", learning: .tc, alpha: 0.1)
        }
        // Pure TC starts from zero weights; the small boards default to a higher rate and OTD+TC.
        #expect(try TrainingRequest(rules: Rules(), out: "w.bin", learning: .tc).optimism == 0)
        let small = try TrainingRequest(rules: Rules(rows: 3, cols: 3), out: "w.bin")
        #expect(small.alpha == 0.3 && small.optimism == 10_000 && TrainingSetup.learning(of: small) == .otdThenTC)
    }

    @Test func aTableShareIsRefusedWhereNoTableCanLearn() throws {
        var request = try TrainingRequest(rules: Rules(), out: "w.bin")
        request.tableShare = 0.5
        #expect(
            throws: TrainingError.settings(
                "--table-share: an afterstate table is for boards of up to 9 cells (2x4, 3x3 and smaller); a 4x4 network learns alone")
        ) { try request.checkTableShare(rules: request.rules) }
        request.tableShare = 0
        #expect(throws: Never.self) { try request.checkTableShare(rules: request.rules) }
    }

    /// Diverged weights are not saved: the error says what is left instead.
    @Test func divergedWeightsAreNotSaved() throws {
        let folder = TemporaryDirectory()
        var request = try Self.request(rows: 2, cols: 3, out: folder.file("w.bin"))
        request.tableShare = 0
        let outcome = TrainingRun.Outcome(halt: .diverged(game: 7), networkGames: 7, tableFrom: 7, learnedTable: false)
        let setup = try TrainingSetup(request)
        let reason =
            "training diverged at game 7: a value became infinite or NaN, so the learning rate is too large for this network "
            + "(try a smaller --alpha or --tc-alpha); "
        #expect(throws: TrainingError.failure(reason + "nothing was saved")) { try setup.save(after: outcome, counted: { setup.base }) }
        request.checkpointEvery = 5
        #expect(throws: TrainingError.failure(reason + "the last checkpoint (every 5 games) in \(request.out) is kept")) {
            try TrainingSetup(request).save(after: outcome, counted: { setup.base })
        }
        #expect(folder.names(in: ".").isEmpty)
        // Without a halt, the weights are saved with the counters given.
        let saved = try setup.save(after: TrainingRun.Outcome(networkGames: 0, tableFrom: 0, learnedTable: false), counted: { setup.base })
        let loaded = try WeightsFile.load(from: request.out).metadata
        #expect(loaded.games == saved.games && loaded.seed == saved.seed && loaded.learning == saved.learning)
    }
}
