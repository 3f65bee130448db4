/// Appends compact JSON text to a byte buffer: the one place the server turns values into text.
///
///     var writer = JSONWriter()
///     writer.write(.object([("jsonrpc", "2.0"), ("id", 1)]))
///     String(decoding: writer.bytes, as: UTF8.self)   // {"jsonrpc":"2.0","id":1}
///
/// Output is deterministic: object members keep their order, numbers print the
/// same way on every run (integers in decimal, doubles in Swift's shortest
/// round-trip form, non-finite doubles as `null`).
public struct JSONWriter: Sendable {
    /// The text so far, UTF-8.
    public var bytes: [UInt8] = []

    /// Creates an empty writer.
    public init() { bytes.reserveCapacity(256) }

    /// Appends `value`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .integer(let i): raw(String(i))
        case .double(let d): write(d)
        case .string(let s): write(string: s)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, element)) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(string: key)
                bytes.append(UInt8(ascii: ":"))
                write(element)
            }
            bytes.append(UInt8(ascii: "}"))
        case .raw(let text): bytes.append(contentsOf: text)
        }
    }

    /// Appends an integer, without allocating.
    @inlinable
    public mutating func write<T: BinaryInteger>(integer: T) {
        if integer == 0 { return bytes.append(UInt8(ascii: "0")) }
        var magnitude = integer < 0 ? UInt64(-Int128(integer)) : UInt64(integer)
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits come out least significant first; write them, then reverse them in place.
        let first = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        bytes[first...].reverse()
    }

    /// Appends `true` or `false`.
    @inlinable
    public mutating func write(bool: Bool) { raw(bool ? "true" : "false") }

    /// Appends a single byte of JSON punctuation (`[`, `,`, `:` …).
    @inlinable
    public mutating func punctuation(_ byte: Unicode.Scalar) { bytes.append(UInt8(ascii: byte)) }

    /// Appends `"key":`.
    @inlinable
    public mutating func key(_ key: String) {
        write(string: key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a double; NaN and infinities, which JSON cannot hold, become `null`.
    public mutating func write(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        raw(value.description)
    }

    /// Appends text that is already valid JSON.
    @inlinable
    public mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends a quoted, escaped string.
    public mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                raw("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The compact JSON text of this value.
    public var serialized: String {
        var writer = JSONWriter()
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `text` in JSON quotes and escapes, cut to `limit` characters with "…": untrusted text (a record's member,
    /// a weights file's rules name) shown in a message, which stays on one line.
    public static func quoted(_ text: String, limit: Int) -> String {
        let shown = JSONValue.string(String(text.prefix(limit))).serialized
        return text.count > limit ? shown + "…" : shown
    }
}
