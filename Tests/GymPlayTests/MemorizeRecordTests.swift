import Foundation
import Game2048
import GymCore
import GymSystem
import GymGames
import Memorize
import Testing
@testable import GymPlay
import TestSupport

/// Memorize's records, through the one format and replayer of declared games: written as `play` writes them,
/// read back line for line, replayed from their seeds through the declaration; forged, cut and mutated records
/// refused with one precise line; another game's episode refused by name.
struct MemorizeRecordTests {
    static let memorize = GameRegistry.standard.named("memorize")!

    /// The option values of `rules` and `limits`, as `make` takes them.
    static func values(_ rules: MemorizeRules, _ limits: EpisodeLimits = EpisodeLimits()) -> [String: OptionValue] {
        let (settings, limitSettings) = (MemorizeSettings(rules), EpisodeLimits.Settings(limits))
        return Dictionary(
            uniqueKeysWithValues: MemorizeOption.all.map { ($0.name, $0.value(in: settings)) }
                + EpisodeOption.all.map { ($0.name, $0.value(in: limitSettings)) })
    }

    /// Seeded games of random legal cards recorded by `DeclaredPlay`, dealt as `play` deals (the seed plus the
    /// deal's number), each deal stopped after `cards` cards or at its end: the file's bytes, and the records
    /// expected, built from a `MemorizeEnvironment` played alongside.
    static func recorded(
        rules: MemorizeRules, limits: EpisodeLimits = EpisodeLimits(), deals: Int = 3, cards: Int = 40, seed: UInt64 = 11
    ) throws -> (bytes: [UInt8], records: [DeclaredRecord]) {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/memorize.jsonl"
        var play = try DeclaredPlay(game: memorize, values: values(rules, limits), player: "random", recordPath: path)
        let layout = memorize.recordLayout
        var records: [DeclaredRecord] = []
        var environment = MemorizeEnvironment(rules: rules)
        var choices = Xoshiro256StarStar(seed: seed ^ 0xC0DE)
        for deal in 0..<deals {
            play.reset(seed: seed &+ UInt64(deal))
            environment.reset(seed: seed &+ UInt64(deal))
            let deck = RecordValue.array(
                (0..<rules.rows).map { row in .array((0..<rules.cols).map { .integer(Int(environment.deck.contents[row * rules.cols + $0])) }) })
            records.append(
                DeclaredRecord(
                    header: DeclaredHeader(game: memorize, seed: seed &+ UInt64(deal), config: values(rules, limits), player: "random", members: [deck])))
            var last: StepOutcome? = nil
            for card in 0..<cards where !environment.isOver && card < limits.maxSteps ?? .max {
                let legal = environment.actionMask
                let card = legal.map { $0 }[choices.uniform(below: legal.count)]
                last = try play.step(card)
                let step = try environment.step(card)
                records[deal].steps.append(
                    DeclaredStep(
                        layout: layout, action: card, reward: step.reward,
                        members: [.integer(Int(environment.deck.contents[card])), .integer(environment.pairsMatched)]))
            }
            records[deal].end = DeclaredEnd(
                layout: layout, steps: records[deal].steps.count,
                members: [.integer(environment.pairsMatched + environment.mismatches), .integer(environment.pairsMatched)],
                outcome: DeclaredEnd.Outcome(last), isLastEpisode: deal == deals - 1)
        }
        try play.finish()
        return (try SystemIO.readFile(path), records)
    }

    /// Replays every episode of `records`.
    static func replay(_ records: [DeclaredRecord]) throws {
        for record in records {
            var replayer = try DeclaredReplayer(record.header)
            for step in record.steps { _ = try replayer.step(step) }
            if let end = record.end { try replayer.end(end) }
        }
    }

    /// Reads `text` as a record of Memorize.
    static func parse(_ text: String) throws(RecordError) -> [DeclaredRecord] { try DeclaredRecord.parse(text, game: memorize) }

    static let rules = try! MemorizeRules(rows: 2, cols: 3, mismatchPenalty: 0.25)

    @Test func theRecorderWritesWhatTheParserReadsAndEveryEpisodeReplays() throws {
        let cases = [
            (Self.rules, EpisodeLimits(), 40), (try MemorizeRules(rows: 4, cols: 4), EpisodeLimits(maxSteps: 9, invalidAction: .reject), 40),
            (try MemorizeRules(rows: 8, cols: 8), EpisodeLimits(), 7),
        ]
        for (rules, limits, cards) in cases {
            let (bytes, records) = try Self.recorded(rules: rules, limits: limits, cards: cards)
            let parsed = try DeclaredRecord.parse(bytes: bytes)
            #expect(parsed == records)
            #expect(Array(parsed.map(\.jsonLines).joined().utf8) == bytes, "writing what was read gives the same bytes")
            try Self.replay(parsed)
        }
    }

    @Test func theEndLineSaysHowTheGameEnded() throws {
        let finished = try Self.recorded(rules: Self.rules, deals: 1, cards: 1_000).records[0].end
        #expect(finished?.outcome == .finished && finished?.members.last == .integer(3))
        let cut = try Self.recorded(rules: Self.rules, limits: EpisodeLimits(maxSteps: 3), deals: 1).records[0].end
        #expect(cut?.outcome == .truncated && cut?.steps == 3 && cut?.members.first == .integer(1))
        let stopped = try Self.recorded(rules: Self.rules, deals: 1, cards: 2).records[0].end
        #expect(stopped?.outcome == .stopped && stopped?.steps == 2 && stopped?.members.first == .integer(1))
    }

    /// The lines of one finished 2×3 game, to forge.
    static func lines() throws -> [String] {
        let (bytes, _) = try recorded(rules: rules, deals: 1, cards: 1_000)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func replacing(_ lines: [String], line: Int, _ old: String, _ new: String) -> String {
        var lines = lines
        precondition(lines[line].contains(old), "\(old) not in \(lines[line])")
        lines[line] = lines[line].replacingOccurrences(of: old, with: new)
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [
        (0, "\"game\":\"memorize\"", "\"game\":\"chess\"", "line 1: \"game\" must be 2048 or memorize, got \"chess\""),
        (0, "\"game\":\"memorize\"", "\"game\":\"2048\"", "line 1: a 2048 episode in a record of memorize"),
        (0, "\"version\":2", "\"version\":1", "line 1: a memorize record of version 1"),
        (0, "\"version\":2", "\"version\":3", "line 1: record format version 3 is newer than this g2048 reads (2)"),
        (0, "\"rows\":2", "\"rows\":3", "line 1: \"config\": rows and cols: rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
        (0, "\"rows\":2", "\"rows\":2.0", "line 1: \"config.rows\" must be an integer, got 2.0"),
        (0, "\"rows\":2,", "", "line 1: missing \"config.rows\""),
        (0, "\"reveal_seen\":false", "\"reveal_seen\":\"no\"", "line 1: \"config.reveal_seen\" must be true or false, got \"no\""),
        (0, "\"mismatch_penalty\":0.25", "\"mismatch_penalty\":-1", "line 1: \"config.mismatch_penalty\" must be a number from"),
        (0, "\"reveal_seen\"", "\"colour\"", "line 1: unknown member \"config.colour\""),
        (0, "\"seed\":11", "\"seed\":-1", "line 1: \"seed\" must be an integer from 0 to 18446744073709551615, got -1"),
        (1, "\"step\":1", "\"step\":2", "line 2: step 2 where step 1 was expected"),
        (1, "\"card\":", "\"cards\":", "line 2: unknown member \"cards\""),
    ])
    func forgedLinesAreRefusedByName(line: Int, old: String, new: String, message: String) throws {
        let text = Self.replacing(try Self.lines(), line: line, old, new)
        let error = try #require(throws: RecordError.self) { try Self.parse(text) }
        #expect(error.description.hasPrefix(message), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    /// A forged deck, a step's pairs or content, an end line's pairs or outcome, a step after the end: read, then
    /// refused by the replay, which checks every value against the game's.
    @Test func forgedValuesAreRefusedByTheReplay() throws {
        let lines = try Self.lines()
        let deck = lines[0].components(separatedBy: "\"deck\":")[1]
        for forged in ["[[0,0,0],[1,1,2]]}", "[[0,0,1],[1,2,7]]}", "[[0,0,1],[1,2]]}"] {
            let text = ([lines[0].replacingOccurrences(of: deck, with: forged)] + lines.dropFirst()).joined(separator: "\n") + "\n"
            let error = try #require(throws: ReplayMismatch.self) { try Self.replay(try Self.parse(text)) }
            #expect(error.description.hasPrefix("start: the recorded deck is \(forged.dropLast()), but seed 11 gives "), "\(error)")
        }
        let last = lines.count - 1
        for (line, old, new, message) in [
            (1, "\"pairs\":0", "\"pairs\":1", "step 1: card "),
            (last, "\"outcome\":\"finished\"", "\"outcome\":\"stopped\"", "the record says the game was stopped, but the replay is finished"),
            (last, "\"pairs\":3", "\"pairs\":2", "the end line's pairs is 2, but the replay has 3"),
        ] {
            let error = try #require(throws: ReplayMismatch.self) { try Self.replay(try Self.parse(Self.replacing(lines, line: line, old, new))) }
            #expect(error.description.contains(message), "\(error)")
        }
        // A step after the last pair, numbered in sequence.
        var extra = lines
        let stepNumber = lines.count - 1
        extra.insert("{\"type\":\"step\",\"step\":\(stepNumber),\"card\":0,\"content\":0,\"reward\":0,\"pairs\":3}", at: last)
        extra[last + 1] = extra[last + 1].replacingOccurrences(of: "\"steps\":\(stepNumber - 1)", with: "\"steps\":\(stepNumber)")
        let error = try #require(throws: ReplayMismatch.self) { try Self.replay(try Self.parse(extra.joined(separator: "\n") + "\n")) }
        #expect(error == .pastTheEnd(step: stepNumber))
    }

    /// A record written before every game had an invalid-action policy lacks it: it reads as `reject`, how
    /// those games refused a card, and replays; a record without `max_steps` (which they always wrote) is cut.
    @Test func recordsWrittenBeforeThePoliciesReadAndReplay() throws {
        let lines = try Self.lines()
        let earlier = Self.replacing(lines, line: 0, ",\"invalid_action\":\"noop\",\"invalid_action_penalty\":0", "")
        let records = try Self.parse(earlier)
        #expect(records[0].header.values["invalid_action"] == .string("reject") && records[0].header.values["invalid_action_penalty"] == .integer(0))
        try Self.replay(records)
        let cut = Self.replacing(lines, line: 0, "\"max_steps\":null,", "")
        let error = try #require(throws: RecordError.self) { try Self.parse(cut) }
        #expect(error.description == "line 1: missing \"config.max_steps\"")
    }

    @Test func endLinesAreChecked() throws {
        let lines = try Self.lines()
        let error = try #require(throws: RecordError.self) {
            try Self.parse(Self.replacing(lines, line: lines.count - 1, "\"outcome\":\"finished\"", "\"outcome\":\"won\""))
        }
        #expect(error.description.contains("\"outcome\" must be finished, truncated or stopped, got \"won\""), "\(error)")
    }

    @Test func aReplayFindsTheFirstStepThatDiffers() throws {
        let (_, records) = try Self.recorded(rules: Self.rules, deals: 1, cards: 1_000)
        let record = records[0]
        func mismatch(_ edit: (inout DeclaredRecord) -> Void) throws -> String {
            var forged = record
            edit(&forged)
            let error = try #require(throws: ReplayMismatch.self) {
                try Self.replay([forged])
            }
            return error.description
        }
        #expect(try mismatch { $0.header.seed += 1 }.hasPrefix("start: the recorded deck is "))
        guard case .integer(let content) = record.steps[2].members[0] else { Issue.record("no content"); return }
        #expect(
            try mismatch { $0.steps[2].members[0] = .integer((content + 1) % 3) }.hasPrefix("step 3: card \(record.steps[2].action): recorded content "))
        #expect(try mismatch { $0.steps[1].reward = 7 }.hasPrefix("step 2: card \(record.steps[1].action): recorded reward 7.0, replay gives "))
        // The second card of a move turned again: face up, refused.
        // Under noop (the default) it changes nothing and earns 0; under reject, the rules refuse it.
        let turnedAgain = try mismatch { $0.steps[1].action = $0.steps[0].action }
        #expect(turnedAgain.hasPrefix("step 2: card \(record.steps[0].action): recorded reward ") && turnedAgain.hasSuffix("replay gives 0.0"))
        var refused = try Self.recorded(rules: Self.rules, limits: EpisodeLimits(invalidAction: .reject), deals: 1, cards: 1_000).records[0]
        refused.steps[1].action = refused.steps[0].action
        let error = try #require(throws: ReplayMismatch.self) { try Self.replay([refused]) }
        #expect(error.description.contains("is face up: only face-down cards may be turned, and the rules refuse it"))
        #expect(try mismatch { $0.end!.outcome = .stopped } == "step \(record.steps.count): the record says the game was stopped, but the replay is finished")
    }

    @Test func oneGamePerRecord() throws {
        let memorize = String(decoding: try Self.recorded(rules: Self.rules, deals: 1).bytes, as: UTF8.self)
        let game2048 = PlayedGame(rows: 2, cols: 2, seed: 3, moves: 5).records.map(\.jsonLines).joined()
        let error = try #require(throws: RecordError.self) { try EpisodeRecord.parse(game2048.replacingOccurrences(of: "true}", with: "false}") + memorize) }
        #expect(error.description.contains("a memorize episode in a record of 2048 (\"game\" is \"memorize\"): a record holds one game"))
        let temporary = TemporaryDirectory()
        for (text, game) in [(memorize, "memorize"), (game2048, "2048"), ("\n\n" + memorize, "memorize"), ("not json\n", nil)] {
            let path = temporary.path + "/record.jsonl"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(GameRegistry.standard.gameOfRecord(at: path)?.name == game)
        }
    }

    @Test func everyCutAtALineBoundaryIsAnError() throws {
        let (bytes, records) = try Self.recorded(rules: Self.rules)
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") && offset < bytes.count - 1 {
            #expect(throws: RecordError.self) { try DeclaredRecord.parse(bytes: Array(bytes[...offset])) }
        }
        #expect(try DeclaredRecord.parse(bytes: bytes) == records)
    }

    /// The seeded file mutations of 2048's records (``FileMutationTests``), on Memorize records: each mutant is
    /// refused in one line, or its episodes replay exactly and are ones that were played.
    @Test func seededMutationsGiveAPreciseErrorOrAVerifiedReplay() throws {
        let (bytes, records) = try Self.recorded(rules: Self.rules, deals: 3, cards: 14)
        var rng = Xoshiro256StarStar(seed: 30)
        for index in 0..<FileMutationTests.count {
            let mutation = FileMutationTests.Mutation.allCases[index % FileMutationTests.Mutation.allCases.count]
            let mutant = FileMutationTests.mutate(bytes, mutation, rng: &rng)
            let label = "mutation \(index) (\(mutation))"
            let parsed: [DeclaredRecord]
            do {
                parsed = try DeclaredRecord.parse(bytes: mutant)
            } catch {
                #expect(!error.reason.isEmpty && !error.description.contains("\n") && !error.description.contains("\r"), "\(label): \(error)")
                continue
            }
            if mutation == .forgeMember { Issue.record("\(label): a forged member was read") }
            for record in parsed {
                do {
                    try Self.replay([record])
                    #expect(records.contains { $0.header.seed == record.header.seed && $0.steps == record.steps }, "\(label)")
                } catch {
                    #expect(!"\(error)".isEmpty && !"\(error)".contains("\n"), "\(label): \(error)")
                }
            }
        }
    }
}
