/// One field of ``Rules`` as every door spells it, declared once: its name, type, allowed values, help and
/// the field of ``RulesSettings`` that holds it.
///
/// ``RulesOption/all`` is the one list: the protocol's `make` and `spec`, `g2048 serve`'s flags and the
/// CLI's rules flags, the C ABI's `g2048_options`, the Python package, episode records and weights files all
/// read it. Adding a rules option is an entry here and its field in ``RulesSettings``, plus the rule itself
/// in ``Rules``.
public struct RulesOption: Sendable {
    /// The option's type, the values the protocol allows (`Rules` checks what depends on other
    /// options, such as `initial_tiles` at most rows·cols), and where it lives in ``RulesSettings``.
    public enum Kind: Sendable {
        /// An integer in the range.
        case integer(WritableKeyPath<RulesSettings, Int> & Sendable, in: ClosedRange<Int>)
        /// An integer in the range, or `null` (off).
        case optionalInteger(WritableKeyPath<RulesSettings, Int?> & Sendable, in: ClosedRange<Int>)
        /// A number in the range.
        case number(WritableKeyPath<RulesSettings, Double> & Sendable, in: ClosedRange<Double>)
        /// One of the invalid-action policies, by name (`InvalidActionPolicy.Kind`'s cases).
        case choice(WritableKeyPath<RulesSettings, InvalidActionPolicy.Kind> & Sendable)
    }

    /// The snake_case name (`initial_tiles`).
    public let name: String
    /// The field a `Game2048.RulesError` about this option names (`nil` for one that is checked by name, not
    /// by `Rules`: the invalid-action policy).
    public let field: RulesError.Field?
    /// The `g2048 serve` flag, without its dashes (`initial-tiles`).
    public let flag: String
    /// The flag's value placeholder in the help (`n`, `policy`).
    public let valueName: String
    /// The flag's help line; a choice's help goes on with its names.
    public let help: String
    /// The type, the allowed values and the field.
    public let kind: Kind
    /// What the documentation adds to the allowed values, or "".
    public let note: String
    /// Whether a record's `config` must give it (the board size); the others default to `Rules()`'s.
    public let isRequired: Bool
    /// How Swift's ``Rules`` spells it (`spawnFourProbability`, `.terminate(penalty:)`), for the documents.
    public let swiftName: String
    /// The values the option allows, as every game's options declare theirs: what the doors check and word.
    public var constraint: OptionConstraint {
        switch kind {
        case .integer(_, let range): .integer(range, nullable: false)
        case .optionalInteger(_, let range): .integer(range, nullable: true)
        case .number(_, let range): .number(range)
        case .choice: .choice(InvalidActionPolicy.Kind.allCases.map(\.rawValue))
        }
    }

    /// Whether the option can change the games of a player that makes only legal moves (the learner and the
    /// built-in agents): every option but the invalid-action policy and its penalty.
    public var concernsLegalPlay: Bool { field != .penalty && field != nil }

    /// An option; its flag is its name with dashes unless `flag` is given.
    init(
        _ name: String, field: RulesError.Field?, flag: String? = nil, valueName: String = "n", help: String, _ kind: Kind,
        note: String = "", isRequired: Bool = false, swiftName: String? = nil
    ) {
        self.name = name
        self.field = field
        self.flag = flag ?? String(name.map { $0 == "_" ? "-" : $0 })
        self.valueName = valueName
        self.help = help
        self.kind = kind
        self.note = note
        self.isRequired = isRequired
        self.swiftName = swiftName ?? field?.rawValue ?? name
    }

    /// `rows`.
    public static let rows = RulesOption(
        "rows", field: .rows, help: "Board rows, 2 to 8.", .integer(\.rows, in: Rules.sizeRange), isRequired: true)
    /// `cols`.
    public static let cols = RulesOption(
        "cols", field: .cols, help: "Board columns, 2 to 8.", .integer(\.cols, in: Rules.sizeRange), isRequired: true)
    /// `spawn_four_probability`.
    public static let spawnFourProbability = RulesOption(
        "spawn_four_probability", field: .spawnFourProbability, valueName: "p", help: "Chance that a spawned tile is a 4.",
        .number(\.spawnFourProbability, in: Rules.spawnFourProbabilityRange))
    /// `initial_tiles`.
    public static let initialTiles = RulesOption(
        "initial_tiles", field: .initialTiles, help: "Tiles placed by reset.", .integer(\.initialTiles, in: 1...64),
        note: ", at most rows·cols")
    /// `win_tile`.
    public static let winTile = RulesOption(
        "win_tile", field: .winTile, valueName: "tile", help: "End the episode when this tile appears.",
        .optionalInteger(\.winTile, in: Rules.winTileRange), note: ", a power of two")
    /// `max_steps`.
    public static let maxSteps = RulesOption(
        "max_steps", field: .maxSteps, help: "Truncate episodes after this many steps.",
        .optionalInteger(\.maxSteps, in: Rules.maxStepsRange))
    /// `invalid_action`.
    public static let invalidAction = RulesOption(
        "invalid_action", field: nil, valueName: "policy", help: "What an illegal action does:", .choice(\.invalidAction),
        swiftName: "invalidAction")
    /// `invalid_action_penalty` (`--penalty`).
    public static let penalty = RulesOption(
        "invalid_action_penalty", field: .penalty, flag: "penalty", help: "Penalty of an illegal action under terminate.",
        .integer(\.penalty, in: Int(Rules.penaltyRange.lowerBound)...Int(Rules.penaltyRange.upperBound)),
        note: "; the reward is `-penalty` under `terminate`", swiftName: "invalidAction: .terminate(penalty:)")

    /// Every rules option, in the order `spec` and records list them.
    public static let all: [RulesOption] = [rows, cols, spawnFourProbability, initialTiles, winTile, maxSteps, invalidAction, penalty]

    /// The option named `name`, if it is one.
    public static func named(_ name: String) -> RulesOption? { all.first { $0.name == name } }

    /// The option a `Game2048.RulesError` is about (`nil` for the board, which is no option).
    public static func option(of field: RulesError.Field) -> RulesOption? { all.first { $0.field == field } }

    /// The snake_case name of a `Game2048.RulesError.field` (`initialTiles` is `initial_tiles`; the board is `board`).
    public static func name(of field: RulesError.Field) -> String { option(of: field)?.name ?? field.rawValue }

    /// The option's value in `settings`.
    public func value(in settings: RulesSettings) -> OptionValue {
        switch kind {
        case .integer(let field, _): .integer(settings[keyPath: field])
        case .optionalInteger(let field, _): settings[keyPath: field].map { .integer($0) } ?? .null
        case .number(let field, _): .number(settings[keyPath: field])
        case .choice(let field): .string(settings[keyPath: field].rawValue)
        }
    }

    /// Sets the option in `settings` to `value`, if `value` is of the option's type and (unless `checkingRange` is
    /// false, to leave the check and its message to ``RulesSettings/rules()``) in its range; returns whether it did.
    /// ``Rules`` checks what depends on other options when the settings become rules.
    ///
    ///     var settings = RulesSettings(Rules())
    ///     RulesOption.winTile.assign(.integer(2048), to: &settings)   // true
    ///     RulesOption.rows.assign(.string("4"), to: &settings)        // false: not an integer
    @discardableResult
    public func assign(_ value: OptionValue, to settings: inout RulesSettings, checkingRange: Bool = true) -> Bool {
        switch (kind, value) {
        case (.integer(let field, let range), .integer(let integer)) where !checkingRange || range.contains(integer):
            settings[keyPath: field] = integer
        case (.optionalInteger(let field, _), .null): settings[keyPath: field] = nil
        case (.optionalInteger(let field, let range), .integer(let integer)) where !checkingRange || range.contains(integer):
            settings[keyPath: field] = integer
        case (.number(let field, let range), .number(let number)) where !checkingRange || range.contains(number):
            settings[keyPath: field] = number
        case (.choice(let field), .string(let name)):
            guard let choice = InvalidActionPolicy.Kind(rawValue: name) else { return false }
            settings[keyPath: field] = choice
        default: return false
        }
        return true
    }

    /// `rules` as named values, every option in ``all`` order.
    public static func members(of rules: Rules) -> [(String, OptionValue)] {
        let settings = RulesSettings(rules)
        return all.map { ($0.name, $0.value(in: settings)) }
    }
}

/// Every rules option's value, as options set them one by one: ``rules()`` validates them together.
public struct RulesSettings: Hashable, Sendable {
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
    /// The invalid-action policy's kind (its penalty is ``penalty``).
    public var invalidAction: InvalidActionPolicy.Kind
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
        invalidAction = rules.invalidAction.kind
        penalty = if case .terminate(let p) = rules.invalidAction { Int(p) } else { 0 }
    }

    /// The rules these settings describe.
    ///
    /// - Throws: `Game2048.RulesError` for the first value out of range.
    public func rules() throws(RulesError) -> Rules {
        try Rules(
            rows: rows, cols: cols, spawnFourProbability: spawnFourProbability, initialTiles: initialTiles,
            winTile: winTile, maxSteps: maxSteps, invalidAction: InvalidActionPolicy(invalidAction, penalty: Int64(penalty)))
    }
}
