import Foundation
import Memorize
import Testing

@testable import g2048

/// `eval` and `play` with `--game memorize`: the game's own flags, reports and messages.
struct MemorizeCommandTests {
    @Test func evalReportsTheMeasuredAndTheExactMoves() throws {
        let result = try G2048Tests.run(["eval", "--game", "memorize", "--rows", "2", "--cols", "3", "--games", "3000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["game"] as? String == "memorize" && report["player"] as? String == "perfect" && report["pairs"] as? Int == 3)
        let exact = try #require(report["exact_moves"] as? Double), mean = try #require(report["mean_moves"] as? Double)
        let error = try #require(report["moves_standard_error"] as? Double)
        #expect(abs(exact - 13.0 / 3) < 1e-9)
        #expect(abs(mean - exact) < 4 * error)
        let again = try G2048Tests.run(["eval", "--game", "memorize", "--rows", "2", "--cols", "3", "--games", "3000", "--json"])
        #expect(again.stdout == result.stdout, "a seed gives the same report")
    }

    @Test func aStepLimitHasNoExactExpectation() throws {
        let result = try G2048Tests.run(["eval", "--game=memorize", "--agent", "random", "--max-steps", "4", "--games", "50", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"exact_moves\":null") && result.stdout.contains("\"finished\":0"))
    }

    @Test(arguments: [
        (["--rows", "3", "--cols", "3"], "--rows and cols: rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
        (["--rows", "0"], "--rows must be an integer from 1 to 64, got 0"),
        (["--mismatch-penalty", "-1"], "--mismatch-penalty must be a number from 0.0 to 1000000.0, got -1.0"),
        (["--max-steps", "x"], "--max-steps must be an integer or off, got 'x'"),
        (["--agent", "optimal"], "--agent must be one of perfect, random or forgetful, got 'optimal'"),
        (["--memory", "2"], "--memory is the forgetful player's; give --agent forgetful"),
        (["--weights", "w.bin"], "unknown option '--weights'"),
    ])
    func badFlagsAreUsageErrors(flags: [String], message: String) throws {
        let result = try G2048Tests.run(["eval", "--game", "memorize"] + flags)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anUnknownGameIsAUsageError() throws {
        let result = try G2048Tests.run(["play", "--game", "chess"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: --game must be one of 2048 or memorize, got 'chess'"))
    }

    /// A pipe plays a game a card a line; a bad line is answered on stderr and play goes on.
    @Test func aPipePlaysCardsAndIsToldWhatIsWrong() throws {
        var env = MemorizeEnvironment(rules: try MemorizeRules(rows: 1, cols: 4), seed: 5)
        env.reset()
        let deck = env.deck
        // Turn card 0, then its partner: a pair at once.
        let partner = deck.partner(of: 0)
        let rest = (1..<4).filter { $0 != partner }
        let input = "0\n\(partner)\nfive\n\(rest[0])\n\(rest[0])\n\(rest[1])\n"
        let result = try G2048Tests.run(
            ["play", "--game", "memorize", "--rows", "1", "--cols", "4", "--seed", "5"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("A pair! 1 of 2."))
        #expect(result.stdout.contains("All 2 pairs matched in 2 moves"))
        #expect(result.stderr.contains("'five' is not a card"))
        #expect(result.stderr.contains("card \(rest[0]) is face up: only face-down cards may be turned"))
    }

    @Test func aWatchedPlayerFinishesItsGame() throws {
        let result = try G2048Tests.run(["play", "--game", "memorize", "--agent", "perfect", "--rows", "2", "--cols", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("All 2 pairs matched in"))
    }

    /// `play --record` writes every deal and card; `replay` verifies it from the seeds and shows the same cards.
    @Test func aRecordedGameReplaysAndATamperedOneDoesNot() throws {
        let scratch = PlayCommandTests.Scratch()
        let record = scratch.file("memorize.jsonl")
        let played = try G2048Tests.run(
            ["play", "--game", "memorize", "--rows", "2", "--cols", "2", "--seed", "8", "--record", record],
            input: "0\n1\nr\n2\n3\n0\n1\n0\n2\nq\n")
        #expect(played.status == 0, "\(played.stderr)")
        let checked = try G2048Tests.run(["replay", "--check", record])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.hasPrefix("episode 1: verified: 2 steps reproduce exactly from seed 8 (memorize 2x2, human, 1 move, "))
        #expect(checked.stdout.contains("\nepisode 2: verified: "))
        #expect(checked.stdout.contains(" exactly from seed 9 (memorize 2x2, human, "), "each deal is the seed plus its number")
        let shown = try G2048Tests.run(["replay", "--delay", "0", record])
        #expect(shown.status == 0 && shown.stdout.contains("g2048 replay · \(record) · episode 2 of 2 · memorize 2x2 · seed 9 · human"))
        // The cards shown by the replay are the ones play showed.
        for line in ["[A]", "[B]"] { #expect(played.stdout.contains(line) == shown.stdout.contains(line)) }

        let text = try String(contentsOfFile: record, encoding: .utf8)
        let tampered = scratch.file("tampered.jsonl")
        try text.replacingOccurrences(of: "\"seed\":9", with: "\"seed\":10").write(toFile: tampered, atomically: true, encoding: .utf8)
        let refused = try G2048Tests.run(["replay", "--check", tampered])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: \(tampered): episode 2, start: the recorded deck is "), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)

        let again = try G2048Tests.run(["play", "--game", "memorize", "--agent", "perfect", "--record", record])
        #expect(again.status == 1 && again.stderr.contains("--record \(record) already exists; add --force to replace it"))
        let forced = try G2048Tests.run(["play", "--game", "memorize", "--agent", "perfect", "--seed", "3", "--record", record, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let watched = try G2048Tests.run(["replay", "--check", record])
        #expect(watched.stdout.hasPrefix("verified: ") && watched.stdout.contains("(memorize 4x4, perfect, ") && watched.stdout.contains("8 of 8 pairs)"))
        let usage = try G2048Tests.run(["play", "--game", "memorize", "--force"])
        #expect(usage.status == 64 && usage.stderr.contains("--force replaces an existing --record file; give --record too"))
    }

    /// A signal ends the record with its end line; a full disk removes the record the run created.
    @Test func aSignalEndsTheRecordAndAFullDiskRemovesIt() throws {
        let scratch = PlayCommandTests.Scratch()
        let record = scratch.file("watched.jsonl")
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = ["play", "--game", "memorize", "--agent", "random", "--rows", "8", "--cols", "8", "--delay", "20", "--record", record]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        usleep(400_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        let last = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("{\"type\":\"end\"") && last.contains("\"outcome\":\"stopped\""), "\(last)")
        #expect(try G2048Tests.run(["replay", "--check", record]).status == 0)

        let folder = PlayCommandTests.Scratch()
        // 512 bytes of file size: the record's first lines are written, a later one is not.
        let cards = (0..<16).map { "\($0)\n" }.joined()
        let full = try OutputFilesTests.runOnAFullDisk(
            ["play", "--game", "memorize", "--record", "r.jsonl"], input: cards, in: folder, blocks: 1)
        #expect(full.status == 1)
        #expect(full.stderr.contains("error: cannot write r.jsonl: File too large"), "\(full.stderr)")
        #expect(!folder.names.contains("r.jsonl"))
    }
}
