import Testing
@testable import GymJSON

/// The reader returns typed values and, for a bad one, where it is, what was expected and what came.
struct JSONReaderTests {
    static let record: JSONValue = .object([
        ("rows", 4), ("p", 0.5), ("name", "noop"), ("last", true), ("config", .object([("cols", 9)])),
        ("seeds", [1, "x"]), ("off", .null), ("whole", 5.0),
    ])
    let reader = JSONReader(Self.record)

    @Test func typedMembersReadBack() throws {
        #expect(try reader.member("rows").integer(in: 2...8) == 4)
        #expect(try reader.member("p").number(in: 0...1) == 0.5)
        #expect(try reader.member("rows").number() == 4)
        #expect(try reader.member("name").choice(["noop", "reject"]) == "noop")
        #expect(try reader.member("last").bool())
        #expect(try reader.optionalMember("off") == nil && reader.optionalMember("absent") == nil)
        #expect(try reader.member("seeds").array().map(\.path) == ["seeds[0]", "seeds[1]"])
        try reader.allowOnly(["rows", "p", "name", "last", "config", "seeds", "off", "whole"])
    }

    /// Each refusal: the reading, and the error it must give (path, expectation, failure, value).
    @Test func badValuesAreRefusedWithWhereWhatAndWhatCame() {
        let cases: [((JSONReader) throws -> Void, JSONReadError)] = [
            ({ r in _ = try r.member("config").member("rows") }, JSONReadError(path: "config.rows", expected: .object, failure: .missing, value: nil)),
            (
                { r in _ = try r.member("config").member("cols").integer(in: 2...8) },
                .init(path: "config.cols", expected: .integer(2...8), failure: .notAllowed, value: 9)
            ),
            ({ r in _ = try r.member("name").integer(in: 2...8) }, .init(path: "name", expected: .integer(2...8), failure: .wrongKind, value: "noop")),
            ({ r in _ = try r.member("whole").integer(in: 0...9) }, .init(path: "whole", expected: .integer(0...9), failure: .wrongKind, value: 5.0)),
            ({ r in _ = try r.member("p").number(in: 0...0.25) }, .init(path: "p", expected: .number(0...0.25), failure: .notAllowed, value: 0.5)),
            ({ r in _ = try r.member("name").choice(["reject"]) }, .init(path: "name", expected: .oneOf(["reject"]), failure: .notAllowed, value: "noop")),
            ({ r in _ = try r.member("rows").string() }, .init(path: "rows", expected: .string, failure: .wrongKind, value: 4)),
            ({ r in _ = try r.member("rows").bool() }, .init(path: "rows", expected: .bool, failure: .wrongKind, value: 4)),
            ({ r in _ = try r.member("rows").object() }, .init(path: "rows", expected: .object, failure: .wrongKind, value: 4)),
            (
                { r in _ = try r.member("seeds").array()[1].integer(in: 0...1) },
                .init(path: "seeds[1]", expected: .integer(0...1), failure: .wrongKind, value: "x")
            ),
            ({ r in _ = try r.member("rows").member("x") }, .init(path: "rows", expected: .object, failure: .wrongKind, value: 4)),
            ({ r in try r.member("config").allowOnly(["rows"]) }, .init(path: "config.cols", expected: .members(["rows"]), failure: .unknownMember, value: 9)),
        ]
        for (read, expected) in cases {
            #expect(throws: expected) { try read(reader) }
        }
    }

    @Test func aMemberGivenTwiceIsRefused() {
        let twice = JSONReader(.object([("a", 1), ("a", 2)]))
        #expect(throws: JSONReadError(path: "a", expected: .members(["a"]), failure: .duplicateMember, value: 2)) {
            try twice.allowOnly(["a"])
        }
    }
}
