import Game2048
import GymPlay
import Testing

struct EpisodeReplayTests {
    @Test(arguments: [(4, 4, UInt64(42)), (3, 3, 7), (2, 5, 0), (6, 6, UInt64.max)])
    func recordThenReplayReproducesTheSameBoards(rows: Int, cols: Int, seed: UInt64) throws {
        let game = PlayedGame(rows: rows, cols: cols, seed: seed, moves: 400)
        let text = game.records.map(\.jsonLines).joined()
        let parsed = try EpisodeRecord.parse(text)
        let frames = try EpisodeReplay.verify(parsed[0])
        #expect(frames.map(\.board) == game.boards[0])
        #expect(frames.last?.score == game.session.environment?.score)
        #expect(frames.map(\.step) == Array(0...game.records[0].steps.count))
    }

    @Test func everyEpisodeOfARestartedSessionReplays() throws {
        let game = PlayedGame(seed: 10, moves: 120, restartEvery: 40)
        #expect(game.records.map(\.header.seed) == [10, 11, 12])
        for (record, boards) in zip(game.records, game.boards) {
            #expect(try EpisodeReplay.verify(record).map(\.board) == boards)
        }
    }

    static func tampered(_ change: (inout EpisodeRecord) -> Void) -> ReplayMismatch? {
        var record = PlayedGame(seed: 42, moves: 60).records[0]
        change(&record)
        do {
            _ = try EpisodeReplay.verify(record)
            return nil
        } catch {
            return error
        }
    }

    @Test func tamperedRewardIsReportedAtItsStep() throws {
        let tampered = Self.tampered { record in record.steps[9].reward += 2 }
        let mismatch = try #require(tampered)
        #expect(mismatch.step == 10)
        #expect(mismatch.description.hasPrefix("step 10: "))
        #expect(mismatch.description.contains("recorded reward"))
    }

    @Test func tamperedSpawnIsReportedWithBothValues() throws {
        var expected: Spawn? = nil
        let tampered = Self.tampered { record in
            expected = record.steps[4].spawn
            let spawn = record.steps[4].spawn!
            record.steps[4].spawn = Spawn(cell: spawn.cell, exponent: spawn.exponent == 1 ? 2 : 1)
        }
        let mismatch = try #require(tampered)
        let original = try #require(expected)
        let fake = original.exponent == 1 ? 4 : 2
        #expect(
            mismatch.description.hasSuffix(
                "recorded spawn a \(fake) on cell \(original.cell), replay spawns a \(original.value) on cell \(original.cell)"))
    }

    @Test func tamperedActionIsDetected() throws {
        let tampered = Self.tampered { record in
            let board = record.header.board
            // Replace the first action with another legal one that changes what follows.
            let legal = board.legalMoves.directions.filter { $0 != record.steps[0].action }
            record.steps[0].action = legal.first!
        }
        let mismatch = try #require(tampered)
        #expect(mismatch.step >= 1)
    }

    @Test func tamperedSeedOrStartBoardIsReportedAtTheStart() throws {
        let tampered = Self.tampered { record in record.header.seed = 43 }
        let seedMismatch = try #require(tampered)
        #expect(seedMismatch.step == 0)
        #expect(seedMismatch.description.hasPrefix("start: the recorded start board has "))
        #expect(seedMismatch.description.contains("but seed 43 gives"))
    }

    @Test func stepsAfterTheEndAreReported() throws {
        var environment = Environment(rules: try Rules(rows: 2, cols: 2))
        let start = environment.reset(seed: 3)
        var record = EpisodeRecord(header: EpisodeHeader(seed: 3, rules: environment.rules, targetTile: nil, player: "t", board: start.observation))
        while !environment.isOver {
            let action = environment.actionMask.direction(at: 0)
            record.steps.append(EpisodeStep(action: action, step: try environment.step(action)))
        }
        let ended = record.steps.count
        #expect(try EpisodeReplay.verify(record).last?.isOver == true)
        record.steps.append(EpisodeStep(action: .up, reward: 0, spawn: nil, score: record.steps.last?.score ?? 0))
        let mismatch = try #require(throws: ReplayMismatch.self) { try EpisodeReplay.verify(record) }
        #expect(mismatch.description == "step \(ended + 1): the episode ended after step \(ended), but the record goes on to step \(ended + 1)")
    }

    @Test func anotherRulesVersionIsRefused() throws {
        var record = PlayedGame(moves: 3).records[0]
        record.header.rulesVersion = 99
        let mismatch = try #require(throws: ReplayMismatch.self) { try EpisodeReplay.verify(record) }
        #expect(mismatch.description == "start: the record was made with rules version 99; this g2048 plays rules version 1")
    }
}
