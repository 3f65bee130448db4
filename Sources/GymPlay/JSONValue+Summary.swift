import GymJSON

extension JSONValue {
    /// A short description of the value's kind and, for scalars, the value, for record and best-score error messages.
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .string(let s): JSONValue.quoted(s, limit: 20)
        case .array: "an array"
        case .object: "an object"
        case .raw: "JSON text"
        }
    }

    /// Parses one line or file of text.
    static func parse(text: some StringProtocol) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }
}
