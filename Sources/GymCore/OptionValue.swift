/// The value of an option as an engine reports it, whatever the game and the door: the protocol and records write it as
/// JSON, the CLI as a flag's text, the C ABI and Python read it from JSON.
///
///     RulesOption.members(of: Rules())   // [("rows", .integer(4)), …, ("win_tile", .null), …]
public enum OptionValue: Hashable, Sendable {
    /// Off: an optional option that is not set (`null` in JSON, `off` on the command line).
    case null
    /// An integer.
    case integer(Int)
    /// A number that need not be whole.
    case number(Double)
    /// A name: one of a choice's cases.
    case string(String)
    /// Names: some of a list's cases (the info fields).
    case list([String])
    /// A switch: `true` or `false` (`--reveal-seen` on the command line, `true` in JSON).
    case boolean(Bool)
}

extension OptionValue {
    /// The value as a command-line flag gives it: `off`, `2048`, `0.1`, `noop`, `action_mask,score`.
    public var flagText: String {
        switch self {
        case .null: "off"
        case .integer(let integer): "\(integer)"
        case .number(let number): "\(number)"
        case .string(let text): text
        case .list(let names): names.joined(separator: ",")
        case .boolean(let flag): "\(flag)"
        }
    }
}

extension OptionValue: CustomStringConvertible {
    /// The value as JSON writes it, for messages: `null`, `5`, `0.1`, `"noop"`.
    public var description: String {
        switch self {
        case .null: "null"
        case .integer(let integer): "\(integer)"
        case .number(let number): "\(number)"
        case .string(let text): "\"\(text)\""
        case .list(let names): "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        case .boolean(let flag): "\(flag)"
        }
    }
}
