import Game2048

extension RecordValue {
    /// The value as a record line writes it, as a replay's mismatch quotes it and as the protocol's
    /// `record_members` gives it: one conversion, so that the three agree.
    public var json: JSONValue {
        switch self {
        case .null: .null
        case .integer(let integer): .integer(Int128(integer))
        case .number(let number): JSONValue(OptionValue.number(number))
        case .boolean(let flag): .bool(flag)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(\.json))
        }
    }
}
