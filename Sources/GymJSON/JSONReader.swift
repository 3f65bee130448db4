/// Typed reading of a JSON value and its members, one layer for every reader of JSON input (the
/// server's request parameters, episode records).
///
///     let config = try JSONReader(json).member("config").object()
///     let rows = try config.member("rows").integer(in: 2...8)   // Int128
///
/// Each access either returns the typed value or throws a ``JSONReadError`` that says where the
/// value is, what was expected and what was received; callers word the message.
public struct JSONReader: Sendable {
    /// The value read.
    public let value: JSONValue
    /// Its path from the top (`config.rows`, `seeds[2]`), "" for the top itself.
    public let path: String

    /// A reader of `value` at `path`.
    public init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    func error(_ expected: JSONReadError.Expected, _ failure: JSONReadError.Failure) -> JSONReadError {
        JSONReadError(path: path, expected: expected, failure: failure, value: value)
    }

    /// The path of the member `name` of this value.
    public func path(of name: String) -> String { path.isEmpty ? name : path + "." + name }

    // MARK: Members

    /// The member `name`.
    ///
    /// - Throws: ``JSONReadError`` when this value is not an object (at this path) or has no such member.
    public func member(_ name: String) throws(JSONReadError) -> JSONReader {
        guard case .object = value else { throw error(.object, .wrongKind) }
        guard let member = value[name] else {
            throw JSONReadError(path: path(of: name), expected: .object, failure: .missing, value: nil)
        }
        return JSONReader(member, path: path(of: name))
    }

    /// The member `name`, or `nil` when it is absent or `null`.
    public func optionalMember(_ name: String) throws(JSONReadError) -> JSONReader? {
        guard case .object = value else { throw error(.object, .wrongKind) }
        guard let member = value[name], member != .null else { return nil }
        return JSONReader(member, path: path(of: name))
    }

    /// Refuses a member not in `names`, or one given twice, by its path: a misspelt member must not
    /// silently fall back to its default.
    public func allowOnly(_ names: Set<String>) throws(JSONReadError) {
        guard case .object(let members) = value else { throw error(.object, .wrongKind) }
        var seen: Set<String> = []
        for (name, member) in members {
            let failure: JSONReadError.Failure
            if !names.contains(name) {
                failure = .unknownMember
            } else if !seen.insert(name).inserted {
                failure = .duplicateMember
            } else {
                continue
            }
            throw JSONReadError(path: path(of: name), expected: .members(names.sorted()), failure: failure, value: member)
        }
    }

    // MARK: Values

    /// The value as an object (its members are read with ``member(_:)``).
    public func object() throws(JSONReadError) -> JSONReader {
        guard case .object = value else { throw error(.object, .wrongKind) }
        return self
    }

    /// The members of an object, in their order.
    public func members() throws(JSONReadError) -> [(String, JSONValue)] {
        guard case .object(let members) = value else { throw error(.object, .wrongKind) }
        return members
    }

    /// The elements, each with its path (`seeds[2]`).
    public func array() throws(JSONReadError) -> [JSONReader] {
        guard case .array(let items) = value else { throw error(.array, .wrongKind) }
        return items.enumerated().map { JSONReader($1, path: "\(path)[\($0)]") }
    }

    /// The value as a string.
    public func string() throws(JSONReadError) -> String {
        guard case .string(let text) = value else { throw error(.string, .wrongKind) }
        return text
    }

    /// The value as a bool.
    public func bool() throws(JSONReadError) -> Bool {
        guard case .bool(let flag) = value else { throw error(.bool, .wrongKind) }
        return flag
    }

    /// The value as an integer in `range`: an integer literal, exactly. `5.0`, `5e0` and a number
    /// beyond 38 digits are numbers, not integers, and are refused: nothing is rounded.
    public func integer(in range: ClosedRange<Int128>) throws(JSONReadError) -> Int128 {
        guard case .integer(let integer) = value else { throw error(.integer(range), .wrongKind) }
        guard range.contains(integer) else {
            throw JSONReadError(path: path, expected: .integer(range), failure: .notAllowed, value: .integer(integer))
        }
        return integer
    }

    /// The value as a number (an integer or not) in `range`.
    public func number(in range: ClosedRange<Double> = -Double.infinity...Double.infinity) throws(JSONReadError) -> Double {
        guard let number = value.number else { throw error(.number(range), .wrongKind) }
        guard range.contains(number) else { throw error(.number(range), .notAllowed) }
        return number
    }

    /// The value as one of `names`.
    public func choice(_ names: [String]) throws(JSONReadError) -> String {
        guard case .string(let text) = value else { throw error(.oneOf(names), .wrongKind) }
        guard names.contains(text) else { throw error(.oneOf(names), .notAllowed) }
        return text
    }

    /// The value as the case of `Choice` it names.
    public func choice<Choice: CaseIterable & RawRepresentable<String>>(of _: Choice.Type = Choice.self) throws(JSONReadError) -> Choice {
        let names = Choice.allCases.map(\.rawValue)
        guard case .string(let text) = value else { throw error(.oneOf(names), .wrongKind) }
        guard let choice = Choice(rawValue: text) else { throw error(.oneOf(names), .notAllowed) }
        return choice
    }
}
