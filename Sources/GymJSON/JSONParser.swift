/// Why a byte sequence is not acceptable JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. "unterminated string".
    public var reason: String
    /// The offset of the offending byte from the start of the text.
    public var offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects `parse(_:maxDepth:)` accepts by default.
    public static let defaultMaxDepth = 64

    /// Parses one JSON text (RFC 8259), with surrounding whitespace allowed.
    ///
    ///     try JSONValue.parse(Array("[1, 2.5, \"x\"]".utf8))   // .array([1, 2.5, "x"])
    ///
    /// Integers that fit in 128 bits stay exact; other numbers become `Double`s.
    /// Strings must be valid UTF-8 without raw control characters.
    ///
    /// A number that is the value of a member named `numberTextKey` comes back as
    /// ``raw(_:)`` holding its text as written, so that it can be echoed exactly
    /// (a JSON-RPC `id` of `1e400`, `-0` or 40 digits would change as a number).
    ///
    /// - Throws: ``JSONParseError`` naming the problem and its byte offset; nesting
    ///   deeper than `maxDepth` is an error rather than a stack overflow.
    /// - Complexity: O(n) in the length of the text.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth,
        numberTextKey: String? = nil
    ) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
            parser.numberTextKey = numberTextKey
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }
}

/// A recursive-descent JSON parser over a byte buffer.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// Numbers under a member of this name are kept as their text (``JSONValue/raw(_:)``).
    var numberTextKey: String?
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: position) }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(printable(byte))'")
        }
    }

    func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in text {
            guard current == expected else { throw error("invalid literal, expected '\(literal)'") }
            position += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if try opens(closing: UInt8(ascii: "}"), depth: depth) { return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
            position += 1
            skipWhitespace()
            if key == numberTextKey, let first = current, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                let start = position
                _ = try parseNumber()
                members.append((key, .raw(Array(bytes[start..<position]))))
            } else {
                members.append((key, try parseValue(depth: depth)))
            }
            if try closes(UInt8(ascii: "}"), "object") { return .object(members) }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        var elements: [JSONValue] = []
        if try opens(closing: UInt8(ascii: "]"), depth: depth) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            if try closes(UInt8(ascii: "]"), "array") { return .array(elements) }
        }
    }

    /// Steps over an object's or an array's opening bracket; true when `closing` follows at once
    /// (an empty container, also stepped over).
    mutating func opens(closing: UInt8, depth: Int) throws(JSONParseError) -> Bool {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        position += 1
        skipWhitespace()
        guard current == closing else { return false }
        position += 1
        return true
    }

    /// After an element of a `container`: steps over the comma (false) or the `closing` bracket (true).
    mutating func closes(_ closing: UInt8, _ container: String) throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","):
            position += 1
            return false
        case closing:
            position += 1
            return true
        case nil: throw error("unterminated \(container)")
        default: throw error("expected ',' or '\(UnicodeScalar(closing))' in an \(container)")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw error("invalid number")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") { position += 1 }
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { throw error("invalid number: digits expected after '.'") }
            while let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { throw error("invalid number: digits expected in the exponent") }
            while let d = current, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") { position += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        // Integers up to 38 digits fit in Int128 exactly; longer ones fall through to Double.
        if isInteger, position - start <= 39, let value = Int128(text) { return .integer(value) }
        guard let value = Double(text) else { throw error("invalid number") }
        return .double(value)
    }

    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var scalars: [UInt8] = []
        var runStart = position
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                position += 1
                break
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                position += 1
                try parseEscape(into: &scalars)
                runStart = position
                continue
            }
            position += 1
        }
        guard let string = String(validating: scalars, as: UTF8.self) else {
            throw JSONParseError(reason: "invalid UTF-8 in a string", offset: runStart)
        }
        return string
    }

    mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var code = try parseHex4()
            if (0xD800...0xDBFF).contains(code) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in \\u escape")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw error("unpaired surrogate in \\u escape")
            }
            output.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
        default: throw error("invalid escape '\\\(printable(byte))'")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unterminated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}
