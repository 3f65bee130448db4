import Game2048
import Game2048Server
import Game2048JSON

/// `g2048 serve`: the environment over newline-delimited JSON-RPC 2.0 on stdin and stdout.
struct ServeCommand: Command {
    /// Each flag and the protocol option it sets; the value is parsed as JSON where the option is numeric.
    static let settings: [(flag: String, option: String, valueName: String, help: String, defaultValue: String)] = [
        ("rows", "rows", "n", "Board rows, 2 to 8.", "4"),
        ("cols", "cols", "n", "Board columns, 2 to 8.", "4"),
        ("envs", "num_envs", "n", "Environments; more than 1 serves a vector environment.", "1"),
        ("spawn-four-probability", "spawn_four_probability", "p", "Chance that a spawned tile is a 4.", "0.1"),
        ("initial-tiles", "initial_tiles", "n", "Tiles placed by reset.", "2"),
        ("win-tile", "win_tile", "tile", "End the episode when this tile appears.", "off"),
        ("max-steps", "max_steps", "n", "Truncate episodes after this many steps.", "off"),
        ("invalid-action", "invalid_action", "policy", "noop, terminate or reject.", "noop"),
        ("penalty", "invalid_action_penalty", "n", "Penalty of an illegal action under terminate.", "0"),
        ("observation", "observation", "encoding", "exponents, values, onehot, base64 or base64_batch.", "exponents"),
        ("onehot-channels", "onehot_channels", "n", "Planes of the onehot encoding.", "rows*cols+2"),
        ("info", "info", "fields", "Comma-separated info fields to report.", ServerConfig.defaultInfoFields.joined(separator: ",")),
        ("info-layout", "info_layout", "layout", "Vector info as rows (one object per env) or columns.", "rows"),
        ("autoreset-mode", "autoreset_mode", "mode", "Vector autoreset: next_step, same_step or disabled.", "next_step"),
    ]

    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the environment over newline-delimited JSON-RPC 2.0 on stdin and stdout.",
        discussion: """
            One request per line in, one response per line out; logs go to stderr.
            Methods: \(Methods.names.joined(separator: ", ")).
            End of input or 'close' exits with 0; an unreadable stdin or unwritable stdout exits with 1. One
            response is at most 256 MiB: configurations whose largest result could be larger (num_envs times
            the observation size, four afterstates each) are refused, with the most environments that fit.
            The protocol is documented in docs/PROTOCOL.md; clients are in Examples/python and Examples/node.
            """,
        options: settings.map { .option($0.flag, $0.valueName, $0.help, default: $0.defaultValue) }
            + [.option("max-line-bytes", "n", "Longest request line accepted, in bytes without the newline; longer ones get an error.", default: "1048576")])

    var config: ServerConfig
    var maxLineBytes: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        maxLineBytes = try arguments.int("max-line-bytes", default: 1 << 20, in: 64...(1 << 30))
        var changes: [(String, JSONValue)] = []
        for setting in ServeCommand.settings {
            guard let text = arguments.string(setting.flag) else { continue }
            changes.append((setting.option, ServeCommand.value(text, option: setting.option)))
        }
        do {
            config = try ServerConfig().applying(changes)
        } catch {
            var message = error.message
            if message.hasPrefix("invalid params: ") { message.removeFirst("invalid params: ".count) }
            for setting in ServeCommand.settings where message.hasPrefix(setting.option + " ") {
                message = "--" + setting.flag + message.dropFirst(setting.option.count)
                break
            }
            throw UsageError(message)
        }
    }

    /// A flag's text as the JSON value the protocol option expects.
    static func value(_ text: String, option: String) -> JSONValue {
        switch option {
        case "info": return .array(text.split(separator: ",").map { .string(String($0)) })
        case "win_tile" where text == "off", "max_steps" where text == "off": return .null
        default:
            if let integer = Int128(text) { return .integer(integer) }
            if let number = Double(text) { return .double(number) }
            return .string(text)
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
