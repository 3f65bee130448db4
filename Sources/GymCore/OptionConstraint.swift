/// The values an option allows, whatever the game: every door checks a value against it and words its
/// messages and documents from it.
///
///     OptionConstraint.integer(2...8, nullable: false).allows(.integer(9))   // false
public enum OptionConstraint: Sendable, Hashable {
    /// An integer in the range; with `nullable`, also `null` (off).
    case integer(ClosedRange<Int>, nullable: Bool)
    /// A number in the range.
    case number(ClosedRange<Double>)
    /// One of these names.
    case choice([String])
    /// A list of any of these names.
    case list([String])
    /// `true` or `false`.
    case boolean

    /// Whether `value` is one the constraint allows: of its type, and within its range or names.
    public func allows(_ value: OptionValue) -> Bool {
        switch (self, value) {
        case (.integer(_, let nullable), .null): nullable
        case (.integer(let range, _), .integer(let integer)): range.contains(integer)
        case (.number(let range), .number(let number)): range.contains(number)
        case (.choice(let names), .string(let name)): names.contains(name)
        case (.list(let names), .list(let given)): given.allSatisfy(names.contains)
        case (.boolean, .boolean): true
        default: false
        }
    }

    /// What the constraint allows, as a message completes "must be …": "an integer from 2 to 8", "a number
    /// from 0 to 1", "one of noop, terminate or reject", "true or false".
    public var expectation: String {
        switch self {
        case .integer(let range, let nullable): Self.expectation(integersIn: range) + (nullable ? " or null (off)" : "")
        case .number(let range): Self.expectation(numbersIn: range)
        case .choice(let names): "one of " + names.listedWithOr
        case .list(let names): "a list of any of " + names.listedWithOr
        case .boolean: "true or false"
        }
    }
}

extension OptionConstraint {
    /// The one wording of an integer range, as a message completes "must be …": "an integer from 2 to 8". Every
    /// door's message of an integer out of range (options, flags, parameters, records) says it this way.
    public static func expectation<Integer: BinaryInteger>(integersIn range: ClosedRange<Integer>) -> String {
        "an integer from \(range.lowerBound) to \(range.upperBound)"
    }

    /// The one wording of a number range: "a number from 0.0 to 1.0".
    public static func expectation(numbersIn range: ClosedRange<Double>) -> String {
        // A range open at the top up to the largest finite number: a huge literal (`1e999`) reads as infinity.
        if range.upperBound == .greatestFiniteMagnitude { return "a finite number of at least \(range.lowerBound)" }
        return "a number from \(range.lowerBound) to \(range.upperBound)"
    }
}

extension Array where Element == String {
    /// The names as a sentence lists them: "noop, terminate or reject".
    public var listedWithOr: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}
