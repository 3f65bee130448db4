import Game2048

extension JSONValue {
    /// An option's value as JSON: `null`, an integer, a number, a string, a list of strings or a boolean.
    public init(_ value: OptionValue) {
        switch value {
        case .null: self = .null
        case .integer(let integer): self = .integer(Int128(integer))
        case .number(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .list(let names): self = .array(names.map { .string($0) })
        case .boolean(let flag): self = .bool(flag)
        }
    }

    /// `rules` as a JSON object of rules options by name, in `RulesOption.all` order: what records, player and
    /// solution info give as their rules.
    public init(rules: Rules) { self = .object(RulesOption.members(of: rules).map { ($0, JSONValue($1)) }) }
}
