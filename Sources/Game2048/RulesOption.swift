/// One field of ``Rules`` as every door spells it, declared once: its name, type, allowed values, help and
/// the field of ``RulesSettings`` that holds it.
///
/// ``RulesOption/all`` is the one list: the protocol's `make` and `spec`, `g2048 serve`'s flags and the
/// CLI's rules flags, the C ABI's `g2048_options`, the Python package, episode records and weights files all
/// read it. Adding a rules option is an entry here and its field in ``RulesSettings``, plus the rule itself
/// in ``Rules``.
public struct RulesOption: Sendable {
    /// The option as every game's options are declared: its name, flag, help, allowed values and its field of
    /// ``RulesSettings``.
    public let option: GameOption<RulesSettings>
    /// The field a `Game2048.RulesError` about this option names (`nil` for one that is checked by name, not
    /// by `Rules`: the invalid-action policy).
    public let field: RulesError.Field?
    /// Whether a record's `config` must give it (the board size); the others default to `Rules()`'s.
    public let isRequired: Bool
    /// How Swift's ``Rules`` spells it (`spawnFourProbability`, `.terminate(penalty:)`), for the documents.
    public let swiftName: String

    /// The snake_case name (`initial_tiles`).
    public var name: String { option.name }
    /// The `g2048 serve` flag, without its dashes (`initial-tiles`).
    public var flag: String { option.flag }
    /// The flag's value placeholder in the help (`n`, `policy`).
    public var valueName: String { option.valueName }
    /// The flag's help line; a choice's help ends with its names.
    public var help: String { option.help }
    /// What the documentation adds to the allowed values, or "".
    public var note: String { option.note }
    /// The values the option allows, as every game's options declare theirs: what the doors check and word.
    public var constraint: OptionConstraint { option.constraint }

    /// Whether the option can change the games of a player that makes only legal moves (the learner and the
    /// built-in agents): every option but the invalid-action policy and its penalty. Declared, not derived from
    /// ``field``: an option no error names (a switch) may still change legal play.
    public let concernsLegalPlay: Bool

    /// A rules option: its declaration and what the documents and errors say of it.
    init(
        _ option: GameOption<RulesSettings>, field: RulesError.Field?, isRequired: Bool = false, concernsLegalPlay: Bool = true,
        swiftName: String? = nil
    ) {
        (self.option, self.field, self.isRequired) = (option, field, isRequired)
        (self.concernsLegalPlay, self.swiftName) = (concernsLegalPlay, swiftName ?? field?.rawValue ?? option.name)
    }

    /// `rows`.
    public static let rows = RulesOption(
        .integer("rows", help: "Board rows, 2 to 8.", in: Rules.sizeRange, \.rows), field: .rows, isRequired: true)
    /// `cols`.
    public static let cols = RulesOption(
        .integer("cols", help: "Board columns, 2 to 8.", in: Rules.sizeRange, \.cols), field: .cols, isRequired: true)
    /// `spawn_four_probability`.
    public static let spawnFourProbability = RulesOption(
        .number(
            "spawn_four_probability", valueName: "p", help: "Chance that a spawned tile is a 4.", in: Rules.spawnFourProbabilityRange,
            \.spawnFourProbability), field: .spawnFourProbability)
    /// `initial_tiles`.
    public static let initialTiles = RulesOption(
        .integer("initial_tiles", help: "Tiles placed by reset.", in: 1...64, note: ", at most rows·cols", \.initialTiles),
        field: .initialTiles)
    /// `win_tile`.
    public static let winTile = RulesOption(
        .optionalInteger(
            "win_tile", valueName: "tile", help: "End the episode when this tile appears.", in: Rules.winTileRange,
            note: ", a power of two", \.winTile), field: .winTile)
    /// `max_steps`: every game's (`EpisodeOption`).
    public static let maxSteps = RulesOption(EpisodeOption.maxSteps.lifted(to: \.episode), field: .maxSteps)
    /// `invalid_action`: every game's.
    public static let invalidAction = RulesOption(
        EpisodeOption.invalidAction.lifted(to: \.episode), field: nil, concernsLegalPlay: false, swiftName: "invalidAction")
    /// `invalid_action_penalty` (`--penalty`): every game's.
    public static let penalty = RulesOption(
        EpisodeOption.penalty.lifted(to: \.episode), field: .penalty, concernsLegalPlay: false,
        swiftName: "invalidAction: .terminate(penalty:)")

    /// Every rules option, in the order `spec` and records list them.
    public static let all: [RulesOption] = [rows, cols, spawnFourProbability, initialTiles, winTile, maxSteps, invalidAction, penalty]

    /// The option named `name`, if it is one.
    public static func named(_ name: String) -> RulesOption? { all.first { $0.name == name } }

    /// The option a `Game2048.RulesError` is about (`nil` for the board, which is no option).
    public static func option(of field: RulesError.Field) -> RulesOption? { all.first { $0.field == field } }

    /// The snake_case name of a `Game2048.RulesError.field` (`initialTiles` is `initial_tiles`; the board is `board`).
    public static func name(of field: RulesError.Field) -> String { option(of: field)?.name ?? field.rawValue }

    /// The option's value in `settings`.
    public func value(in settings: RulesSettings) -> OptionValue { option.value(in: settings) }

    /// Sets the option in `settings` to `value`, if `value` is of the option's type and (unless `checkingRange` is
    /// false, to leave the check and its message to ``RulesSettings/rules()``) in its range; returns whether it did.
    /// ``Rules`` checks what depends on other options when the settings become rules.
    ///
    ///     var settings = RulesSettings(Rules())
    ///     RulesOption.winTile.assign(.integer(2048), to: &settings)   // true
    ///     RulesOption.rows.assign(.string("4"), to: &settings)        // false: not an integer
    @discardableResult
    public func assign(_ value: OptionValue, to settings: inout RulesSettings, checkingRange: Bool = true) -> Bool {
        checkingRange ? option.assign(value, to: &settings) : option.assignUnchecked(value, to: &settings)
    }

    /// The rules `values` give by option name (a missing option at its default).
    ///
    /// - Throws: ``RulesError`` when the values make no rules together.
    public static func rules(from values: [String: OptionValue]) throws(RulesError) -> Rules {
        var settings = RulesSettings(Rules())
        for option in all {
            if let value = values[option.name] { option.assign(value, to: &settings) }
        }
        return try settings.rules()
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
    /// The episode's limits: the options every game shares.
    public var episode: EpisodeLimits.Settings

    /// The step limit, or `nil`.
    public var maxSteps: Int? {
        get { episode.maxSteps }
        set { episode.maxSteps = newValue }
    }
    /// The invalid-action policy's kind (its penalty is ``penalty``).
    public var invalidAction: InvalidActionPolicy.Kind {
        get { episode.invalidAction }
        set { episode.invalidAction = newValue }
    }
    /// The penalty under `terminate`; 0 under the other policies.
    public var penalty: Int {
        get { episode.penalty }
        set { episode.penalty = newValue }
    }

    /// The settings of `rules`.
    public init(_ rules: Rules) {
        (rows, cols, spawnFourProbability) = (rules.rows, rules.cols, rules.spawnFourProbability)
        (initialTiles, winTile) = (rules.initialTiles, rules.winTile)
        episode = EpisodeLimits.Settings(EpisodeLimits(maxSteps: rules.maxSteps, invalidAction: rules.invalidAction))
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
