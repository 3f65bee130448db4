import Foundation
import Game2048
import Game2048Learning
import Testing
@testable import g2048

struct TrainEvalCommandTests {
    static func train(_ arguments: [String]) throws -> TrainCommand { try TrainCommand(parseArguments(arguments, spec: TrainCommand.spec)) }
    static func eval(_ arguments: [String]) throws -> EvalCommand { try EvalCommand(parseArguments(arguments, spec: EvalCommand.spec)) }

    @Test func trainDefaultsToTenMinutesOfTheClassicBoard() throws {
        let command = try Self.train([])
        #expect(command.rules == Rules())
        #expect(command.seconds == 600 && command.games == nil)
        #expect(command.out == "weights-4x4.bin")
        #expect(command.alpha == 0.1 && command.threads == 1 && command.schedule == .forward)
        let short = try Self.train(["--games", "10", "--rows", "3"])
        #expect(short.seconds == nil && short.games == 10 && short.rules.cols == 3)
    }

    @Test(arguments: [
        (["--rows", "99"], "--rows must be between 2 and 8, got 99"),
        (["--alpha", "0"], "--alpha must be between 1e-09 and 10.0, got 0"),
        (["--games", "0"], "--games must be between 1 and 9223372036854775807, got 0"),
        (["--update", "sideways"], "--update must be backward or forward, got 'sideways'"),
        (["--patterns", "0,1,99"], "--patterns: pattern 1 has cell 99, outside a 4x4 board (cells 0...15)"),
        (["--resume", "w.bin", "--patterns", "0,1"], "--patterns cannot change a resumed network (the file has its own)"),
    ])
    func trainRejectsBadOptions(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.train(arguments) }
    }

    @Test(arguments: [
        (["--agent", "ntuple"], "--agent ntuple needs --weights <file>"),
        (["--agent", "genius"], "--agent must be one of ntuple, random, greedy, montecarlo, expectimax, got 'genius'"),
        (["--agent", "greedy", "--depth", "2"], "--depth applies to the ntuple and expectimax players, not greedy"),
        (["--weights", "w.bin", "--agent", "random"], "--weights is only used by --agent ntuple"),
        (["--games", "0"], "--games must be between 1 and 10000000, got 0"),
    ])
    func evalRejectsBadOptions(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.eval(arguments) }
    }

    @Test func trainThenEvalEndToEnd() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("g2048-train-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let weights = directory.appendingPathComponent("w.bin").path
        let csv = directory.appendingPathComponent("curve.csv").path
        let svg = directory.appendingPathComponent("curve.svg").path
        let trained = try G2048Tests.run(["train", "--rows", "3", "--games", "1500", "--out", weights, "--metrics", csv,
                                          "--plot", svg, "--metrics-every", "500", "--checkpoint-every", "1000"])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stdout.hasPrefix("wrote \(weights): 1500 games"))
        #expect(trained.stderr.contains("training 3x3"))
        let (network, metadata) = try WeightsFile.load(from: weights)
        #expect(network.rows == 3 && metadata.games == 1500 && metadata.initialValue == TrainCommand.defaultOptimism)
        let curve = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(curve.count == 4)  // header + 3 rows
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg"))

        let resumed = try G2048Tests.run(["train", "--rows", "3", "--games", "2000", "--resume", weights, "--out", weights, "--metrics", csv])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try WeightsFile.load(from: weights).metadata.games == 2000)

        let learned = try G2048Tests.run(["eval", "--weights", weights, "--games", "200", "--json"])
        #expect(learned.status == 0, "\(learned.stderr)")
        let random = try G2048Tests.run(["eval", "--agent", "random", "--games", "200", "--json"])
        let mean = { (text: String) -> Double in
            let object = try! JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
            return (object["mean_score"] as! NSNumber).doubleValue
        }
        // The random player runs on 4×4 and the learner on 3×3, so only sanity is compared here.
        #expect(mean(learned.stdout) > 300)
        #expect(mean(random.stdout) > 300)
    }

    @Test func evalOfACorruptedFileIsAOneLineError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("g2048-bad-\(UUID().uuidString).bin").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("not weights at all".utf8).write(to: URL(fileURLWithPath: path))
        let result = try G2048Tests.run(["eval", "--weights", path, "--games", "5"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(path): not a Gym2048 weights file (bad magic)\n")
        let missing = try G2048Tests.run(["eval", "--weights", path + ".none", "--games", "5"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: cannot open \(path).none"))
    }
}
