import Foundation
import Testing
import TestSupport

@testable import g2048

/// `eval --protocol` and `eval --record`, and `replay` of the games records they write.
struct EvalRecordTests {
    static func report(_ text: String) throws -> [String: Any] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        object["seconds"] = nil
        object["moves_per_second"] = nil
        return object
    }

    /// A recorded evaluation plays through the environment move by move; the report is the one the fast path
    /// gives without recording (the packed network, here), and the record verifies with the same mean.
    @Test func aRecordedEvaluationIsTheSameEvaluationAndVerifies() throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin"), record = directory.file("games.jsonl")
        let trained = try G2048Tests.run([
            "train", "--rows", "3", "--patterns", G2048Tests.smallPatterns, "--games", "300", "--table-share", "0", "--out", weights,
        ])
        #expect(trained.status == 0, "\(trained.stderr)")
        let plain = try G2048Tests.run(["eval", "--weights", weights, "--protocol", "2048-3x3-v1", "--json"])
        let recorded = try G2048Tests.run(["eval", "--weights", weights, "--protocol", "2048-3x3-v1", "--json", "--record", record])
        #expect(plain.status == 0 && recorded.status == 0, "\(plain.stderr)\(recorded.stderr)")
        let (fast, slow) = (try Self.report(plain.stdout), try Self.report(recorded.stdout))
        #expect(NSDictionary(dictionary: fast) == NSDictionary(dictionary: slow))
        #expect(recorded.stderr.contains("recorded 1000 games"))
        let checked = try G2048Tests.run(["replay", "--check", record])
        #expect(checked.status == 0, "\(checked.stderr)")
        let mean = try #require(fast["mean_score"] as? Double)
        #expect(checked.stdout.contains("verified 1000 games of 2048") && checked.stdout.contains("under 2048-3x3-v1"))
        #expect(checked.stdout.contains("mean score \(String(format: "%.1f", mean))"), "\(checked.stdout)")
    }

    @Test func memorizeEvaluationsAreRecordedToo() throws {
        let directory = TemporaryDirectory()
        let record = directory.file("m.jsonl")
        let result = try G2048Tests.run(["eval", "--game", "memorize", "--agent", "random", "--protocol", "memorize-4x4-v1", "--record", record])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: record, encoding: .utf8)
        #expect(text.hasPrefix("{\"type\":\"games\",\"format\":\"gym2048-games\",\"version\":1,\"game\":\"memorize\",\"protocol\":\"memorize-4x4-v1\""))
        #expect(text.split(separator: "\n").count == 1001)
        let checked = try G2048Tests.run(["replay", record])
        #expect(checked.status == 0 && checked.stdout.hasPrefix("verified 1000 games of memorize"), "\(checked.stderr)")
        let forged = directory.file("forged.jsonl")
        try text.replacingOccurrences(of: "\"index\":3,", with: "\"index\":4,").write(toFile: forged, atomically: true, encoding: .utf8)
        let refused = try G2048Tests.run(["replay", "--check", forged])
        #expect(refused.status == 1 && refused.stderr.contains("line 5: game 4 where game 3 was expected"), "\(refused.stderr)")
    }

    @Test(arguments: [
        (["--protocol", "2048-3x3-v1", "--rows", "4"], "--protocol 2048-3x3-v1 sets the board, the rules, the games and their seeds: drop --rows"),
        (["--protocol", "2048-3x3-v1", "--games", "10"], "drop --games"),
        (["--protocol", "2048-3x3-v1", "--seed", "3"], "drop --seed"),
        (["--protocol", "2048-3x3-v1", "--spawn-four-probability", "0.2"], "drop --spawn-four-probability"),
        (["--protocol", "memorize-4x4-v1"], "--protocol memorize-4x4-v1 is a protocol of memorize: add --game memorize"),
        (["--protocol", "2048-5x5-v1"], "--protocol: unknown protocol \"2048-5x5-v1\" (the protocols are 2048-3x3-v1, 2048-4x4-v1 or memorize-4x4-v1)"),
        (["--game", "memorize", "--protocol", "memorize-4x4-v1", "--rows", "2"], "drop --rows"),
        (["--solution", "s.bin", "--exact", "--record", "r.jsonl"], "--record writes the games played; --exact plays none"),
    ])
    func protocolAndRecordFlagsAreChecked(flags: [String], message: String) throws {
        let result = try G2048Tests.run(["eval"] + flags)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func anExistingRecordIsReplacedOnlyWithForce() throws {
        let directory = TemporaryDirectory()
        let record = directory.file("r.jsonl")
        try "keep\n".write(toFile: record, atomically: true, encoding: .utf8)
        let refused = try G2048Tests.run(["eval", "--agent", "random", "--rows", "2", "--games", "3", "--record", record])
        #expect(refused.status != 0 && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "keep\n")
        let replaced = try G2048Tests.run(["eval", "--agent", "random", "--rows", "2", "--games", "3", "--record", record, "--force"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOfFile: record, encoding: .utf8).contains("\"protocol\":null"))
    }
}
