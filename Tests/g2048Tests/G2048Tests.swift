import Foundation
import Testing
@testable import g2048
import TestSupport

/// Runs the built `g2048` binary and checks stdout, stderr and the exit code.
struct G2048Tests {
    /// A small 3x3 network (two 4-tuples, 2 × 11^4 weights) for the tests of what `train` does around a network
    /// (signals, checkpoints, rules, files): the default 3x3 network is a 7-tuple of 78 MB, slow to save and
    /// load in a debug build.
    static let smallPatterns = "0,1,2,3;3,4,5,6"

    /// The `g2048` executable beside the test bundle in the build products folder.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("g2048")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "g2048")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with `arguments`, `input` on stdin and `environment` added to the process's.
    /// Runs the binary; `stdoutPath` sends its standard output to that file (such as `/dev/full`)
    /// instead of the returned text.
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:], stdoutPath: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        if let stdoutPath { process.standardOutput = FileHandle(forWritingAtPath: stdoutPath) }
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        // Both pipes are read at once, so a long stderr (progress) cannot block the child.
        nonisolated(unsafe) var stderr = Data()
        let reader = Thread { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let stdout = stdoutPath == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs `script` in `/bin/sh -c` with `$0` the binary and `$1`… the `arguments`: for the limits and descriptors only a
    /// shell sets (`ulimit -v`, `>&-`). Standard output goes to /dev/null; the exit status and stderr are returned.
    static func runInShell(_ script: String, _ arguments: [String] = []) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, executable.path] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// `g2048 eval … > /dev/full; echo $?` printed 0: the results were lost without a word.
    @Test(arguments: [
        ["bench", "--seconds", "0.01", "--rows", "2", "--envs", "2", "--json"], ["--version"], ["--help"], ["train", "--help"],
    ])
    func aLostStandardOutputIsAnError(arguments: [String]) throws {
        let result = try Self.run(arguments, stdoutPath: "/dev/full")
        #expect(result.status == 1, "\(arguments)")
        #expect(result.stderr.hasSuffix("error: cannot write standard output: No space left on device; the results printed there are lost\n"))
    }

    @Test func aWatchedGameToAFullDiskIsAnError() throws {
        let data = TemporaryDirectory()
        let result = try Self.run(
            ["play", "--agent", "random", "--rows", "2", "--seed", "1", "--delay", "0"], environment: ["XDG_DATA_HOME": data.path],
            stdoutPath: "/dev/full")
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("error: cannot write standard output: No space left on device; the results printed there are lost\n"))
    }

    /// `serve --max-line-bytes 1073741824` accepted a line its parse could not hold (a 500 MB JSON
    /// array aborted: "failed to allocate 8590983072 bytes"); the maximum is now what the process can parse.
    /// (What it can use moves a little between processes, so the limits tried keep a margin from it.)
    @Test func serveRefusesALineLimitItCannotParse() throws {
        let most = ServeCommand.parsableLineBytes
        #expect(most >= 1 << 20 && most <= 1 << 30)
        let accepted = try Self.run(["serve", "--max-line-bytes", String(max(1 << 20, most * 9 / 10))], input: "")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        guard most < 1 << 29 else { return }  // a machine of 32 GiB or more parses nearly the largest limit
        let refused = try Self.run(["serve", "--max-line-bytes", String(most * 2)], input: "")
        #expect(refused.status == 64)
        #expect(
            refused.stderr.hasPrefix(
                "error: --max-line-bytes \(most * 2) is more than this process can parse: a line's parse holds about 24 bytes of "
                    + "memory per byte, so at most "), "\(refused.stderr)")
        #expect(refused.stderr.contains("(1/64 of the memory it can use: the machine's, ulimit -v's and its cgroup's limit)\n"))
    }

    /// `serve` skipped every request line over 1 MiB by default, so a client could not send 65 536 seeds or the
    /// states of 8 192 boards, which the in-process engine takes; by default it now takes any line it can parse.
    @Test func serveTakesLinesOverAMebibyteByDefault() throws {
        let seeds = (0..<65_536).map { String(UInt64.max - UInt64($0)) }.joined(separator: ",")
        let line = #"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seeds":["# + seeds + "]}}"
        #expect(line.utf8.count > 1 << 20)
        let result = try Self.run(["serve", "--envs", "65536"], input: line + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(#"{"jsonrpc":"2.0","id":1,"result":"#), "\(result.stdout.prefix(200))")
    }

    @Test func outOfRangeRowsPrintsOneLineReasonAndExits64() throws {
        let result = try Self.run(["bench", "--rows", "99"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: --rows must be an integer from 2 to 8, got 99\nusage: g2048 bench"))
        #expect(result.stderr.hasSuffix("see 'g2048 bench --help'\n"))
    }

    @Test func unknownSubcommandExits64() throws {
        let result = try Self.run(["fly"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: unknown subcommand 'fly'\nsee 'g2048 --help'\n")
    }

    @Test func versionAndHelpGoToStdout() throws {
        let version = try Self.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "g2048 \(G2048.version) (rules version 1)\n")
        let help = try Self.run(["bench", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout == BenchCommand.spec.help + "\n")
        let root = try Self.run(["--help"])
        #expect(root.stdout.contains("bench       Measure environment steps per second"))
    }

    /// The repository's root: this file is Tests/g2048Tests/G2048Tests.swift.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A user follows `--help` to a file of the repository, so every path it names must exist.
    @Test(arguments: G2048.commands.map { $0.spec.name })
    func helpNamesOnlyFilesThatExist(command: String) throws {
        let help = try #require(G2048.commands.first { $0.spec.name == command }).spec.help
        for match in help.matches(of: #/(?:Examples|docs|Sources|Tests)/[A-Za-z0-9_./-]*[A-Za-z0-9_]/#) {
            let path = String(match.output)
            #expect(
                FileManager.default.fileExists(atPath: Self.repositoryRoot.appendingPathComponent(path).path),
                "g2048 \(command) --help names \(path), which does not exist")
        }
    }

    /// Help texts show `g2048 replay` as its usage line and the README do: the record is the positional `<file>`.
    @Test func helpTextsShowReplayAsItsUsageLineDoes() {
        #expect(ReplayCommand.spec.usage.hasPrefix("g2048 replay <file>"))
        for command in G2048.commands {
            #expect(!command.spec.help.contains("g2048 replay --file"), "g2048 \(command.spec.name) --help")
        }
    }

    @Test func benchJSONIsOneArrayOfRecords() throws {
        let result = try Self.run(["bench", "--rows", "3", "--envs", "2", "--seconds", "0.01", "--json"])
        #expect(result.status == 0)
        let records = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(records.count == 2)
        #expect(records.map { $0["board"] as? String } == ["3x3", "3x3"])
        #expect(records.map { $0["envs"] as? Int } == [1, 2])
        for record in records {
            for key in ["steps_per_second", "steps_per_cpu_second", "episodes_per_second", "mean_episode_length"] {
                #expect((record[key] as? NSNumber)?.doubleValue ?? -1 > 0, "\(key) missing or not positive")
            }
        }
        // Progress goes to stderr, never into the JSON.
        #expect(result.stderr.contains("measuring 3x3"))
    }

    @Test func serveAnswersOverPipesAndExitsAtEndOfInput() throws {
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":1,"options":{"board":[[2,2,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"step","params":{"action":"left"}}"#,
            "garbage",
            #"{"jsonrpc":"2.0","method":"spec"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"render"}"#,
        ]
        let result = try Self.run(["serve", "--info", "score,spawn"], input: requests.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(
            lines[0]
                == #"{"jsonrpc":"2.0","id":1,"result":{"observation":[[1,1,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"terminated":false,"info":{"score":0,"spawn":null}}}"#
        )
        #expect(lines[1].hasPrefix(#"{"jsonrpc":"2.0","id":2,"result":{"observation":"#))
        #expect(lines[1].contains(#""reward":4,"#))
        #expect(lines[2].contains(#""code":-32700"#))
        #expect(lines[3].hasPrefix(#"{"jsonrpc":"2.0","id":3,"result":{"text":"4 "#))
    }

    /// An unwritable stdout or an unreadable stdin ends `serve` with a reason and exit 1, never a silent 0.
    @Test(arguments: [
        ("/dev/null", "/dev/full", "error: cannot write responses to stdout: No space left on device\n"),
        ("/", "/dev/null", "error: cannot read requests from stdin: Is a directory\n"),
    ])
    func serveReportsUnusableStdio(input: String, output: String, message: String) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve"]
        let err = Pipe()
        let request = Pipe()
        process.standardInput = input == "/dev/null" ? request : try #require(FileHandle(forReadingAtPath: input))
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = err
        try process.run()
        request.fileHandleForWriting.write(Data(#"{"jsonrpc":"2.0","id":1,"method":"spec"}\#n"#.utf8))
        try request.fileHandleForWriting.close()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(String(decoding: stderr, as: UTF8.self) == message)
    }

    @Test func serveRejectsBadOptionsWithUsageErrors() throws {
        let result = try Self.run(["serve", "--observation", "bits"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                #"error: --observation must be one of "exponents", "values", "onehot", "base64", "base64_batch", "onehot_float32", "#
                    + #""onehot_flat", got "bits""#))
    }

    @Test func serveNamesNonFiniteNumbers() throws {
        let result = try Self.run(["serve", "--spawn-four-probability", "nan"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: --spawn-four-probability must be a number from 0.0 to 1.0, got nan\n"))
    }
}

/// `serve --max-line-bytes` is capped by the memory the process can use, not the machine's: under a 1 GB
/// address-space limit, 64 MiB was accepted and one 40 MB line aborted the server.
struct ServeMemoryLimitTests {
    @Test func theLineLimitReadsTheAddressSpaceLimit() throws {
        let (status, stderr) = try G2048Tests.runInShell("ulimit -v 1000000; exec \"$0\" serve --max-line-bytes 67108864 </dev/null")
        #expect(status == 64, "\(stderr)")
        #expect(stderr.hasPrefix("error: --max-line-bytes 67108864 is more than this process can parse"), "\(stderr)")
        #expect(stderr.contains("ulimit -v"))
    }
}

/// A command whose results have nowhere to go says so and fails: with stdout closed (`>&-`), `eval`,
/// `replay --check` and `bench --json` wrote their results into the /dev/null standing in for descriptor 1 and
/// exited 0. They are refused before their work (which then ran to its end, to fail after it), and a command
/// whose results are the files it writes (`train`, `solve`) is not failed for its report's closed stdout.
struct ClosedStandardOutputTests {
    @Test(arguments: [["eval", "--agent", "random", "--games", "3"], ["bench", "--json", "--seconds", "0.02", "--rows", "2"]])
    func resultsWithNowhereToGoAreAnError(arguments: [String]) throws {
        let (status, stderr) = try Self.runWithStdoutClosed(arguments)
        #expect(status == 1, "\(stderr)")
        #expect(stderr == "error: standard output is closed; the results have nowhere to go (give the command a stdout)\n", "\(stderr)")
    }

    /// `solve >&-` wrote its file, then exited 1: a finished work was called a failure.
    @Test(arguments: [["solve", "--rows", "2"], ["train", "--rows", "2", "--games", "10"]])
    func aCommandWhoseResultIsAFileSucceedsWithoutStdout(arguments: [String]) throws {
        let folder = TemporaryDirectory()
        let (status, stderr) = try Self.runWithStdoutClosed(arguments + ["--out", folder.file("out.bin")])
        #expect(status == 0, "\(stderr)")
        #expect(!stderr.contains("error"), "\(stderr)")
        #expect(folder.names == ["out.bin"])
    }

    @Test func replayCheckWithStdoutClosedFails() throws {
        let folder = TemporaryDirectory()
        let record = folder.file("r.jsonl")
        let play = try G2048Tests.run(["play", "--agent", "greedy", "--seed", "1", "--record", record], input: "")
        #expect(play.status == 0, "\(play.stderr)")
        let (status, stderr) = try Self.runWithStdoutClosed(["replay", "--check", record])
        #expect(status == 1 && stderr.contains("standard output is closed"), "\(stderr)")
    }

    static func runWithStdoutClosed(_ arguments: [String]) throws -> (Int32, String) {
        try G2048Tests.runInShell("exec \"$0\" \"$@\" >&-", arguments)
    }
}
