import Game2048

/// One field of `Game2048.Rules` as the protocol's `make` and `spec` and the episode records
/// spell it, declared once.
///
/// ``RulesOption/all`` is the one list: the server's option table takes its rules options from it,
/// and episode records write and read their `config` block through it. Adding a rules option is an
/// entry here and its field in ``RulesSettings``, plus the rule itself in `Rules`.
public struct RulesOption: Sendable {
    /// The option's type, and where it lives in ``RulesSettings``.
    public enum Kind: Sendable {
        /// An integer.
        case integer(WritableKeyPath<RulesSettings, Int> & Sendable)
        /// An integer or `null` (off).
        case optionalInteger(WritableKeyPath<RulesSettings, Int?> & Sendable)
        /// A number.
        case number(WritableKeyPath<RulesSettings, Double> & Sendable)
        /// One of a few names.
        case choice([String], WritableKeyPath<RulesSettings, String> & Sendable)
    }

    /// The snake_case name (`initial_tiles`).
    public let name: String
    /// The name `Game2048.RulesError.field` gives the option (`initialTiles`).
    public let errorField: String
    /// The type and the field.
    public let kind: Kind
    /// Whether a record's `config` must give it (the board size); the others default to `Rules()`'s.
    public let isRequired: Bool

    /// Every rules option, in the order `spec` and records list them.
    public static let all: [RulesOption] = [
        RulesOption(name: "rows", errorField: "rows", kind: .integer(\.rows), isRequired: true),
        RulesOption(name: "cols", errorField: "cols", kind: .integer(\.cols), isRequired: true),
        RulesOption(
            name: "spawn_four_probability", errorField: "spawnFourProbability", kind: .number(\.spawnFourProbability),
            isRequired: false),
        RulesOption(name: "initial_tiles", errorField: "initialTiles", kind: .integer(\.initialTiles), isRequired: false),
        RulesOption(name: "win_tile", errorField: "winTile", kind: .optionalInteger(\.winTile), isRequired: false),
        RulesOption(name: "max_steps", errorField: "maxSteps", kind: .optionalInteger(\.maxSteps), isRequired: false),
        RulesOption(
            name: "invalid_action", errorField: "invalidAction", kind: .choice(RulesSettings.policies, \.invalidAction),
            isRequired: false),
        RulesOption(name: "invalid_action_penalty", errorField: "penalty", kind: .integer(\.penalty), isRequired: false),
    ]

    /// The option named `name`, if it is one.
    public static func named(_ name: String) -> RulesOption? { all.first { $0.name == name } }

    /// The snake_case name of a `Game2048.RulesError.field` (`initialTiles` is `initial_tiles`).
    public static func name(ofField field: String) -> String { all.first { $0.errorField == field }?.name ?? field }

    /// The option's value in `settings`.
    public func value(in settings: RulesSettings) -> JSONValue {
        switch kind {
        case .integer(let field): .integer(Int128(settings[keyPath: field]))
        case .optionalInteger(let field): settings[keyPath: field].map { .integer(Int128($0)) } ?? .null
        case .number(let field): .double(settings[keyPath: field])
        case .choice(_, let field): .string(settings[keyPath: field])
        }
    }

    /// `rules` as JSON members, every option in ``all`` order.
    public static func members(of rules: Rules) -> [(String, JSONValue)] {
        let settings = RulesSettings(rules)
        return all.map { ($0.name, $0.value(in: settings)) }
    }
}

/// Every rules option's value, as options set them one by one: ``rules()`` validates them together.
public struct RulesSettings: Hashable, Sendable {
    /// The names of the invalid-action policies.
    public static let policies = ["noop", "terminate", "reject"]

    /// Number of rows.
    public var rows: Int
    /// Number of columns.
    public var cols: Int
    /// Probability that a spawned tile is a 4.
    public var spawnFourProbability: Double
    /// Tiles placed at the start of an episode.
    public var initialTiles: Int
    /// The tile that wins, or `nil`.
    public var winTile: Int?
    /// The step limit, or `nil`.
    public var maxSteps: Int?
    /// One of ``policies``.
    public var invalidAction: String
    /// The penalty under `terminate`; 0 under the other policies.
    public var penalty: Int

    /// The settings of `rules`.
    public init(_ rules: Rules) {
        rows = rules.rows
        cols = rules.cols
        spawnFourProbability = rules.spawnFourProbability
        initialTiles = rules.initialTiles
        winTile = rules.winTile
        maxSteps = rules.maxSteps
        invalidAction = rules.invalidAction.name
        penalty = if case .terminate(let p) = rules.invalidAction { Int(p) } else { 0 }
    }

    /// The rules these settings describe.
    ///
    /// - Throws: `Game2048.RulesError` for the first value out of range.
    public func rules() throws(RulesError) -> Rules {
        let policy: InvalidActionPolicy =
            switch invalidAction {
            case "terminate": .terminate(penalty: Int64(penalty))
            case "reject": .reject
            default: .noop
            }
        return try Rules(
            rows: rows, cols: cols, spawnFourProbability: spawnFourProbability, initialTiles: initialTiles,
            winTile: winTile, maxSteps: maxSteps, invalidAction: policy)
    }
}

extension Array where Element == String {
    /// The names as a sentence lists them: "noop, terminate or reject".
    public var listedWithOr: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}
