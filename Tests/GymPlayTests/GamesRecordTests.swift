import Game2048
import GymCore
import GymGames
import Memorize
import Testing

@testable import GymPlay

/// Games records: written by replaying seeds and actions, read back exactly, verified by replay, and every kind of
/// forgery refused with its reason.
struct GamesRecordTests {
    static let game = Game2048Game.declaration
    static let small: [String: OptionValue] = ["rows": .integer(2), "cols": .integer(3)]

    /// `count` games of 2048 under `values`, each played to its end by the first legal action in a seeded random
    /// order, from `seeds`.
    static func played(_ game: GameDeclaration, _ values: [String: OptionValue], seeds: [UInt64]) throws -> [(seed: UInt64, actions: [Int])] {
        var instance = try game.make(values, count: 1, autoresetMode: .disabled)
        var results = GameResults(space: instance.space, count: 1)
        var choices = Xoshiro256StarStar(seed: 99)
        return try seeds.map { seed in
            instance.reset(seeds: [seed])
            results.read(instance)
            var actions: [Int] = []
            while true {
                let legal = (0..<instance.space.actionCount).filter { instance.refusal(of: $0, at: 0) == nil }
                let action = legal[Int(choices.next() % UInt64(legal.count))]
                actions.append(action)
                try [Int64(action)].withUnsafeBufferPointer { try instance.step(actions: $0) }
                results.read(instance)
                let outcome = results.outcome(at: 0)
                if outcome.terminated || outcome.truncated { return (seed, actions) }
            }
        }
    }

    static func record(_ games: Int = 5, protocolName: String? = nil) throws -> GamesRecord {
        try GamesRecord(
            game: game, values: small, protocolName: protocolName, player: "random", played: played(game, small, seeds: Array(1...UInt64(games))))
    }

    static func refusal(_ text: String, against evaluation: EvaluationProtocol? = nil) -> String? {
        do {
            _ = try GamesRecord.parse(Array(text.utf8)).verify(against: evaluation)
            return nil
        } catch {
            return error.description
        }
    }

    /// Replaces the first occurrence of `old` in line `line` (1-based) of `text`.
    static func editing(_ text: String, line: Int, _ old: String, _ new: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let range = lines[line - 1].range(of: old)!
        lines[line - 1].replaceSubrange(range, with: new)
        return lines.joined(separator: "\n")
    }

    @Test func aHandMadeGameIsWrittenAsItsReplayGives() throws {
        // 2x3, seed 7: the start and every move's result are what the environment gives; the record's line says
        // them, with the actions as characters.
        var env = Environment(rules: try Rules(rows: 2, cols: 3))
        _ = env.reset(seed: 7)
        var actions: [Int] = []
        while !env.isOver {
            let direction = Direction.allCases.first { env.actionMask.contains($0) }!
            _ = try env.step(direction)
            actions.append(direction.rawValue)
        }
        let record = try GamesRecord(game: Self.game, values: Self.small, protocolName: nil, player: "first legal", played: [(7, actions)])
        let line = record.text.split(separator: "\n")[1]
        #expect(line.contains("\"seed\":7,\"steps\":\(actions.count),\"score\":\(env.score),\"outcome\":\"terminated\""))
        #expect(line.hasSuffix("\"actions\":\"\(actions.map(String.init).joined())\"}"))
        #expect(record.games[0].result.end.map(\.name) == ["score", "max_tile", "steps"])
    }

    @Test func aRecordReadsBackAsWrittenAndVerifies() throws {
        let record = try Self.record(20)
        let read = try GamesRecord.parse(Array(record.text.utf8))
        #expect(read.text == record.text)
        #expect(read.games == record.games)
        let verified = try read.verify()
        #expect(verified.scores == record.games.map(\.result.score))
        #expect(verified.json.contains("\"player\":\"random\",\"games\":20"))
    }

    @Test func memorizeRecordsAreScoredByTheirReturn() throws {
        let values: [String: OptionValue] = ["rows": .integer(2), "cols": .integer(2), "mismatch_penalty": .number(0.5)]
        let record = try GamesRecord(
            game: MemorizeGame.declaration, values: values, protocolName: nil, player: "random",
            played: Self.played(MemorizeGame.declaration, values, seeds: [3, 4, 5]))
        let verified = try GamesRecord.parse(Array(record.text.utf8)).verify()
        for game in record.games {
            let mismatches = try #require(game.result.end.first { $0.name == "mismatches" }).value
            #expect(game.result.score == 2 - 0.5 * Double(mismatches))
        }
        #expect(verified.reachRates.isEmpty)
    }

    @Test func everyForgeryIsRefusedWithItsReason() throws {
        let text = try Self.record(3).text
        let second = text.split(separator: "\n")[2]
        let score = try #require(second.firstMatch(of: /"score":(\d+)/)).1
        let actions = String(try #require(second.firstMatch(of: /"actions":"(\d+)"/)).1)
        let flipped = String(actions.dropLast()) + (actions.last == "0" ? "1" : "0")
        let cases: [(String, String)] = [
            (
                Self.editing(text, line: 3, "\"score\":\(score)", "\"score\":\(Int(score)! + 4)"),
                "game 1 (seed 2): the record says score \(Int(score)! + 4), the replay gives \(score)"
            ),
            (Self.editing(text, line: 3, "\"seed\":2", "\"seed\":9"), "game 1 (seed 9): "),
            (Self.editing(text, line: 3, actions, flipped), "game 1 (seed 2): "),
            (Self.editing(text, line: 1, "\"rows\":2", "\"rows\":3"), "game 0 (seed 1): "),
            (Self.editing(text, line: 1, "\"games\":3", "\"games\":4"), "truncated record: the header announces 4 games, the file holds 3"),
            (Self.editing(text, line: 1, "\"games\":3", "\"games\":2"), "line 4: a line after the 2 games the header announces"),
            // The count as announced (it was once read back from an array's capacity, which may exceed it).
            (Self.editing(text, line: 1, "\"games\":3", "\"games\":10000000"), "truncated record: the header announces 10000000 games, the file holds 3"),
            (String(text.dropLast()), "line 4: truncated record: the last line has no end of line"),
            (String(text.dropLast(9)), "line 4: truncated record: the last line is incomplete"),
            (Self.editing(text, line: 2, "\"index\":0", "\"index\":1"), "line 2: game 1 where game 0 was expected"),
            (Self.editing(text, line: 2, "\"type\":\"game\"", "\"type\":\"game\",\"bonus\":1"), "line 2: unknown member \"bonus\""),
            (Self.editing(text, line: 1, "\"version\":1", "\"version\":2"), "line 1: version 2 is newer than this build reads (1)"),
            (Self.editing(text, line: 1, "\"game\":\"2048\"", "\"game\":\"chess\""), "line 1: unknown game \"chess\""),
            (Self.editing(text, line: 1, "\"player\":\"random\"", "\"player\":\"\""), "line 1: \"player\" must be 1 to 200 characters"),
            (
                Self.editing(text, line: 2, "\"actions\":\"", "\"actions\":\"9"),
                "line 2: \"actions\": the character at offset 0 is not one of the game's 4 actions"
            ),
            (Self.editing(text, line: 2, "\"steps\":", "\"steps\":1"), "line 2: \"actions\" holds"),
            (Self.editing(text, line: 1, "\"protocol\":null", "\"protocol\":\"2048-9x9-v1\""), "unknown protocol \"2048-9x9-v1\""),
            ("", "an empty record"),
            ("{\"type\":\"header\"}\n", "line 1: \"type\" must be \"games\": a games record starts with its header"),
            ("not json\n", "line 1: not valid JSON"),
        ]
        for (forged, reason) in cases {
            let refusal = Self.refusal(forged)
            #expect(refusal?.hasPrefix(reason) == true || refusal?.contains(reason) == true, "\(reason) → \(refusal ?? "verified")")
        }
        #expect(Self.refusal(text) == nil)
    }

    @Test func aProtocolTakesOnlyItsOwnGames() throws {
        let evaluation = try #require(EvaluationProtocol.named("2048-3x3-v1"))
        #expect(evaluation.values["rows"] == .integer(3) && evaluation.games == 1000)
        #expect(evaluation.seeds.prefix(2) == SplitMix64.seeds(from: 2048, count: 2)[...])
        let own = try GamesRecord(
            game: Self.game, values: evaluation.values, protocolName: evaluation.name, player: "random",
            played: Self.played(Self.game, evaluation.values, seeds: evaluation.seeds))
        #expect(Self.refusal(own.text, against: evaluation) == nil)
        let lines = own.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let cut = lines[0].replacingOccurrences(of: "\"games\":1000", with: "\"games\":999") + "\n" + lines[1..<1000].joined(separator: "\n") + "\n"
        #expect(Self.refusal(cut, against: evaluation) == "the record holds 999 games; 2048-3x3-v1 has 1000")
        let unnamed = own.text.replacingOccurrences(of: "\"protocol\":\"2048-3x3-v1\"", with: "\"protocol\":null")
        #expect(Self.refusal(unnamed, against: evaluation) == "the record names no protocol: only games played under 2048-3x3-v1 are taken")
        #expect(Self.refusal(unnamed) == nil)
        let other = try #require(EvaluationProtocol.named("2048-4x4-v1"))
        #expect(Self.refusal(own.text, against: other) == "the record was played under 2048-3x3-v1, not 2048-4x4-v1")
        let renamed = own.text.replacingOccurrences(of: "\"protocol\":\"2048-3x3-v1\"", with: "\"protocol\":\"2048-4x4-v1\"")
        #expect(Self.refusal(renamed) == "the config is not 2048-4x4-v1's: rows is 3, the protocol's is 4")
        let fours = own.text.replacingOccurrences(of: "\"spawn_four_probability\":0.1", with: "\"spawn_four_probability\":0.2")
        #expect(Self.refusal(fours) == "the config is not 2048-3x3-v1's: spawn_four_probability is 0.2, the protocol's is 0.1")
        // Other games of the protocol's rules: the seeds are checked game by game.
        let shifted = try GamesRecord(
            game: Self.game, values: evaluation.values, protocolName: evaluation.name, player: "random",
            played: Self.played(Self.game, evaluation.values, seeds: [7] + evaluation.seeds.dropFirst()))
        #expect(Self.refusal(shifted.text) == "game 0 (seed 7): the seed is not the protocol's (2048-3x3-v1's game 0 has seed \(evaluation.seeds[0]))")
    }

    @Test func aGameMustBePlayedToItsEndAndNoFurther() throws {
        let games = try Self.played(Self.game, Self.small, seeds: [5])
        var short = games[0]
        short.actions.removeLast()
        #expect(throws: GamesRecordError.self) { try GamesRecord(game: Self.game, values: Self.small, protocolName: nil, player: "p", played: [short]) }
        var long = games[0]
        long.actions.append(0)
        do {
            _ = try GamesRecord(game: Self.game, values: Self.small, protocolName: nil, player: "p", played: [long])
            Issue.record("a record with an action after the end was written")
        } catch {
            #expect(error.description.hasPrefix("game 0 (seed 5): the episode ended after step \(long.actions.count - 1)"))
        }
    }

    /// Seeded mutations of a valid record (a byte changed, removed or repeated) are read without a crash: refused
    /// with a reason, or, when the change still describes games truly (a space, another player name), verified
    /// with claims that a record written afresh from its seeds and actions repeats.
    @Test func mutatedRecordsAreRefusedOrMeanTheSame() throws {
        let record = try Self.record(4)
        let bytes = Array(record.text.utf8)
        var random = SplitMix64(seed: 2026)
        var refused = 0
        for _ in 0..<400 {
            var mutated = bytes
            let at = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 3 {
            case 0: mutated[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: mutated.remove(at: at)
            default: mutated.insert(mutated[at], at: at)
            }
            do {
                let read = try GamesRecord.parse(mutated).verify().record
                let rewritten = try GamesRecord(
                    game: read.game, values: read.values, protocolName: read.protocolName, player: read.player,
                    played: read.games.map { ($0.seed, $0.actions) })
                #expect(rewritten.games == read.games, "a verified record claims what its games give")
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(refused > 300, "most mutations break a record")
    }
}
