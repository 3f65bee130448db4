import Foundation
import GymGames
import Testing
@testable import g2048
import TestSupport

/// Every integer flag of every command at the largest value its declaration accepts (``OptionSpec/integers``), through
/// the built binary: the command must run, or refuse in one line, never trap. `train --games 9223372036854775807` once
/// trapped on every board (the split of the games between the network and the table overflowed) and no test saw it:
/// the flags are read from the commands' declarations, so a flag declared later is tried too.
struct IntegerFlagTests {
    /// One command (of a game, for the games' own commands) with one flag at its maximum.
    struct Case: Sendable, CustomTestStringConvertible {
        var command: String
        var game: String?
        var flag: String
        var value: String
        /// How the parser words the declared range, which must not refuse `value`.
        var declared: String
        var testDescription: String { (game.map { "--game \($0) " } ?? "") + "\(command) --\(flag) \(value)" }
    }

    /// The cases, from the declarations of every command of every game.
    static var cases: [Case] {
        let commands =
            G2048.commands.map { (game: String?.none, spec: $0.spec) }
            + GameRegistry.standard.games.filter { $0.name != GameFlag.twentyFortyEight }.flatMap { game in
                GameFlag.commands.map { (game: Optional(game.name), spec: $0.spec(for: game, registry: .standard)) }
            }
        return commands.flatMap { game, spec in
            spec.options.compactMap { option in
                option.integers.map { range in
                    Case(
                        command: spec.name, game: game, flag: option.name, value: String(range.upperBound),
                        declared: "between \(range.lowerBound) and \(range.upperBound)")
                }
            }
        }
    }

    /// What keeps each command's runs short (a 2x2 board, two games, a fraction of a second, no delay), by flag;
    /// the flag tried replaces its entry. A command whose runs take different paths has a budget for each: `train`
    /// with the network alone, and with the network then the afterstate table. Files go to `folder`. An entry
    /// without a flag (`""`) is the positional argument.
    static func budgets(_ command: String, game: String?, in folder: TemporaryDirectory) throws -> [[(String, String?)]] {
        let board: [(String, String?)] = [("rows", "2"), ("cols", "2")]
        switch (game, command) {
        case (nil, "train"):
            let run = board + [("seconds", "0.2"), ("out", folder.file("w.bin")), ("force", nil)]
            return [run + [("table-share", "0")], run]
        case (nil, "eval"): return [board + [("games", "2")]]
        case (nil, "demo"): return [board + [("seconds", "1"), ("games", "2"), ("dir", folder.path), ("force", nil)]]
        case (nil, "solve"): return [board + [("out", folder.file("s.bin")), ("force", nil)]]
        case (nil, "bench"): return [board + [("seconds", "0.01"), ("envs", "2")]]
        case (_, "play"): return [board + [("agent", "random"), ("seed", "1"), ("delay", "0")]]
        case (nil, "replay"):
            let record = folder.file("r.jsonl")
            let played = try G2048Tests.run(["play", "--agent", "random", "--rows", "2", "--seed", "1", "--delay", "0", "--record", record], input: "")
            try #require(played.status == 0, "\(played.stderr)")
            return [[("file", record), ("delay", "0")]]
        case (_, "eval"): return [board + [("games", "2")]]
        case (_, "bench"): return [board + [("seconds", "0.01"), ("envs", "2")]]
        // A service that refuses the connection: the exchange starts, under the flag's deadline, and fails at once.
        case (nil, "rank show"): return [[("url", "http://127.0.0.1:\(LoopbackServer.closedPort())")]]
        case (nil, "rank submit"):
            let record = folder.file("games.jsonl")
            #expect(FileManager.default.createFile(atPath: record, contents: Data("{}\n".utf8)))
            return [[("url", "http://127.0.0.1:\(LoopbackServer.closedPort())"), ("team", "t"), ("agent", "a"), ("", record)]]
        default: return [[]]
        }
    }

    /// A run still going after this many seconds has not trapped at its start, and is stopped: a flag whose
    /// maximum is a long run by design (`eval --games 10000000`, `play --delay 600000`) gets this far.
    static let deadline = 8.0

    @Test(arguments: IntegerFlagTests.cases)
    func everyIntegerFlagRunsAtItsMaximum(_ test: Case) throws {
        #expect(Self.cases.contains { $0.command == "train" && $0.flag == "games" }, "the declarations were not read")
        let folder = TemporaryDirectory()
        for budget in try Self.budgets(test.command, game: test.game, in: folder) {
            var arguments = test.command.split(separator: " ").map(String.init) + (test.game.map { ["--game", $0] } ?? [])
            for (flag, value) in budget where flag != test.flag { arguments += (flag.isEmpty ? [] : ["--\(flag)"]) + (value.map { [$0] } ?? []) }
            try Self.expectNoTrap(arguments + ["--\(test.flag)", test.value], declared: test.declared, in: folder)
        }
    }

    /// Runs `arguments` until it ends or ``deadline``: it must exit with success or one precise refusal, and the
    /// refusal must not be the parser's range (`declared`) refusing a value within it.
    static func expectNoTrap(_ arguments: [String], declared: String, in folder: TemporaryDirectory) throws {
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["G2048_PROGRESS": "off"]) { $1 }
        let errorPath = folder.file("stderr")
        #expect(FileManager.default.createFile(atPath: errorPath, contents: nil))
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        let start = Date()
        while process.isRunning && Date().timeIntervalSince(start) < deadline { usleep(20_000) }
        let stopped = process.isRunning
        if stopped { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let stderr = try String(contentsOfFile: errorPath, encoding: .utf8)
        let said = "\(arguments.joined(separator: " ")): \(stderr.suffix(2000))"
        #expect(!stderr.contains("Fatal error") && !stderr.contains("Backtrace"), "\(said)")
        guard !stopped else { return }
        #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus): \(said)")
        guard process.terminationStatus != 0 else { return }
        #expect([1, 64].contains(process.terminationStatus), "\(said)")
        #expect(stderr.split(separator: "\n").contains { $0.hasPrefix("error: ") } && !stderr.contains(declared), "\(said)")
    }
}
