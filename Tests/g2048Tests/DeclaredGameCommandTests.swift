import Foundation
import GymCore
import GymGames
import GymSystem
import TestGames
import TestSupport
import Testing

@testable import g2048

/// A game that exists only in the tests, added to the registry with one line, passes the generic commands:
/// `eval` with the random legal player, `play --record` and `replay`, `bench`, and `--help` listing its
/// flags from its option table. Nothing in the command line names it.
struct DeclaredGameCommandTests {
    static let registry = GameRegistry.standard.adding(GuessTheNumber.declaration)

    /// Runs the tool in this process over `registry`, its standard output and error written to files.
    static func run(_ arguments: [String], registry: GameRegistry = registry) throws -> G2048Tests.Result {
        let folder = TemporaryDirectory()
        let (outPath, errorPath) = (folder.file("out"), folder.file("err"))
        let (out, error) = (try SystemIO.createFile(outPath), try SystemIO.createFile(errorPath))
        let status = Console.$outputDescriptor.withValue(out) {
            Console.$errorDescriptor.withValue(error) { G2048.run(arguments, registry: registry) }
        }
        SystemIO.closeFile(out)
        SystemIO.closeFile(error)
        return G2048Tests.Result(
            status: status, stdout: String(decoding: try SystemIO.readFile(outPath), as: UTF8.self),
            stderr: String(decoding: try SystemIO.readFile(errorPath), as: UTF8.self))
    }

    @Test func evalPlaysTheGenericRandomPlayer() throws {
        let result = try Self.run(["eval", "--game", "guess", "--range", "8", "--games", "200", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["game"] as? String == "guess" && report["player"] as? String == "random" && report["games"] as? Int == 200)
        #expect(report["finished"] as? Int == 200, "without max_steps every game is won")
        let steps = try #require(report["mean_steps"] as? Double)
        #expect(steps > 1 && steps < 8)
        let again = try Self.run(["eval", "--game", "guess", "--range", "8", "--games", "200", "--json"])
        #expect(again.stdout == result.stdout, "a seed gives the same report")
    }

    @Test func helpListsTheGamesFlags() throws {
        for command in ["eval", "play", "bench"] {
            let result = try Self.run([command, "--game", "guess", "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("--range <n>") && result.stdout.contains("Numbers to guess from. (default: 16)"), "\(result.stdout)")
            #expect(result.stdout.contains("--max-steps <n>") && result.stdout.contains("The game: 2048, memorize or guess."))
        }
    }

    @Test func aRecordedGameReplaysAndATamperedOneDoesNot() throws {
        let folder = TemporaryDirectory()
        let record = folder.file("guess.jsonl")
        let played = try Self.run(["play", "--game", "guess", "--agent", "random", "--range", "8", "--seed", "3", "--record", record])
        #expect(played.status == 0, "\(played.stderr)")
        let text = try String(contentsOfFile: record, encoding: .utf8)
        #expect(text.hasPrefix("{\"type\":\"header\",\"format\":\"gym2048-episode\",\"version\":2,\"game\":\"guess\",\"seed\":3,"))
        #expect(
            text.contains("\"config\":{\"range\":8,\"max_steps\":null,\"invalid_action\":\"noop\",\"invalid_action_penalty\":0},\"player\":\"random\"}"),
            "\(text)")
        #expect(text.contains("{\"type\":\"step\",\"step\":1,\"action\":"))
        #expect(text.hasSuffix("\"outcome\":\"finished\",\"last_episode\":true}\n"))

        let checked = try Self.run(["replay", "--check", record])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.hasPrefix("verified: ") && checked.stdout.contains("exactly from seed 3 (guess, random, reward "), "\(checked.stdout)")

        let tampered = folder.file("tampered.jsonl")
        try text.replacingOccurrences(of: "\"reward\":-0.125", with: "\"reward\":0.5").write(toFile: tampered, atomically: true, encoding: .utf8)
        let refused = try Self.run(["replay", "--check", tampered])
        if text.contains("\"reward\":-0.125") {
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("step 1: action ") && refused.stderr.contains("recorded reward 0.5, replay gives -0.125"), "\(refused.stderr)")
        }
        let named = try Self.run(["replay", "--check", "--game", "guess", record])
        #expect(named.status == 0, "\(named.stderr)")
        let other = try Self.run(["replay", "--check", "--game", "memorize", record])
        #expect(other.status == 1 && other.stderr.contains("line 1: a guess episode in a record of memorize"), "\(other.stderr)")
        // Without the game in the registry, its record names no game.
        let unknown = try Self.run(["replay", "--check", record], registry: .standard)
        #expect(unknown.status == 1 && unknown.stderr.contains("\"game\" must be 2048 or memorize, got \"guess\""), "\(unknown.stderr)")
    }

    @Test func benchMeasuresTheGame() throws {
        let result = try Self.run(["bench", "--game", "guess", "--seconds", "0.01", "--envs", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("{\"game\":\"guess\",\"envs\":2,"))
        #expect(result.stdout.contains("\"steps_per_cpu_second\":") && result.stdout.contains("\"machine\":{\"cpu\":"))
        // A fixed amount of work: whole steps of every environment, at least --steps of them.
        let fixed = try Self.run(["bench", "--game", "guess", "--steps", "7", "--envs", "3", "--json"])
        #expect(fixed.status == 0 && fixed.stdout.contains("\"steps\":9,"), "\(fixed.stdout)")
        let both = try Self.run(["bench", "--game", "guess", "--steps", "7", "--seconds", "1"])
        #expect(both.status == 64 && both.stderr.contains("give --steps or --seconds, not both"), "\(both.stderr)")
    }

    @Test(arguments: [
        (["eval", "--game", "guess", "--range", "1"], "--range must be an integer from 2 to 1000, got 1"),
        (["eval", "--game", "guess", "--max-steps", "x"], "--max-steps must be an integer or off, got 'x'"),
        (["eval", "--game", "guess", "--agent", "perfect"], "--agent must be one of random, got 'perfect'"),
        (["play", "--game", "guesses"], "--game must be one of 2048, memorize or guess, got 'guesses'"),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: " + message), "\(result.stderr)")
    }
}
