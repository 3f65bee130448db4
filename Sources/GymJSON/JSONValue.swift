/// A JSON value, parsed and printed by this module's own code.
///
///     let value = try JSONValue.parse(#"{"id": 1, "params": {"action": "left"}}"#.utf8)
///     value["params"]?["action"]?.string   // "left"
///     JSONValue.object([("ok", true)]).serialized   // {"ok":true}
///
/// Why not Foundation's `JSONSerialization`: the server must answer byte-identically
/// on every run (objects keep their key order here), tell a huge integer from a
/// float (seeds are full 64-bit), bound nesting depth, and reject invalid UTF-8
/// with a precise message; and it is on the hot path of every step.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in 64 bits, signed or unsigned.
    case integer(Int128)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, with its keys in order.
    case object([(String, JSONValue)])
    /// JSON text that is already serialized, written verbatim: the server's hot
    /// path writes large results straight into bytes instead of building a tree.
    /// The parser produces it only for numbers under `numberTextKey` (see ``parse(_:maxDepth:numberTextKey:)``).
    case raw([UInt8])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.raw(let a), .raw(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized)
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    /// The path of the first object member whose name repeats an earlier one in the
    /// same object, searching depth first: `"seed"`, `"options.board"`, `"[2].id"`; `nil` when there is none.
    ///
    /// RFC 8259 leaves duplicate names undefined, and readers disagree on which one wins;
    /// refusing them is the one unambiguous rule.
    public var firstDuplicateKey: String? {
        switch self {
        case .object(let members):
            var seen = Set<String>(minimumCapacity: members.count)
            for (name, _) in members where !seen.insert(name).inserted { return name }
            for (name, value) in members {
                if let inner = value.firstDuplicateKey { return name + (inner.hasPrefix("[") ? "" : ".") + inner }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let inner = element.firstDuplicateKey { return "[\(index)]" + (inner.hasPrefix("[") ? "" : ".") + inner }
            }
            return nil
        default: return nil
        }
    }

    /// The string, if this is a string.
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The Boolean, if this is a Boolean.
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The integer, if this is an integer.
    public var integer: Int128? { if case .integer(let i) = self { i } else { nil } }
    /// The number as a `Double`, if this is a number.
    public var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    public var object: [(String, JSONValue)]? { if case .object(let o) = self { o } else { nil } }

    /// The JSON type name used in error messages: `null`, `boolean`, `integer`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .raw: "JSON text"
        }
    }
}

// No `ExpressibleByNilLiteral`: with it, `nil` in a function returning
// `JSONValue?` would silently mean `.null` instead of "no value".
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByFloatLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .integer(Int128(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(floatLiteral value: Double) { self = .double(value) }
}
