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

    /// Every option of `game` as a JSON object in the game's order, at `values` (a missing one at its default): a
    /// record's, a protocol's and a verification's `config`.
    public init(options values: [String: OptionValue], of game: GameDeclaration) {
        self = .object(game.options.map { ($0.name, JSONValue(values[$0.name] ?? $0.defaultValue)) })
    }

    /// `rules` as a JSON object of rules options by name, in `RulesOption.all` order: what records, player and
    /// solution info give as their rules.
    public init(rules: Rules) { self = .object(RulesOption.members(of: rules).map { ($0, JSONValue($1)) }) }
}

extension JSONReader {
    /// The value as an option declared with `constraint` allows it (`null` for an integer that can be off), read
    /// as every door reads an option: an integer exactly, a number in its range, a choice by name.
    public func optionValue(_ constraint: OptionConstraint) throws(JSONReadError) -> OptionValue {
        switch constraint {
        case .integer(_, nullable: true) where value == .null: return .null
        case .integer(let range, _): return .integer(Int(try integer(in: Int128(range.lowerBound)...Int128(range.upperBound))))
        case .number(let range): return .number(try number(in: range))
        case .choice(let names): return .string(try choice(names))
        case .list(let names): return .list(try array().map { item throws(JSONReadError) in try item.choice(names) })
        case .boolean: return .boolean(try bool())
        }
    }
}
