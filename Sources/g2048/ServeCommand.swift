import Game2048
import GymServer
import GymJSON
import GymSystem

/// `g2048 serve`: the environment over newline-delimited JSON-RPC 2.0 on stdin and stdout.
struct ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the environment over newline-delimited JSON-RPC 2.0 on stdin and stdout.",
        discussion: """
            One request per line in, one response per line out; logs go to stderr.

            Methods: \(Methods.names.joined(separator: ", ")).

            End of input or 'close' exits with 0; an unreadable stdin or unwritable stdout exits with 1. One
            response is at most 256 MiB: configurations whose largest result could be larger (num_envs times
            the observation size, four afterstates each) are refused, with the most environments that fit.

            The protocol is documented in docs/PROTOCOL.md; clients are in python/ and Examples/node.
            """,
        options: Self.serverOptions.map(\.spec) + [Self.maxLineBytes.spec])

    /// The server's options, flag for flag: their text becomes the JSON value `make` would take.
    static let serverOptions = ServerOption.all.map(flag)

    /// The flag of `option`: its text read as `make` would take it, its default and its integers as declared.
    static func flag(_ option: ServerOption) -> CommandOption<JSONValue?> {
        // A switch, as every other command's (GameFlags): `--no-fours`, not `--no-fours true`.
        if case .boolean = option.constraint {
            return CommandOption(spec: .flag(option.flag, option.help), absent: nil) { _ throws(UsageError) in .bool(true) }
        }
        let integers = option.constraint.integers
        let parsed = CommandOption.parsed(option.flag, option.valueName, help: option.help) { option.value(ofFlag: $0) }
        return parsed.shown(option.helpDefault).accepting(integers: integers)
    }
    /// By default the longest line this process can parse: a client may send any valid request (65 536 seeds, the
    /// states of thousands of boards run to megabytes), as the in-process engine takes it.
    static let maxLineBytes = CommandOption.integer(
        "max_line_bytes",
        help: "Longest request line accepted, in bytes without the newline; longer ones get an error. At most 1/64 of "
            + "the memory this process can use (ulimit -v and cgroup limits count; a line's parse holds about 24 bytes per byte), and 1 GiB.",
        in: 64...(1 << 30)
    ).shown("the most this process can parse")

    var config: ServerConfig
    var maxLineBytes: Int

    /// The longest line whose parse this process can hold with room to spare: a line of JSON numbers parses into
    /// about 24 bytes per byte (a 50 MB array peaked at 1.19 GB), so 1/64 of the memory it can use: the least of
    /// the machine's, what `ulimit -v` leaves and what its cgroup's limit leaves.
    static var parsableLineBytes: Int { min(1 << 30, max(1 << 20, SystemInfo.usableMemory / 64)) }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // Read once: what the process can use moves a little, and the message must name the bound that refused.
        let parsable = ServeCommand.parsableLineBytes
        maxLineBytes = try arguments[Self.maxLineBytes] ?? parsable
        guard maxLineBytes <= parsable else {
            throw UsageError(
                "--max-line-bytes \(maxLineBytes) is more than this process can parse: a line's parse holds about 24 bytes of "
                    + "memory per byte, so at most \(parsable) (1/64 of the memory it can use: the "
                    + "machine's, ulimit -v's and its cgroup's limit)")
        }
        var changes: [(String, JSONValue)] = []
        for (option, flag) in zip(ServerOption.all, Self.serverOptions) {
            if let value = try arguments[flag] { changes.append((option.name, value)) }
        }
        do {
            config = try ServerConfig().applying(changes)
        } catch {
            // Every change came from a flag, so the error is about one: named as it was typed.
            guard case .invalidOption(let name, let reason) = error, let option = ServerOption.named(name) else {
                throw UsageError(error.message)
            }
            throw UsageError("--\(option.flag) \(reason)")
        }
    }

    func run() throws -> Int32 {
        var dispatcher = Dispatcher(session: GameSession(config: config))
        var transport = StdioTransport(maxLineBytes: maxLineBytes)
        // An unreadable stdin or an unwritable stdout is reported (`error: cannot …`, exit 1), never a silent 0.
        try transport.serve(&dispatcher)
        return ExitCode.success
    }
}
