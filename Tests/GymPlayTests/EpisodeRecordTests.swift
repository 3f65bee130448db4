import Game2048
import GymJSON
import GymPlay
import Testing

struct EpisodeRecordTests {
    /// The config block is RulesOption's table: every rules option, in its order, and it reads back.
    @Test func theConfigBlockListsEveryRulesOptionAndReadsBack() throws {
        let rules = try Rules(
            rows: 3, cols: 5, spawnFourProbability: 0.25, initialTiles: 3, winTile: 256, maxSteps: 40,
            invalidAction: .terminate(penalty: 7))
        let header = EpisodeHeader(seed: 1, rules: rules, targetTile: nil, player: "test", board: Board(rules: rules))
        let config = try #require(try JSONValue.parse(Array(header.jsonLine.utf8))["config"])
        #expect(config.object?.map(\.0) == RulesOption.all.map(\.name))
        var record = EpisodeRecord(header: header)
        record.end = EpisodeEnd(steps: 0, score: 0, outcome: .stopped, isLastEpisode: true)
        #expect(try EpisodeRecord.parse(record.jsonLines).first?.header.rules == rules)
    }

    static let header = EpisodeHeader(
        seed: 42, rules: Rules(), targetTile: 2048, player: "human",
        board: try! Board(rows: 4, cols: 4, exponents: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]))

    @Test func headerAndStepLinesHaveTheDocumentedShape() {
        #expect(
            Self.header.jsonLine == #"{"type":"header","format":"gym2048-episode","version":2,"rules_version":1,"seed":42,"#
                + #""config":{"rows":4,"cols":4,"spawn_four_probability":0.1,"initial_tiles":2,"win_tile":null,"max_steps":null,"#
                + #""invalid_action":"noop","invalid_action_penalty":0},"target_tile":2048,"player":"human","#
                + #""board":[[0,0,0,0],[0,0,1,0],[0,0,0,0],[0,0,1,0]]}"#)
        let step = EpisodeStep(action: .left, reward: 4, spawn: Spawn(cell: 11, exponent: 1), score: 4)
        #expect(step.jsonLine(number: 3) == #"{"type":"step","step":3,"action":"left","reward":4,"spawn":{"cell":11,"value":2},"score":4}"#)
        let noSpawn = EpisodeStep(action: .up, reward: 0, spawn: nil, score: 4)
        #expect(noSpawn.jsonLine(number: 4).contains(#""spawn":null"#))
        let end = EpisodeEnd(steps: 4, score: 4, outcome: .gameOver, isLastEpisode: true)
        #expect(end.jsonLine == #"{"type":"end","steps":4,"score":4,"outcome":"game_over","last_episode":true}"#)
    }

    @Test func playedEpisodesRoundTripThroughText() throws {
        let game = PlayedGame(rows: 3, cols: 5, seed: UInt64.max, moves: 200, restartEvery: 70)
        #expect(game.records.count >= 3)
        let text = game.records.map(\.jsonLines).joined()
        #expect(try EpisodeRecord.parse(text) == game.records)
    }

    @Test func unusualRulesRoundTrip() throws {
        let rules = try Rules(
            rows: 2, cols: 8, spawnFourProbability: 0.25, initialTiles: 3, winTile: 64, maxSteps: 9,
            invalidAction: .terminate(penalty: 7))
        let header = EpisodeHeader(seed: 0, rules: rules, targetTile: nil, player: "greedy", board: Board(rules: rules))
        let record = EpisodeRecord(header: header, end: EpisodeEnd(steps: 0, score: 0, outcome: .stopped, isLastEpisode: true))
        #expect(try EpisodeRecord.parse(record.jsonLines) == [record])
    }

    /// A version 1 record (no end line), as `g2048 play` wrote before: it still loads, and says so.
    static let version1 =
        #"{"type":"header","format":"gym2048-episode","version":1,"rules_version":1,"seed":5,"config":{"rows":2,"cols":2},"#
        + #""target_tile":null,"player":"script","board":[[1,0],[0,1]]}"# + "\n"
        + #"{"type":"step","step":1,"action":3,"reward":4,"spawn":{"cell":1,"value":4},"score":4}"# + "\n\n"

    @Test func version1RecordsStillLoadAndActionsMayBeIndices() throws {
        let records = try EpisodeRecord.parse(Self.version1)
        #expect(records[0].isVersion1 && records[0].end == nil)
        #expect(records[0].header.rules == (try Rules(rows: 2, cols: 2)))
        #expect(records[0].steps == [EpisodeStep(action: .left, reward: 4, spawn: Spawn(cell: 1, exponent: 2), score: 4)])
    }

    /// A CRLF record was once called truncated.
    @Test func crlfLineEndingsAreAccepted() throws {
        let game = PlayedGame(rows: 3, cols: 3, seed: 9, moves: 60, restartEvery: 25)
        let text = game.records.map(\.jsonLines).joined()
        #expect(try EpisodeRecord.parse(text.replacingOccurrences("\n", "\r\n")) == game.records)
        #expect(try EpisodeRecord.parse(Self.version1.replacingOccurrences("\n", "\r\n")).count == 1)
    }

    /// A record cut at a line boundary once replayed as "verified": every cut at a line boundary is now an error.
    @Test func everyCutAtALineBoundaryIsReported() throws {
        let game = PlayedGame(rows: 3, cols: 3, seed: 4, moves: 60, restartEvery: 25)
        let lines = game.records.map(\.jsonLines).joined().split(separator: "\n").map { String($0) + "\n" }
        #expect(game.records.count >= 3)
        for count in 1..<lines.count {
            #expect(throws: RecordError.self, "cut after line \(count)") { try EpisodeRecord.parse(lines.prefix(count).joined()) }
            do { _ = try EpisodeRecord.parse(lines.prefix(count).joined()) } catch {
                #expect(error.reason.hasPrefix("truncated record: "), "\(error)")
            }
        }
        #expect(try EpisodeRecord.parse(lines.joined()) == game.records)
    }

    static let validHeader = Self.header.jsonLine
    static let validStep = #"{"type":"step","step":1,"action":"left","reward":0,"spawn":{"cell":3,"value":2},"score":0}"#
    static func validEnd(steps: Int = 0, score: Int = 0, last: Bool = true) -> String {
        EpisodeEnd(steps: steps, score: Int64(score), outcome: .stopped, isLastEpisode: last).jsonLine
    }

    static let malformed: [(text: String, message: String)] = [
        ("", "the record is empty: no header line"),
        ("\n\n", "the record is empty: no header line"),
        (validStep + "\n", #"line 1: a step before any header line (a record starts with "type":"header")"#),
        ("{\"type\":\"header\"", #"line 1: truncated record: the last line is incomplete (unterminated object at byte 16)"#),
        (validHeader + "\n" + #"{"type":"step","step":1,"act"#, #"line 2: truncated record: the last line is incomplete (unterminated string at byte 28)"#),
        (validHeader + "\nnonsense\n" + validStep + "\n", "line 2: not valid JSON (invalid literal, expected 'null' at byte 1)"),
        (validHeader + "\n[1,2]\n", "line 2: expected a JSON object, got an array"),
        (validHeader + "\n" + #"{"type":"move"}"# + "\n", #"line 2: "type" must be "header", "step" or "end", got "move""#),
        (validHeader + "\n" + validStep.replacingOccurrences("\"step\":1", "\"step\":2") + "\n", "line 2: step 2 where step 1 was expected"),
        (validHeader + "\n" + validStep.replacingOccurrences("\"reward\":0", "\"reward\":\"0\"") + "\n", #"line 2: "reward" must be an integer, got "0""#),
        (validHeader + "\n" + validStep.replacingOccurrences("\"reward\":0", "\"reward\":0.5") + "\n", #"line 2: "reward" must be an integer, got 0.5"#),
        (
            validHeader + "\n" + validStep.replacingOccurrences("\"action\":\"left\"", "\"action\":\"north\"") + "\n",
            #"line 2: "action" must be up, right, down, left or 0..3, got "north""#
        ),
        (
            validHeader + "\n" + validStep.replacingOccurrences("\"cell\":3", "\"cell\":16") + "\n",
            #"line 2: "spawn.cell" must be an integer from 0 to 15, got 16"#
        ),
        (validHeader + "\n" + validStep.replacingOccurrences("\"value\":2", "\"value\":3") + "\n", #"line 2: "spawn.value" must be 2 or 4, got 3"#),
        (validHeader + "\n" + validStep.replacingOccurrences(",\"score\":0", "") + "\n", #"line 2: missing "score""#),
        (validHeader.replacingOccurrences("\"rows\":4", "\"rows\":99"), #"line 1: "config.rows" must be an integer from 2 to 8, got 99"#),
        // Read within its declared range, as make reads it: the rules check a penalty only under "terminate".
        (
            validHeader.replacingOccurrences("\"invalid_action_penalty\":0", "\"invalid_action_penalty\":-1"),
            #"line 1: "config.invalid_action_penalty" must be an integer from 0 to 9223372036854775807, got -1"#
        ),
        (
            validHeader.replacingOccurrences("\"spawn_four_probability\":0.1", "\"spawn_four_probability\":2"),
            #"line 1: "config.spawn_four_probability" must be a number from 0.0 to 1.0, got 2.0"#
        ),
        (validHeader.replacingOccurrences("\"noop\"", "\"explode\""), #"line 1: "config.invalid_action" must be noop, terminate or reject, got "explode""#),
        (validHeader.replacingOccurrences("\"version\":2", "\"version\":3"), "line 1: record format version 3 is newer than this g2048 reads (2)"),
        // A misspelt member was once ignored (the policy silently became noop); now it is named.
        (
            validHeader.replacingOccurrences("\"invalid_action\"", "\"invaaid_action\""),
            #"line 1: unknown member "config.invaaid_action" (expected one of cols, initial_tiles, invalid_action, invalid_action_penalty, max_steps, rows, spawn_four_probability, win_tile)"#
        ),
        (
            validHeader.replacingOccurrences("\"player\"", "\"comment\":1,\"player\""),
            #"line 1: unknown member "comment" (expected one of board, config, format, game, player, rules_version, seed, target_tile, type, version)"#
        ),
        (
            validHeader + "\n" + validStep.replacingOccurrences("\"value\":2", "\"value\":2,\"x\":0") + "\n",
            #"line 2: unknown member "spawn.x" (expected one of cell, value)"#
        ),
        (validHeader.replacingOccurrences("\"seed\":42", "\"seed\":42,\"seed\":43"), #"line 1: "seed" appears twice"#),
        (validHeader + "\n" + validEnd(steps: 1) + "\n", "line 2: the end line counts 1 steps, but the episode has 0"),
        (validHeader + "\n" + validEnd(score: 8) + "\n", "line 2: the end line's score 8 differs from the score after the last step, 0"),
        (validHeader + "\n" + validEnd().replacingOccurrences("stopped", "won") + "\n", #"line 2: "outcome" must be game_over or stopped, got "won""#),
        (validHeader + "\n" + validEnd().replacingOccurrences("true", "1") + "\n", "line 2: \"last_episode\" must be true or false, got 1"),
        (validHeader + "\n" + validEnd() + "\n" + validStep + "\n", "line 3: a step after the end line of episode 1"),
        (validHeader + "\n" + validEnd() + "\n" + validEnd() + "\n", "line 3: a second end line for episode 1"),
        (validHeader + "\n" + validEnd() + "\n" + validHeader + "\n", "line 3: a header after the end line of episode 1, which says it is the last"),
        (validHeader + "\n" + validHeader + "\n", "line 2: a header where the end line of episode 1 was expected"),
        (validEnd() + "\n", "line 1: an end line before any header line"),
        (
            validHeader + "\n" + validEnd(last: false) + "\n",
            "line 2: truncated record: the end line of episode 1 announces another episode, but the file ends there"
        ),
        (
            version1 + validEnd(steps: 1, score: 4) + "\n",
            #"line 4: an end line in a version 1 record (version 1 has none; its header says "version":1)"#
        ),
        (validHeader.replacingOccurrences("gym2048-episode", "other"), #"line 1: "format" must be "gym2048-episode", got "other""#),
        (validHeader.replacingOccurrences("\"seed\":42", "\"seed\":-1"), #"line 1: "seed" must be an integer from 0 to 18446744073709551615, got -1"#),
        (validHeader.replacingOccurrences("[0,0,1,0]]", "[0,0,1]]"), #"line 1: "board" must be 4 rows of 4 exponents"#),
        (validHeader.replacingOccurrences("[0,0,1,0]]", "[0,0,1,51]]"), #"line 1: "board" cells must be exponents from 0 to 50, got 51"#),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedRecordsGiveOneLineErrors(index: Int) {
        let (text, message) = Self.malformed[index]
        #expect(throws: RecordError.self) { try EpisodeRecord.parse(text) }
        do { _ = try EpisodeRecord.parse(text) } catch {
            #expect(error.description == message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func everyTruncationOfARecordIsAnErrorOrAShorterRecord() throws {
        let game = PlayedGame(moves: 30)
        let text = game.records[0].jsonLines
        let bytes = Array(text.utf8)
        for cut in 0..<bytes.count {
            let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
            do {
                let records = try EpisodeRecord.parse(prefix)
                #expect(records[0].steps == Array(game.records[0].steps.prefix(records[0].steps.count)))
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}

extension String {
    /// The string with every `target` replaced (without Foundation).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
