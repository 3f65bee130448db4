import Game2048
import Game2048JSON

/// One option of the server, declared once: its protocol name, its `g2048 serve` flag and help,
/// what values it allows, and where it lives in the configuration.
///
/// ``ServerOption/all`` is the one table of options. `make` reads through it, `spec` reports it,
/// `g2048 serve` builds its flags and help from it, and ``ServerOption/markdownTable`` renders the
/// options table of docs/PROTOCOL.md (a test keeps the document equal to it). Its rules options are
/// made from `Game2048JSON.RulesOption.all`, so adding a rules option is an entry there. Adding a
/// server option is its declaration here and its place in ``all``, plus the field it sets in
/// ``ServerConfig/Settings`` and what the option does.
public struct ServerOption: Sendable {
    /// The values an option allows, which also say how a flag's text becomes a JSON value.
    public enum Constraint: Sendable {
        /// An integer in the range; with `nullable`, also `null` (`off` on the command line).
        case integer(ClosedRange<Int>, nullable: Bool)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// One of these strings.
        case choice([String])
        /// A list of any of these strings (comma-separated on the command line).
        case list([String])
    }

    /// The name in `make`, `spec` and episode records (snake_case).
    public let name: String
    /// The `g2048 serve` flag, without its dashes.
    public let flag: String
    /// The flag's value placeholder in the help (`n`, `policy`).
    public let valueName: String
    /// The flag's help line.
    public let help: String
    /// The values allowed.
    public let constraint: Constraint
    /// What the documentation adds to the allowed values, or "".
    public let note: String
    /// The default when it is no fixed value (it follows other options), for the help and the document.
    public let defaultNote: String?
    /// The rules option it is, when it is one.
    public let rules: RulesOption?
    /// Reads a value into the settings, refusing it when the constraint does not hold.
    let read: @Sendable (JSONValue, inout ServerConfig.Settings) throws(RPCError) -> Void
    /// The value in the settings.
    let value: @Sendable (ServerConfig.Settings) -> JSONValue

    /// Every option, in the order `spec` reports them: the board size, `num_envs`, the other rules
    /// options (all of `Game2048JSON.RulesOption.all`, in its order), then how results are encoded.
    public static let all: [ServerOption] =
        RulesOption.all.filter(\.isRequired).map(rules) + [numEnvs] + RulesOption.all.filter { !$0.isRequired }.map(rules)
        + [observation, onehotChannels, info, infoLayout, autoresetMode]

    /// `num_envs` (`--envs`).
    public static let numEnvs = integer(
        "num_envs", flag: "envs", help: "Environments; more than 1 serves a vector environment.", in: 1...65_536,
        note: ", and responses within 256 MiB (see Transport); more than 1 is vector mode", \.numEnvs)
    /// `observation`.
    public static let observation = choice("observation", valueName: "encoding", help: "Observation encoding:", \.observation)
    /// `onehot_channels`; it follows the board size unless set.
    public static let onehotChannels = integer(
        "onehot_channels", help: "Planes of the onehot encoding.", in: 2...64, defaultNote: "rows*cols+2", \.onehotChannels,
        given: \ServerConfig.Settings.onehotChannelsGiven)
    /// `info`: the info fields to report.
    public static let info = ServerOption(
        name: "info", flag: "info", valueName: "fields", help: "Comma-separated info fields to report.",
        constraint: .list(ReportedInfo.allCases.map(\.rawValue)), note: " (comma-separated after `--info`)", defaultNote: nil,
        rules: nil,
        read: { value, settings throws(RPCError) in
            guard let list = value.array else { throw .invalidOption("info", reason: "must be a list of field names, got \(value.typeName)") }
            var fields: Set<ReportedInfo> = []
            for item in list { fields.insert(try Params.option("info", { reader throws(JSONReadError) in try reader.choice(of: ReportedInfo.self) }, item)) }
            settings.info = ReportedInfo.allCases.filter(fields.contains)
        },
        value: { .array($0.info.map { .string($0.rawValue) }) })
    /// `info_layout`.
    public static let infoLayout = choice(
        "info_layout", valueName: "layout", help: "Vector info layout (rows: one object per env):",
        note: "; in vector mode `rows` is a list of info objects, `columns` one object of lists", \.infoLayout)
    /// `autoreset_mode`.
    public static let autoresetMode = choice("autoreset_mode", valueName: "mode", help: "Vector autoreset:", \.autoresetMode)

    /// The protocol names, in ``all`` order.
    public static let names = all.map(\.name)

    /// The option named `name` in the protocol, if there is one.
    public static func named(_ name: String) -> ServerOption? { all.first { $0.name == name } }

    // MARK: Kinds of option

    /// An integer option's value: an integer, exactly (`5.0` and `5e0` are refused, as for seeds and actions).
    static func integer(_ value: JSONValue, _ name: String, in range: ClosedRange<Int>) throws(RPCError) -> Int {
        let range = Int128(range.lowerBound)...Int128(range.upperBound)
        return Int(try Params.option(name, { reader throws(JSONReadError) in try reader.integer(in: range) }, value))
    }

    /// An integer option in `range`, stored at `field`; `given` records that it was set (an option whose
    /// default follows others). The name, the range and the field are stated once, here.
    static func integer(
        _ name: String, flag: String? = nil, help: String, in range: ClosedRange<Int>, note: String = "",
        defaultNote: String? = nil, _ field: WritableKeyPath<ServerConfig.Settings, Int> & Sendable,
        given: (WritableKeyPath<ServerConfig.Settings, Bool> & Sendable)? = nil
    ) -> ServerOption {
        ServerOption(
            name: name, flag: flag ?? dashed(name), valueName: "n", help: help, constraint: .integer(range, nullable: false),
            note: note, defaultNote: defaultNote, rules: nil,
            read: { value, settings throws(RPCError) in
                settings[keyPath: field] = try integer(value, name, in: range)
                if let given { settings[keyPath: given] = true }
            },
            value: { .integer(Int128($0[keyPath: field])) })
    }

    /// The server option of a rules option: its flag, help and allowed values are the rules option's.
    static func rules(_ option: RulesOption) -> ServerOption {
        let name = option.name
        let constraint: Constraint
        let read: @Sendable (JSONValue, inout ServerConfig.Settings) throws(RPCError) -> Void
        switch option.kind {
        case .integer(let field, let range):
            constraint = .integer(range, nullable: false)
            read = { value, settings throws(RPCError) in settings.rules[keyPath: field] = try integer(value, name, in: range) }
        case .optionalInteger(let field, let range):
            constraint = .integer(range, nullable: true)
            read = { value, settings throws(RPCError) in
                settings.rules[keyPath: field] = value == .null ? nil : try integer(value, name, in: range)
            }
        case .number(let field, let range):
            constraint = .number(range)
            read = { value, settings throws(RPCError) in
                settings.rules[keyPath: field] = try Params.option(name, { reader throws(JSONReadError) in try reader.number(in: range) }, value)
            }
        case .choice(let field):
            constraint = .choice(InvalidActionPolicy.Kind.allCases.map(\.rawValue))
            read = { value, settings throws(RPCError) in
                settings.rules[keyPath: field] = try Params.option(
                    name, { reader throws(JSONReadError) in try reader.choice(of: InvalidActionPolicy.Kind.self) }, value)
            }
        }
        let listed = if case .choice(let choices) = constraint { " " + choices.listedWithOr + "." } else { "" }
        return ServerOption(
            name: name, flag: option.flag, valueName: option.valueName, help: option.help + listed, constraint: constraint,
            note: option.note, defaultNote: nil, rules: option, read: read,
            value: { JSONValue(option.value(in: $0.rules)) })
    }

    /// A choice among the cases of `Choice`; the help ends with them ("rows or columns.").
    static func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(
        _ name: String, valueName: String, help: String, note: String = "",
        _ field: WritableKeyPath<ServerConfig.Settings, Choice> & Sendable
    ) -> ServerOption {
        let choices = Choice.allCases.map(\.rawValue)
        return ServerOption(
            name: name, flag: dashed(name), valueName: valueName, help: "\(help) \(choices.listedWithOr).",
            constraint: .choice(choices), note: note, defaultNote: nil, rules: nil,
            read: { value, settings throws(RPCError) in
                settings[keyPath: field] = try Params.option(name, { reader throws(JSONReadError) in try reader.choice(of: Choice.self) }, value)
            },
            value: { .string($0[keyPath: field].rawValue) })
    }

    /// The flag of a protocol name: `initial_tiles` is `--initial-tiles`.
    static func dashed(_ name: String) -> String { String(name.map { $0 == "_" ? "-" : $0 }) }

    // MARK: Command line and documentation

    /// The option's value in the default configuration.
    public var defaultValue: JSONValue { value(ServerConfig.Settings(ServerConfig())) }

    /// The default as the help shows it: the flag text that sets it (`4`, `off`, `noop`, `a,b`).
    public var helpDefault: String {
        if let defaultNote { return defaultNote }
        switch defaultValue {
        case .null: return "off"
        case .string(let text): return text
        case .array(let items): return items.compactMap(\.string).joined(separator: ",")
        case let other: return other.serialized
        }
    }

    /// The JSON value a flag's text stands for: `off` is `null` for an option that can be off, a
    /// list is comma-separated, and numbers are numbers (so a range error names the number).
    public func value(ofFlag text: String) -> JSONValue {
        switch constraint {
        case .list: return .array(text.split(separator: ",").map { .string(String($0)) })
        case .integer(_, nullable: true) where text == "off": return .null
        default:
            if let integer = Int128(text) { return .integer(integer) }
            if let number = Double(text) { return .double(number) }
            return .string(text)
        }
    }

    /// The allowed values as the document states them.
    var documentedAllowed: String {
        let allowed: String =
            switch constraint {
            case .integer(let range, let nullable):
                (nullable ? "`null` (off) or " : "")
                    + (range.upperBound >= Int(Int64.max) ? "≥ \(range.lowerBound)" : "\(range.lowerBound)…\(Self.spelled(range.upperBound))")
            case .number(let range): "\(Self.spelled(range.lowerBound))…\(Self.spelled(range.upperBound))"
            case .choice(let choices): choices.map { "`\"\($0)\"`" }.joined(separator: ", ")
            case .list(let names): "any of " + names.map { "`\($0)`" }.joined(separator: ", ")
            }
        return allowed + note
    }

    /// A bound as the document spells it: `2^50` rather than its 16 digits, `1` rather than `1.0`.
    static func spelled(_ bound: Int) -> String {
        bound > 1 << 20 && bound.nonzeroBitCount == 1 ? "2^\(bound.trailingZeroBitCount)" : "\(bound)"
    }

    static func spelled(_ bound: Double) -> String {
        bound.rounded() == bound && abs(bound) < 1e15 ? "\(Int(bound))" : "\(bound)"
    }

    /// The table as data, for the in-process doors (`g2048_options` in C, and Python's options): one object per
    /// option with its `name`, `flag`, `type` (`integer`, `number`, `choice` or `list`), bounds or choices,
    /// whether it may be `null` (off), its `default`, whether it is a rules option (`rules`: what records and
    /// weights files keep) (and what the default follows, when it follows other
    /// options), and its `help`.
    public static var tableJSON: JSONValue {
        .array(
            all.map { option in
                var members: [(String, JSONValue)] = [("name", .string(option.name)), ("flag", .string("--" + option.flag))]
                switch option.constraint {
                case .integer(let range, let nullable):
                    members += [
                        ("type", "integer"), ("min", .integer(Int128(range.lowerBound))),
                        ("max", .integer(Int128(range.upperBound))), ("nullable", .bool(nullable)),
                    ]
                case .number(let range):
                    members += [("type", "number"), ("min", .double(range.lowerBound)), ("max", .double(range.upperBound))]
                case .choice(let choices): members += [("type", "choice"), ("choices", .array(choices.map { .string($0) }))]
                case .list(let choices): members += [("type", "list"), ("choices", .array(choices.map { .string($0) }))]
                }
                members.append(("default", option.defaultValue))
                members.append(("rules", .bool(option.rules != nil)))
                if let defaultNote = option.defaultNote { members.append(("default_follows", .string(defaultNote))) }
                members.append(("help", .string(option.help + (option.note.isEmpty ? "" : " Allowed: \(option.documentedAllowed)."))))
                return .object(members)
            })
    }

    /// The options table of docs/PROTOCOL.md: option, flag, default and allowed values.
    public static var markdownTable: String {
        var lines = ["| option | flag | default | allowed |", "|---|---|---|---|"]
        for option in all {
            let defaultText = option.defaultNote.map { "`\($0)`" } ?? "`\(option.defaultValue.serialized)`"
            lines.append("| `\(option.name)` | `--\(option.flag)` | \(defaultText) | \(option.documentedAllowed) |")
        }
        return lines.joined(separator: "\n")
    }
}
