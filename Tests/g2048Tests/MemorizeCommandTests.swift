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
        (["--rows", "3", "--cols", "3"], "--rows/--cols: rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
        (["--rows", "0"], "--rows must be an integer from 1 to 64, got 0"),
        (["--mismatch-penalty", "-1"], "--mismatch-penalty must be a number from 0.0 to 1000000.0, got -1.0"),
        (["--max-steps", "x"], "--max-steps must be an integer or off, got 'x'"),
        (["--agent", "optimal"], "--agent must be one of random, perfect, forgetful, got 'optimal'"),
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
        #expect(result.stderr.hasPrefix("error: --game must be one of 2048, memorize, got 'chess'"))
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
}
