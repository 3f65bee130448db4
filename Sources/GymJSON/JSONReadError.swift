/// Why a ``JSONReader`` refused a value: where it is, what was expected and what was there.
///
/// The reader words no message: each caller words it in its own format (a JSON-RPC error, a line of
/// an episode record), from the member path, the expectation and the value received.
public struct JSONReadError: Error, Hashable, Sendable {
    /// What the reader expected.
    public enum Expected: Hashable, Sendable {
        /// An object.
        case object
        /// An array.
        case array
        /// A string.
        case string
        /// `true` or `false`.
        case bool
        /// An integer in the range.
        case integer(ClosedRange<Int128>)
        /// A number (an integer or not) in the range.
        case number(ClosedRange<Double>)
        /// One of these strings.
        case oneOf([String])
        /// An object with only these members, each once.
        case members([String])
    }

    /// How the value failed the expectation.
    public enum Failure: Hashable, Sendable {
        /// The member is absent (``JSONReadError/value`` is `nil`).
        case missing
        /// The value is of another kind (a string where a number was expected).
        case wrongKind
        /// The value is of the right kind but not allowed (out of range, not one of the names).
        case notAllowed
        /// The path names a member the object may not have.
        case unknownMember
        /// The path names a member the object has twice.
        case duplicateMember
    }

    /// The path of the value: member names joined by dots and indices in brackets (`config.rows`,
    /// `seeds[2]`), or the reader's own path for the value itself ("" at the top).
    public let path: String
    /// What was expected.
    public let expected: Expected
    /// How the value failed.
    public let failure: Failure
    /// The value received, or `nil` when it is missing.
    public let value: JSONValue?

    /// A read error.
    public init(path: String, expected: Expected, failure: Failure, value: JSONValue?) {
        self.path = path
        self.expected = expected
        self.failure = failure
        self.value = value
    }
}
