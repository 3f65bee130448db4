import Foundation
import Testing
@testable import g2048
import TestSupport

/// `g2048 demo`, the README's first command: it trains, evaluates and plays, leaves the files it names, and
/// keeps an earlier demo's files unless told.
struct DemoCommandTests {
    @Test func theDemoTrainsEvaluatesAndPlaysOneGame() throws {
        let folder = TemporaryDirectory()
        let arguments = ["demo", "--seconds", "1", "--games", "5", "--rows", "3", "--dir", folder.path]
        let result = try G2048Tests.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["weights.bin", "curve.svg", "curve.csv", "game.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: folder.file(name)), "\(name)")
        }
        #expect(result.stderr.contains("g2048 demo, 1 of 3: training a player for 1 s (g2048 train --seconds 1 --seed 1 --out"))
        #expect(result.stderr.contains("g2048 demo, 3 of 3: one of its games"))
        #expect(result.stdout.contains("mean score"), "the evaluation's report")
        #expect(result.stdout.contains("game over: score "), "the game played")
        #expect(result.stdout.split(separator: "\n").count < 60, "without a terminal, the game's last position only")
        #expect(result.stdout.contains("Files in \(folder.path): weights.bin"))
        let replayed = try G2048Tests.run(["replay", "--file", folder.file("game.jsonl"), "--check"])
        #expect(replayed.status == 0 && replayed.stdout.hasPrefix("verified: "), "\(replayed.stdout)")
        // Again: the files are kept, and the training refuses to replace them; --force replaces them.
        let again = try G2048Tests.run(arguments)
        #expect(again.status != 0 && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try G2048Tests.run(arguments + ["--force"]).status == 0)
    }
}
