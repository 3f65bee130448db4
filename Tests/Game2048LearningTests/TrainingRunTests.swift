import Game2048
import Synchronization
import TestSupport
import Testing

@testable import Game2048Network
@testable import Game2048Training

/// A training run's order: the network's games, OTD+TC's switch, checkpoints, the halts, then the table's part.
struct TrainingRunTests {
    /// The games a run's hooks saw, in order, and the switches they were told of.
    final class Record: Sendable {
        let games = Mutex<[Int]>([])
        let switches = Mutex<[Int]>([])
    }

    static func hooks(_ record: Record) -> TrainingRun.Hooks {
        TrainingRun.Hooks(
            metadata: { TrainingMetadata() },
            game: { _, total in record.games.withLock { $0.append(total) } },
            coherenceStarted: { game in record.switches.withLock { $0.append(game) } })
    }

    static func learner(rows: Int = 2, cols: Int = 3, method: LearningMethod = .td, table: Bool = false, initialValue: Float = 0) throws
        -> TDLearner
    {
        let network = NTupleNetwork(
            rows: rows, cols: cols, initialValue: initialValue, afterstates: table ? AfterstateTable(rows: rows, cols: cols) : nil)
        return TDLearner(network: network, rules: try Rules(rows: rows, cols: cols), method: method)
    }

    /// Runs `learner` for `games` in total, on one thread and one lane, seed 1.
    static func run(
        _ learner: TDLearner, gamesBefore: Int = 0, games: Int, tableShare: Double = 0, coherenceFrom: Double = 0,
        tableLearning: TableLearning = .games, checkpoint: TrainingRun.Checkpoint? = nil, hooks: TrainingRun.Hooks
    ) throws -> TrainingRun.Outcome {
        let schedule = TrainingSchedule(gamesBefore: gamesBefore, games: games, seconds: nil, tableShare: tableShare, coherenceFrom: coherenceFrom)
        return try TrainingRun(learner: learner, schedule: schedule, tableLearning: tableLearning, threads: 1, lanes: 1, seed: 1, checkpoint: checkpoint)
            .run(hooks)
    }

    @Test func theNetworkPlaysItsShareThenTheTableLearnsFromGames() throws {
        let learner = try Self.learner(table: true)
        let record = Record()
        var hooks = Self.hooks(record)
        var tableFrom: Int?
        hooks.tableGamesStarting = { game, tableLearner in
            tableFrom = game
            #expect(tableLearner.table === learner.network.afterstates)
        }
        let outcome = try Self.run(learner, games: 200, tableShare: 0.5, hooks: hooks)
        #expect(outcome.halt == nil)
        #expect(outcome.networkGames == 100 && outcome.tableFrom == 100 && tableFrom == 100)
        #expect(outcome.learnedTable && outcome.swept == nil && outcome.coherenceStartedAt == nil)
        #expect(record.games.withLock { $0 } == Array(1...200))
        #expect(learner.network.afterstates!.count > 0)
    }

    @Test func otdThenTCSwitchesOnceAtItsShareOfTheNetworksGames() throws {
        let learner = try Self.learner(method: .otdThenTC)
        let record = Record()
        let outcome = try Self.run(learner, games: 100, coherenceFrom: 0.3, hooks: Self.hooks(record))
        #expect(outcome.coherenceStartedAt == 30 && record.switches.withLock { $0 } == [30])
        #expect(learner.learnsByCoherence)
        #expect(!outcome.learnedTable && outcome.networkGames == 100)
    }

    @Test func aRunResumedPastItsSwitchPointSwitchesBeforeItsFirstGame() throws {
        let learner = try Self.learner(method: .otdThenTC)
        let record = Record()
        let outcome = try Self.run(learner, gamesBefore: 50, games: 60, coherenceFrom: 0.5, hooks: Self.hooks(record))
        #expect(outcome.coherenceStartedAt == 50 && record.switches.withLock { $0 } == [50])
        #expect(record.games.withLock { $0 } == Array(51...60))
    }

    @Test func tdNeverSwitches() throws {
        let learner = try Self.learner(method: .td)
        let record = Record()
        let outcome = try Self.run(learner, games: 40, hooks: Self.hooks(record))
        #expect(outcome.coherenceStartedAt == nil && !learner.learnsByCoherence)
    }

    @Test func checkpointsSaveEveryNGamesOfTheTotalCount() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("w.bin")
        let learner = try Self.learner()
        // The metadata a checkpoint asks for is that of the game just played.
        let last = Mutex(0), saves = Mutex<[Int]>([])
        let hooks = TrainingRun.Hooks(
            metadata: {
                let games = last.withLock { $0 }
                saves.withLock { $0.append(games) }
                return TrainingMetadata(games: games)
            },
            game: { _, total in last.withLock { $0 = total } })
        let outcome = try Self.run(learner, gamesBefore: 10, games: 55, checkpoint: TrainingRun.Checkpoint(every: 20, path: path), hooks: hooks)
        #expect(outcome.halt == nil && outcome.networkGames == 45)
        // Games 20 and 40 of the total count (not 30 and 50 of this run's).
        #expect(saves.withLock { $0 } == [20, 40])
        #expect(try WeightsFile.load(from: path).metadata.games == 40)
    }

    @Test func aFailedCheckpointHaltsTheRunBeforeTheTable() throws {
        let directory = TemporaryDirectory()
        let learner = try Self.learner(table: true)
        let record = Record()
        let outcome = try Self.run(
            learner, games: 100, tableShare: 0.5, checkpoint: TrainingRun.Checkpoint(every: 7, path: directory.file("no-such-folder/w.bin")),
            hooks: Self.hooks(record))
        guard case .checkpointFailed = outcome.halt else {
            Issue.record("expected a failed checkpoint, got \(String(describing: outcome.halt))")
            return
        }
        #expect(outcome.networkGames == 7 && !outcome.learnedTable)
        #expect(record.games.withLock { $0 } == Array(1...7))
    }

    @Test func aDivergedGameHaltsTheRunUnreported() throws {
        let learner = try Self.learner(table: true, initialValue: .nan)
        let record = Record()
        let outcome = try Self.run(learner, games: 100, tableShare: 0.5, hooks: Self.hooks(record))
        guard case .diverged(let game) = outcome.halt else {
            Issue.record("expected a diverged game, got \(String(describing: outcome.halt))")
            return
        }
        #expect(game == 1 && outcome.networkGames == 1 && !outcome.learnedTable)
        #expect(record.games.withLock { $0 }.isEmpty)
    }

    @Test func aSweepFollowsTheSaveItAsksFor() throws {
        let learner = try Self.learner(table: true)
        var events: [String] = []
        var hooks = Self.hooks(Record())
        hooks.sweepStarting = { events.append("save at \(learner.network.afterstates!.count)") }
        hooks.sweepProgress = { _ in if events.last != "progress" { events.append("progress") } }
        let outcome = try Self.run(learner, games: 60, tableShare: 0.5, tableLearning: .sweep, hooks: hooks)
        #expect(events == ["save at 0", "progress"])
        #expect(outcome.networkGames == 30 && outcome.tableFrom == 30 && outcome.learnedTable)
        #expect(outcome.swept?.complete == true)
        #expect(outcome.swept?.afterstates == learner.network.afterstates!.count)
    }

    @Test func aSaveThatFailsBeforeTheSweepEndsTheRunUnswept() throws {
        struct SaveFailed: Error {}
        let learner = try Self.learner(table: true)
        var hooks = Self.hooks(Record())
        hooks.sweepStarting = { throw SaveFailed() }
        #expect(throws: SaveFailed.self) {
            try Self.run(learner, games: 20, tableShare: 0.5, tableLearning: .sweep, hooks: hooks)
        }
        #expect(learner.network.afterstates!.count == 0)
    }

    @Test func aStoppedRunLeavesTheTableUnlearned() throws {
        let learner = try Self.learner(table: true)
        let record = Record()
        var hooks = Self.hooks(record)
        hooks.game = { _, total in
            record.games.withLock { $0.append(total) }
            if total == 10 { learner.stop.request() }
        }
        let outcome = try Self.run(learner, games: 100, tableShare: 0.5, hooks: hooks)
        #expect(outcome.halt == nil && !outcome.learnedTable && outcome.networkGames == 10)
    }
}
