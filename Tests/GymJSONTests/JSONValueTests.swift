import Testing
@testable import GymJSON

struct JSONValueTests {
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test(arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)),
        ("0", .integer(0)), ("-12", .integer(-12)), ("18446744073709551615", .integer(Int128(UInt64.max))),
        ("2.5", .double(2.5)), ("1e3", .double(1000)), ("-0.25E-1", .double(-0.025)),
        (#""a\"b\\c\/\n\t\u00e9\ud83d\ude00""#, .string("a\"b\\c/\n\té😀")),
        ("[1, [2], {}]", .array([1, [2], .object([])])),
        (#" { "k" : [ true , null ] , "n" : 1 } "#, .object([("k", .array([.bool(true), .null])), ("n", 1)])),
    ])
    func parsesValidJSON(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test(arguments: [
        ("", "unexpected end of input at byte 0"),
        ("{", "expected a string key at byte 1"),
        ("[1,", "unexpected end of input at byte 3"),
        ("[1 2]", "expected ',' or ']' in an array at byte 3"),
        ("tru", "invalid literal, expected 'true' at byte 3"),
        ("01", "unexpected data after the JSON value at byte 1"),
        ("1.", "invalid number: digits expected after '.' at byte 2"),
        ("\"abc", "unterminated string at byte 4"),
        ("\"a\u{01}\"", "control character in a string at byte 2"),
        (#""\x""#, "invalid escape '\\x' at byte 3"),
        (#""\ud800""#, "unpaired surrogate in \\u escape at byte 7"),
        ("{\"a\":1}x", "unexpected data after the JSON value at byte 7"),
        ("'a'", "unexpected character ''' at byte 0"),
    ])
    func rejectsInvalidJSONWithPosition(text: String, message: String) {
        #expect(throws: JSONParseError.self) { try Self.parse(text) }
        do {
            _ = try Self.parse(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func rejectsInvalidUTF8InStrings() {
        let bytes: [UInt8] = [0x22, 0xFF, 0xFE, 0x22]
        #expect(throws: JSONParseError(reason: "invalid UTF-8 in a string", offset: 1)) { try JSONValue.parse(bytes) }
    }

    @Test func boundsNestingDepth() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try Self.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try Self.parse(ok).array != nil)
    }

    @Test func hugeNumbersBecomeDoublesNotCrashes() throws {
        let huge = String(repeating: "9", count: 400)
        #expect(try Self.parse(huge) == .double(.infinity))
        #expect(try Self.parse("1e999") == .double(.infinity))
    }

    @Test func serializationRoundTripsAndKeepsKeyOrder() throws {
        let value: JSONValue = .object([("z", 1), ("a", .array([.bool(true), .null, .double(2.5)])), ("s", "q\"\\\n\u{1}é")])
        let text = value.serialized
        #expect(text == #"{"z":1,"a":[true,null,2.5],"s":"q\"\\\n\u0001é"}"#)
        #expect(try Self.parse(text) == value)
    }

    @Test func nonFiniteDoublesSerializeAsNull() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity)]).serialized == "[null,null]")
    }
}
