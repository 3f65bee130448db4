import Game2048
import GymJSON

/// The environment's options as the server reads and shows them: `Game2048.EnvironmentOption`, the one table of
/// options (declared in the core), with its JSON reading, its flags' text and its documents.
public typealias ServerOption = EnvironmentOption

extension EnvironmentOption {
    /// The value of this option in `json`, checked by its constraint (``OptionConstraint/read(_:name:)``).
    ///
    /// - Throws: ``RPCError/invalidOption(_:reason:)`` naming what is allowed and what was received.
    func read(_ json: JSONValue) throws(RPCError) -> OptionValue { try constraint.read(json, name: name) }

    // MARK: Command line and documentation

    /// The option's value in the default configuration, as JSON.
    public var defaultJSON: JSONValue { JSONValue(defaultValue) }

    /// The default as the help shows it: the flag text that sets it (`4`, `off`, `noop`, `a,b`).
    public var helpDefault: String { defaultNote ?? defaultValue.flagText }

    /// The JSON value a flag's text stands for: `off` is `null` for an option that can be off, a
    /// list is comma-separated, and numbers are numbers (so a range error names the number).
    public func value(ofFlag text: String) -> JSONValue {
        switch constraint {
        case .list: return .array(text.split(separator: ",").map { .string(String($0)) })
        case .integer(_, nullable: true) where text == "off": return .null
        case .boolean where text == "true" || text == "false": return .bool(text == "true")
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
            case .boolean: "`true` or `false`"
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
    /// option with its `name`, `flag`, `type` (`integer`, `number`, `choice`, `list` or `boolean`), bounds or choices,
    /// whether it may be `null` (off), its `default`, whether it is a rules option (`rules`: what records and
    /// weights files keep) (and what the default follows, when it follows other
    /// options), and its `help`.
    public static var tableJSON: JSONValue {
        .array(
            all.map { option in
                var members: [(String, JSONValue)] = [("name", .string(option.name)), ("flag", .string("--" + option.flag))]
                members += option.constraint.tableMembers
                members.append(("default", option.defaultJSON))
                members.append(("rules", .bool(option.rules != nil)))
                if let defaultNote = option.defaultNote { members.append(("default_follows", .string(defaultNote))) }
                members.append(("help", .string(option.help + (option.note.isEmpty ? "" : " Allowed: \(option.documentedAllowed)."))))
                return .object(members)
            })
    }

    /// The rules options table of docs/ENVIRONMENT.md: the option as every door names it, as Swift's `Rules` spells
    /// it, its default, the values allowed and its help.
    public static var rulesMarkdownTable: String {
        var lines = ["| option | `Rules` | default | allowed | meaning |", "|---|---|---|---|---|"]
        for option in all {
            guard let rules = option.rules else { continue }
            lines.append(
                "| `\(option.name)` | `\(rules.swiftName)` | `\(option.defaultJSON.serialized)` | \(option.documentedAllowed) | \(option.help) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The options table of docs/PROTOCOL.md: option, flag, default and allowed values.
    public static var markdownTable: String {
        var lines = ["| option | flag | default | allowed |", "|---|---|---|---|"]
        for option in all {
            let defaultText = option.defaultNote.map { "`\($0)`" } ?? "`\(option.defaultJSON.serialized)`"
            lines.append("| `\(option.name)` | `--\(option.flag)` | \(defaultText) | \(option.documentedAllowed) |")
        }
        return lines.joined(separator: "\n")
    }
}

extension OptionConstraint {
    /// The constraint as the options tables give it (`g2048_options`, `g2048_games`): its `type` (`integer`,
    /// `number`, `choice`, `list` or `boolean`), and its bounds or choices, and whether it may be `null` (off).
    var tableMembers: [(String, JSONValue)] {
        switch self {
        case .integer(let range, let nullable):
            [("type", "integer"), ("min", .integer(Int128(range.lowerBound))), ("max", .integer(Int128(range.upperBound))), ("nullable", .bool(nullable))]
        case .number(let range): [("type", "number"), ("min", .double(range.lowerBound)), ("max", .double(range.upperBound))]
        case .choice(let choices): [("type", "choice"), ("choices", .array(choices.map { .string($0) }))]
        case .list(let choices): [("type", "list"), ("choices", .array(choices.map { .string($0) }))]
        case .boolean: [("type", "boolean")]
        }
    }

    /// The value of option `name` in `json`, checked by this constraint, for every game's options: an integer
    /// exactly (`5.0` and `5e0` are refused, as for seeds and actions), a number, one of its names, a list of
    /// them, or a boolean.
    ///
    /// - Throws: ``RPCError/invalidOption(_:reason:)`` naming what is allowed and what was received.
    func read(_ json: JSONValue, name: String) throws(RPCError) -> OptionValue {
        // A list's items are named by the option alone, as the protocol's messages always have.
        guard case .list(let choices) = self else {
            return try Params.option(name, { reader throws(JSONReadError) in try reader.optionValue(self) }, json)
        }
        guard let list = json.array else { throw .invalidOption(name, reason: "must be a list of field names, got \(json.typeName)") }
        var names: [String] = []
        for item in list { names.append(try Params.option(name, { reader throws(JSONReadError) in try reader.choice(choices) }, item)) }
        return .list(names)
    }
}
