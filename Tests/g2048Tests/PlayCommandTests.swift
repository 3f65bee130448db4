import Foundation
import Game2048
import Testing
@testable import g2048
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `g2048 play` and `g2048 replay` driven through pipes, as a script would: the built binary, its stdout,
/// stderr and exit code. Each test keeps its best scores in its own `XDG_DATA_HOME`.
struct PlayCommandTests {
    /// A temporary `XDG_DATA_HOME` and scratch folder, removed at the end.
    typealias Scratch = TemporaryDirectory

    static func run(_ arguments: [String], input: String = "", scratch: Scratch) throws -> G2048Tests.Result {
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = scratch.path
        process.environment = environment
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so that a large stdout cannot block the child.
        nonisolated(unsafe) var stderrData = Data()
        let reader = Thread { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return G2048Tests.Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// The boards printed in plain frames: each block of lines after a `score …` line and a blank line.
    static func boards(in stdout: String) -> [String] {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var boards: [String] = []
        var index = 0
        while index < lines.count {
            if lines[index].hasPrefix("score ") || lines[index].hasPrefix("step "), index + 1 < lines.count, lines[index + 1].isEmpty {
                var end = index + 2
                while end < lines.count && !lines[end].isEmpty { end += 1 }
                boards.append(lines[(index + 2)..<end].joined(separator: "\n"))
                index = end
            } else {
                index += 1
            }
        }
        return boards
    }

    @Test func pipedKeysPlayTheSameGameAsTheLibrary() throws {
        let scratch = Scratch()
        let keys = ["left", "w", "l", "j", "down", "h", "up", "right", "a", "s", "d", "k"]
        let result = try Self.run(["play", "--seed", "7", "--rows", "3", "--cols", "4"], input: keys.joined(separator: "\n") + "\nq\n", scratch: scratch)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(!result.stdout.contains("\u{1B}"), "plain output has no escape sequences")

        var environment = Environment(rules: try Rules(rows: 3, cols: 4))
        var expected = [environment.reset(seed: 7).observation.description]
        let names = [
            "left": "left", "w": "up", "l": "right", "j": "down", "down": "down", "h": "left", "up": "up",
            "right": "right", "a": "left", "s": "down", "d": "right", "k": "up",
        ]
        for key in keys where !environment.isOver {
            let direction = Direction(name: names[key]!)!
            // A move that changes nothing is refused and shown again unchanged.
            if environment.actionMask.contains(direction) {
                expected.append(try environment.step(direction).observation.description)
            } else {
                expected.append(environment.board.description)
                #expect(result.stdout.contains("\(direction.name) does not move any tile"))
            }
        }
        #expect(Self.boards(in: result.stdout) == expected)
        #expect(result.stdout.hasPrefix("g2048 · 3x4 · seed 7\nscore 0 · best 0\n\n"))
        #expect(result.stdout.hasSuffix("; seed 7\n"))
    }

    @Test func endOfInputQuitsCleanly() throws {
        let scratch = Scratch()
        let result = try Self.run(["play", "--seed", "1"], input: "up\nleft", scratch: scratch)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(Self.boards(in: result.stdout).count == 3)
        #expect(result.stdout.contains("\nstopped: score "))
    }

    /// `g2048 play --seed 1 <&-` took descriptor 0 for its own pipe and waited forever; with a
    /// directory as stdin it exited 0 without a word. Run through sh, which can close a descriptor.
    @Test(arguments: [
        ("<&-", "error: standard input is closed; play reads its keys there (a terminal, a pipe or a file)"),
        ("< /", "error: cannot read standard input: Is a directory"),
    ])
    func anUnreadableStandardInputIsAnError(redirection: String, message: String) throws {
        let scratch = Scratch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" play --seed 1 \(redirection)", G2048Tests.executable.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": scratch.path]) { $1 }
        let err = Pipe()
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(stderr.hasSuffix(message + "\n"), "\(stderr)")
    }

    @Test func unknownInputLinesAreReportedAndSkipped() throws {
        let scratch = Scratch()
        let result = try Self.run(["play", "--seed", "1"], input: "up\njump\nleft\n\u{1B}[2J\u{7}\n", scratch: scratch)
        #expect(result.status == 0)
        // Control bytes (here: clear the screen, ring the bell) are escaped, never sent to the terminal.
        #expect(
            result.stderr == "warning: input line 2: \"jump\" is not a key (expected up, down, left, right, w, a, s, d, h, j, k, l, r or q); ignored\n"
                + "warning: input line 4: \"\\u001b[2J\\u0007\" is not a key (expected up, down, left, right, w, a, s, d, h, j, k, l, r or q); ignored\n")
        #expect(Self.boards(in: result.stdout).count == 3)
    }

    @Test func restartStartsTheNextSeed() throws {
        let scratch = Scratch()
        let result = try Self.run(["play", "--seed", "41"], input: "left\nr\n", scratch: scratch)
        var environment = Environment(rules: Rules())
        let second = environment.reset(seed: 42).observation.description
        #expect(result.stdout.contains("g2048 · 4x4 · seed 42\nscore 0 · best 0\n\n" + second + "\n"))
    }

    /// The rules flags of `train` and `eval` set the game `play` plays and records; the replay plays by them.
    @Test func rulesFlagsReachThePlayedAndRecordedGame() throws {
        let scratch = Scratch()
        let record = scratch.path + "/game.jsonl"
        let played = try Self.run(
            [
                "play", "--agent", "greedy", "--seed", "3", "--rows", "3", "--spawn-four-probability", "1", "--initial-tiles", "4",
                "--max-steps", "6", "--record", record,
            ], scratch: scratch)
        #expect(played.status == 0, "\(played.stderr)")
        let text = try String(contentsOfFile: record, encoding: .utf8)
        #expect(text.contains("\"spawn_four_probability\":1.0,\"initial_tiles\":4,\"win_tile\":null,\"max_steps\":6"), "\(text)")
        #expect(text.contains("\"steps\":6"), "the step limit cut the game")
        #expect(!text.contains("\"value\":2}"), "every spawn is a 4")
        let checked = try Self.run(["replay", "--file", record, "--check"], scratch: scratch)
        #expect(checked.status == 0 && checked.stdout.hasPrefix("verified: 6 steps reproduce exactly from seed 3"), "\(checked.stdout)")
        // Without --rows the rules must hold on every size the start screen offers.
        let refused = try Self.run(["play", "--initial-tiles", "5"], scratch: scratch)
        #expect(refused.status == 64)
        #expect(
            refused.stderr.hasPrefix("error: --initial-tiles must be an integer from 1 to 4, got 5 (on the start screen's 2x2; give --rows and --cols)"),
            "\(refused.stderr)")
    }

    @Test func recordedGameReplaysAndShowsTheSameBoards() throws {
        let scratch = Scratch()
        let record = scratch.path + "/game.jsonl"
        let played = try Self.run(["play", "--agent", "greedy", "--seed", "3", "--rows", "3", "--cols", "3", "--record", record], scratch: scratch)
        #expect(played.status == 0)
        #expect(played.stderr.isEmpty)
        #expect(played.stdout.contains("game over: score "))
        let replayed = try Self.run(["replay", "--file", record, "--delay", "0"], scratch: scratch)
        #expect(replayed.status == 0)
        #expect(replayed.stderr.isEmpty)
        let boards = Self.boards(in: played.stdout)
        #expect(Self.boards(in: replayed.stdout) == boards)
        let score = String(played.stdout.components(separatedBy: "game over: score ").last!.prefix { $0.isNumber })
        let summary = "verified: \(boards.count - 1) steps reproduce exactly from seed 3 (3x3, greedy, score \(score), max tile "
        #expect(replayed.stdout.contains("\n" + summary))
        #expect(replayed.stdout.hasSuffix(")\n"))
        let checked = try Self.run(["replay", "--file", record, "--check"], scratch: scratch)
        #expect(checked.status == 0)
        #expect(checked.stdout.hasPrefix("verified: \(boards.count - 1) steps reproduce exactly from seed 3"))
        #expect(checked.stdout.split(separator: "\n").count == 1)
    }

    @Test func tamperedRecordFailsAtTheFirstMismatch() throws {
        let scratch = Scratch()
        let record = scratch.path + "/game.jsonl"
        _ = try Self.run(["play", "--agent", "random", "--seed", "5", "--record", record], scratch: scratch)
        var lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map(String.init)
        // Step 6 is line 7; claim a reward it did not get.
        let original = lines[6]
        let reward = Int(original.components(separatedBy: "\"reward\":")[1].prefix { $0.isNumber })!
        lines[6] = original.replacingOccurrences(of: "\"reward\":\(reward)", with: "\"reward\":\(reward + 4)")
        let action = original.components(separatedBy: "\"action\":\"")[1].prefix { $0 != "\"" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: record, atomically: true, encoding: .utf8)
        let result = try Self.run(["replay", "--file", record, "--delay", "0"], scratch: scratch)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == "error: \(record): step 6: \(action): recorded reward \(reward + 4), replay gives \(reward) "
                + "(the record does not reproduce from seed 5)\n")
    }

    /// `g2048 replay` read a whole record (1.96 GB and 45 s for 969 MB) before it reported a
    /// mismatch at step 1. It now checks each line as it reads it: the mismatch at step 2 is
    /// reported though a malformed line and a line of 2 MiB come later, which a whole read would
    /// have stopped at first.
    @Test func aRecordIsCheckedAsItIsRead() throws {
        let scratch = Scratch()
        let record = scratch.path + "/game.jsonl"
        _ = try Self.run(["play", "--agent", "random", "--seed", "5", "--record", record], scratch: scratch)
        var lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map(String.init)
        let original = lines[2]
        let reward = Int(original.components(separatedBy: "\"reward\":")[1].prefix { $0.isNumber })!
        lines[2] = original.replacingOccurrences(of: "\"reward\":\(reward)", with: "\"reward\":\(reward + 4)")
        let junk = lines.count - 2
        lines.insert("this is not JSON", at: junk)
        lines.insert(String(repeating: " ", count: 2 << 20), at: lines.count - 1)
        try (lines.joined(separator: "\n") + "\n").write(toFile: record, atomically: true, encoding: .utf8)
        let result = try Self.run(["replay", "--file", record, "--check"], scratch: scratch)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: \(record): step 2: "), "\(result.stderr)")
        // Without the mismatch, the long line is refused by number, in one line, not read whole.
        lines[2] = original
        lines.remove(at: junk)
        try (lines.joined(separator: "\n") + "\n").write(toFile: record, atomically: true, encoding: .utf8)
        let long = try Self.run(["replay", "--file", record, "--check"], scratch: scratch)
        #expect(long.status == 1)
        #expect(long.stderr == "error: cannot read \(record): line \(lines.count - 1) is longer than 1048576 bytes\n")
    }

    @Test func truncatedOrMalformedRecordIsAOneLineError() throws {
        let scratch = Scratch()
        let record = scratch.path + "/game.jsonl"
        _ = try Self.run(["play", "--agent", "greedy", "--seed", "2", "--record", record], scratch: scratch)
        let text = try String(contentsOfFile: record, encoding: .utf8)
        let cut = String(text.prefix(text.count / 2))
        try cut.write(toFile: record, atomically: true, encoding: .utf8)
        let line = cut.split(separator: "\n", omittingEmptySubsequences: false).count
        let truncated = try Self.run(["replay", "--file", record], scratch: scratch)
        #expect(truncated.status == 1)
        #expect(truncated.stderr.hasPrefix("error: \(record): line \(line): truncated record: the last line is incomplete ("))
        #expect(truncated.stderr.filter { $0 == "\n" }.count == 1)

        try "{\"type\":\"header\"}\n".write(toFile: record, atomically: true, encoding: .utf8)
        let malformed = try Self.run(["replay", "--file", record], scratch: scratch)
        #expect(malformed.status == 1)
        #expect(malformed.stderr == "error: \(record): line 1: missing \"format\"\n")

        let missing = try Self.run(["replay", "--file", scratch.path + "/absent.jsonl"], scratch: scratch)
        #expect(missing.status == 1)
        // Every reader says "cannot open" when the open fails, as weights and metrics files do.
        #expect(missing.stderr == "error: cannot open \(scratch.path)/absent.jsonl: No such file or directory\n")
    }

    /// Without a terminal in or out (a script, a benchmark) play keeps no best scores unless asked: automation
    /// leaves no files in the home folder.
    @Test func withoutATerminalNoBestScoresAreKeptUnlessAsked() throws {
        let scratch = Scratch()
        let played = try Self.run(["play", "--agent", "greedy", "--rows", "2", "--seed", "1"], scratch: scratch)
        #expect(played.status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/gym2048"))
        _ = try Self.run(["play", "--agent", "greedy", "--rows", "2", "--seed", "1", "--best-scores"], scratch: scratch)
        #expect(FileManager.default.fileExists(atPath: scratch.file("gym2048/agents/greedy/best-scores.json")))
    }

    /// Games played from a pipe (a script) with --best-scores keep them per size, apart from a person's.
    @Test func bestScoresAreKeptPerSizeUnderXDGDataHome() throws {
        let scratch = Scratch()
        let moves = String(repeating: "left\nup\nright\ndown\n", count: 3) + "q\n"
        let small = try Self.run(["play", "--best-scores", "--seed", "1", "--rows", "2", "--cols", "3"], input: moves, scratch: scratch)
        let classic = try Self.run(["play", "--best-scores", "--seed", "1"], input: moves, scratch: scratch)
        func score(_ result: G2048Tests.Result) -> Int {
            Int(result.stdout.components(separatedBy: ": score ").last!.prefix { $0.isNumber })!
        }
        let text = try String(contentsOfFile: scratch.scriptedBestScoresFile, encoding: .utf8)
        #expect(text == "{\"format\":\"gym2048-best-scores\",\"version\":1,\"best\":{\"2x3\":\(score(small)),\"4x4\":\(score(classic))}}\n")
        // The next game shows the best from the start.
        let next = try Self.run(["play", "--best-scores", "--seed", "9"], input: "q\n", scratch: scratch)
        #expect(next.stdout.contains("score 0 · best \(score(classic))"))
        let scripted = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/gym2048/agents/scripted")
        #expect(scripted.sorted() == ["best-scores.json", "best-scores.json.lock"])
        // A person's file is never written by a script.
        #expect(!FileManager.default.fileExists(atPath: scratch.bestScoresFile))
    }

    /// Watching an agent once replaced the player's own best (`{"4x4":32}` became `{"4x4":1708}`), and a piped
    /// script's "best 8" showed on the person's start screen: an agent's scores go to
    /// `agents/<agent>/best-scores.json`, a script's to `agents/scripted/`, and the person's file is left as it was.
    @Test func aWatchedAgentsScoresNeverReplaceThePlayers() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/gym2048", withIntermediateDirectories: true)
        let players = "{\"format\":\"gym2048-best-scores\",\"version\":1,\"best\":{\"4x4\":32}}\n"
        try players.write(toFile: scratch.bestScoresFile, atomically: true, encoding: .utf8)
        _ = try Self.run(["play", "--best-scores", "--seed", "1"], input: String(repeating: "left\nup\nright\ndown\n", count: 5) + "q\n", scratch: scratch)
        #expect(try String(contentsOfFile: scratch.bestScoresFile, encoding: .utf8) == players)
        let watched = try Self.run(["play", "--best-scores", "--agent", "greedy", "--seed", "1"], scratch: scratch)
        let agentScore = Int(watched.stdout.components(separatedBy: "game over: score ").last!.prefix { $0.isNumber })!
        #expect(agentScore > 100 && watched.stdout.contains("best 4x4 \(agentScore)"))
        #expect(try String(contentsOfFile: scratch.bestScoresFile, encoding: .utf8) == players)
        let agents = try String(contentsOfFile: scratch.file("gym2048/agents/greedy/best-scores.json"), encoding: .utf8)
        #expect(agents == "{\"format\":\"gym2048-best-scores\",\"version\":1,\"best\":{\"4x4\":\(agentScore)}}\n")
        // A scripted game shows the scripts' best, not the agent's.
        let next = try Self.run(["play", "--best-scores", "--seed", "2"], input: "q\n", scratch: scratch)
        #expect(!next.stdout.contains("best \(agentScore)"))
    }

    @Test func corruptedBestScoreFileIsReportedOnceAndReplaced() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/gym2048/agents/scripted", withIntermediateDirectories: true)
        try "{\"best\": oops".write(toFile: scratch.scriptedBestScoresFile, atomically: true, encoding: .utf8)
        let first = try Self.run(["play", "--best-scores", "--seed", "1"], input: "q\n", scratch: scratch)
        #expect(first.status == 0)
        #expect(first.stderr.hasPrefix("warning: best-score file \(scratch.scriptedBestScoresFile) is corrupted ("))
        #expect(first.stderr.filter { $0 == "\n" }.count == 1)
        let second = try Self.run(["play", "--best-scores", "--seed", "1"], input: "q\n", scratch: scratch)
        #expect(second.stderr.isEmpty)
        #expect(try String(contentsOfFile: scratch.scriptedBestScoresFile, encoding: .utf8).hasPrefix("{\"format\":\"gym2048-best-scores\""))
        #expect(try String(contentsOfFile: scratch.scriptedBestScoresFile + ".corrupted", encoding: .utf8) == "{\"best\": oops")
    }

    /// Watching the optimal player of a solution that lacks the boards a game reaches spun for ever: the agent gave
    /// no move, the game never ended and the command never returned. It now ends the game with the error `eval`
    /// gives, naming the board, and exit 1.
    @Test func anAgentWithoutAMoveWhereOneIsLegalEndsPlay() throws {
        let folder = TemporaryDirectory()
        let path = try SolveCommandTests.partialSolution2x2(in: folder)
        let run = try G2048Tests.runInShell(
            "XDG_DATA_HOME=\"$2\" timeout 30 \"$0\" play --agent optimal --solution \"$1\" --rows 2 --cols 2 --seed 1 </dev/null",
            [path, folder.path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error: game 1: the optimal player gave no move on a board with legal moves: [["), "\(run.stderr)")
    }

    @Test func winTileShowsAMessageAndPlayGoesOn() throws {
        let scratch = Scratch()
        let result = try Self.run(["play", "--agent", "greedy", "--seed", "1", "--win-tile", "32"], scratch: scratch)
        #expect(result.status == 0)
        #expect(result.stdout.components(separatedBy: "You made 32! Keep going").count == 2)
        let maxTile = Int(result.stdout.components(separatedBy: "max tile ").last!.prefix { $0.isNumber })!
        #expect(maxTile > 32)
    }

    @Test(arguments: [
        (["play", "--agent", "alphazero"], "error: --agent must be one of random, greedy, montecarlo, expectimax, ntuple, optimal, got 'alphazero'"),
        (["play", "--agent", "ntuple"], "error: --agent ntuple needs --weights <file>"),
        (["play", "--weights", "w.bin"], "error: --weights is only used by --agent ntuple and --hint"),
        (["play", "--hint", "--agent", "greedy"], "error: --hint is for playing yourself, not with --agent greedy"),
        (["play", "--delay", "10"], "error: --delay sets the pace of --agent; give an agent too"),
        (["play", "--hint", "--downgrade", "8192"], "error: --downgrade applies to the network's search; give --weights (with --hint or --agent ntuple)"),
        (["play", "--hint", "--weights", "w.bin", "--downgrade", "100"], "error: --downgrade must be on, off or a power of two from 8 to 32768, got '100'"),
        (["play", "--rows", "9"], "error: --rows must be an integer from 2 to 8, got 9"),
        (["play", "--cols", "1"], "error: --cols must be an integer from 2 to 8, got 1"),
        (["play", "--win-tile", "100"], "error: --win-tile must be a power of two from 4 to 2^50 or off, got 100"),
        (["play", "--win-tile", "0100"], "error: --win-tile must be a power of two from 4 to 2^50 or off, got 0100"),
        (["play", "--seed", "-1"], "error: --seed must be an integer from 0 to 18446744073709551615, got '-1'"),
        (["replay"], "error: missing <file>: the record to replay"),
        (["replay", "--file", "x", "--delay", "-5"], "error: --delay must be an integer from 0 to 600000, got -5"),
    ])
    func usageErrorsExit64WithOneLineReason(arguments: [String], message: String) throws {
        let scratch = Scratch()
        let result = try Self.run(arguments, scratch: scratch)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let name = arguments[0]
        #expect(
            result.stderr == message + "\nusage: " + (name == "play" ? PlayCommand.spec.usage : ReplayCommand.spec.usage)
                + "\nsee 'g2048 \(name) --help'\n")
    }

    @Test func unreadableOrInvalidWeightsExit1() throws {
        let scratch = Scratch()
        let missing = try Self.run(["play", "--agent", "ntuple", "--weights", scratch.path + "/none.bin"], scratch: scratch)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: "))
        #expect(missing.stderr.contains(scratch.path + "/none.bin"))
        #expect(missing.stderr.filter { $0 == "\n" }.count == 1)
        let garbage = scratch.path + "/garbage.bin"
        try "not a weights file".write(toFile: garbage, atomically: true, encoding: .utf8)
        let invalid = try Self.run(["play", "--hint", "--weights", garbage], scratch: scratch)
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("error: "))
        #expect(invalid.stderr.filter { $0 == "\n" }.count == 1)
        #expect(invalid.stdout.isEmpty)
    }

    /// `--agent ntuple` searches with the tile its weights file records unless `--downgrade` says otherwise.
    @Test func theNtupleAgentDowngradesFromTheWeightsFileTile() throws {
        let scratch = Scratch()
        let weights = scratch.path + "/w.bin"
        // Records the 512 tile (see DowngradeDefaultTests).
        let trained = try G2048Tests.run(["train", "--games", "1000", "--seed", "3", "--out", weights])
        #expect(trained.status == 0, "\(trained.stderr)")
        func record(_ name: String, _ extra: [String]) throws -> String {
            let path = scratch.path + "/\(name).jsonl"
            let played = try Self.run(["play", "--agent", "ntuple", "--weights", weights, "--seed", "4", "--record", path] + extra, scratch: scratch)
            #expect(played.status == 0, "\(played.stderr)")
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        let byDefault = try record("default", []), from512 = try record("512", ["--downgrade", "512"])
        let from32768 = try record("32768", ["--downgrade", "on"])
        #expect(byDefault == from512)
        #expect(byDefault != from32768)
    }

    @Test func hintShowsTheExpectimaxMove() throws {
        let scratch = Scratch()
        let result = try Self.run(["play", "--seed", "4", "--hint"], input: "q\n", scratch: scratch)
        #expect(result.status == 0)
        let hint = result.stdout.components(separatedBy: "hint: ").last.map { String($0.prefix { $0.isLetter }) }
        #expect(["up", "right", "down", "left"].contains(hint ?? ""))
    }

    @Test func helpTextsAreTheSpecs() throws {
        let scratch = Scratch()
        #expect(try Self.run(["play", "--help"], scratch: scratch).stdout == PlayCommand.spec.help + "\n")
        #expect(try Self.run(["replay", "--help"], scratch: scratch).stdout == ReplayCommand.spec.help + "\n")
        let root = try Self.run(["--help"], scratch: scratch).stdout
        #expect(root.contains("  play        Play 2048 in the terminal"))
        #expect(root.contains("  replay      Show a game recorded"))
    }
}

// MARK: On a terminal

/// `g2048 play` on a pseudo-terminal: raw mode while playing, arrow-key escape sequences, and the
/// terminal put back (attributes, cursor, main screen) after `q` and after SIGINT/SIGTERM.
extension PlayCommandTests {
    /// Bytes read from the terminal's master side by a background thread.
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ chunk: ArraySlice<UInt8>) { lock.withLock { bytes += chunk } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    }

    struct Session {
        var status: Int32
        var reason: Process.TerminationReason
        var output: String
        var rawWhilePlaying: Bool
        var restored: Bool
    }

    /// A new pseudo-terminal's master and slave descriptors.
    static func openPseudoTerminal() -> (master: Int32, slave: Int32)? {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { return nil }
        #if os(Linux)
        // grantpt/unlockpt/ptsname are not in the Glibc module; their ioctls are (TIOCSPTLCK, TIOCGPTN).
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else { return nil }
        let name = "/dev/pts/\(number)"
        #else
        guard grantpt(master) == 0, unlockpt(master) == 0, let cName = ptsname(master) else { return nil }
        let name = String(cString: cName)
        #endif
        let slave = open(name, O_RDWR | O_NOCTTY)
        return slave >= 0 ? (master, slave) : nil
    }

    /// Runs `g2048 arguments` with a pseudo-terminal as stdin and stdout, types `keys` once the first
    /// frame is on screen, then optionally sends `signal`.
    static func runInTerminal(_ arguments: [String], keys: [String], signal: Int32? = nil) throws -> Session {
        let (master, slave) = try #require(Self.openPseudoTerminal())
        defer { close(slave) }
        let scratch = Scratch()
        let process = Process()
        process.executableURL = G2048Tests.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": scratch.path]) { $1 }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = Pipe()
        let capture = Capture()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress!, $0.count) }
                if count <= 0 { break }
                capture.append(buffer[0..<count])
            }
            close(master)
        }
        reader.start()
        try process.run()

        // Keys typed before the game enters raw mode would be flushed by it: wait for the first frame.
        let deadline = Date().addingTimeInterval(20)
        while !capture.text.contains("\u{1B}[?25l") && Date() < deadline { usleep(10_000) }
        var attributes = termios()
        tcgetattr(slave, &attributes)
        let raw = attributes.c_lflag & tcflag_t(ICANON) == 0 && attributes.c_lflag & tcflag_t(ECHO) == 0
        for key in keys {
            _ = key.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress!, $0.count - 1) }
            // A lone Escape is told from Alt+key by time alone: on a loaded machine a game not scheduled for 150 ms
            // read "Escape, q" as Alt+q (ignored, by design) and never quit. A second is the game's to read it alone.
            usleep(key == "\u{1B}" ? 1_000_000 : 150_000)
        }
        if let signal { kill(process.processIdentifier, signal) }
        // Never hang the suite: a game still running 20 s later is killed (and the test fails on its status).
        let exitDeadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < exitDeadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        tcgetattr(slave, &attributes)
        let restored = attributes.c_lflag & tcflag_t(ICANON) != 0 && attributes.c_lflag & tcflag_t(ECHO) != 0
        usleep(100_000)
        return Session(
            status: process.terminationStatus, reason: process.terminationReason, output: capture.text,
            rawWhilePlaying: raw, restored: restored)
    }

    @Test func arrowKeysPlayAndQuitRestoresTheTerminal() throws {
        // Left (CSI), up (SS3), k (up), a lone Escape that must not swallow the q after it.
        let session = try Self.runInTerminal(
            ["play", "--seed", "42", "--rows", "3", "--cols", "3"],
            keys: ["\u{1B}[D", "\u{1B}OA", "k", "\u{1B}", "q"])
        #expect(session.status == 0)
        #expect(session.reason == .exit)
        #expect(session.rawWhilePlaying)
        #expect(session.restored)
        #expect(session.output.contains("\u{1B}[?1049h\u{1B}[?25l"))  // alternate screen, cursor hidden
        #expect(session.output.contains("\u{1B}[?25h\u{1B}[?1049l"))  // cursor shown, main screen back
        #expect(session.output.contains("\u{1B}[48;5;"))  // coloured tiles
        #expect(session.output.contains("stopped: score "))
    }

    @Test func startScreenPicksTheSizeWithArrowsAndEnter() throws {
        let session = try Self.runInTerminal(["play", "--seed", "1"], keys: ["\u{1B}[B", "\r", "q"])
        #expect(session.status == 0)
        #expect(session.output.contains("choose a board size"))
        #expect(session.output.contains("best 5x5 0; seed 1"))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalRestoresTheTerminalAndExitsWith128PlusTheSignal(signal: Int32) throws {
        let session = try Self.runInTerminal(["play", "--seed", "5", "--rows", "4", "--agent", "random", "--delay", "100"], keys: [], signal: signal)
        #expect(session.status == 128 + signal)
        #expect(session.rawWhilePlaying)
        #expect(session.restored)
        #expect(session.output.contains("\u{1B}[?25h\u{1B}[?1049l"))
    }
}

extension TemporaryDirectory {
    /// Where `g2048 play` keeps its best scores with this folder as `XDG_DATA_HOME`.
    var bestScoresFile: String { file("gym2048/best-scores.json") }
    /// Where it keeps the best scores of games played from a pipe or a file.
    var scriptedBestScoresFile: String { file("gym2048/agents/scripted/best-scores.json") }
}

/// `timeout -s TERM … g2048 play --agent …` left records without their end line: `timeout` signals the process
/// and then its group, and the second signal exited at once. The same signal twice within a second is one request.
struct PlaySignalTwiceTests {
    @Test func twoTermsAtOnceStillEndTheRecord() throws {
        let scratch = PlayCommandTests.Scratch()
        for round in 0..<8 {
            let record = scratch.file("r\(round).jsonl")
            let process = Process()
            process.executableURL = G2048Tests.executable
            process.arguments = ["play", "--agent", "greedy", "--delay", "20", "--record", record]
            process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": scratch.path]) { $1 }
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            usleep(300_000)
            kill(process.processIdentifier, SIGTERM)
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationStatus == 143)
            let text = try String(contentsOfFile: record, encoding: .utf8)
            let last = text.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("{\"type\":\"end\"") && last.contains("\"outcome\":\"stopped\""), "round \(round): \(last)")
        }
    }
}
