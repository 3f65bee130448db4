/// A game, declared once: its name, a line on it, its options, and how a set of option values becomes a made
/// game. The registry (`GymGames`) lists the declarations, and every door reads them: `make` and `spec`, the C
/// ABI's list of games and columns, Python's environment ids and spaces, the command line's `--game`.
///
///     let memorize = GameDeclaration(
///         "memorize", summary: "…", vector: CardVector.self,
///         options: CardOption.all, settings: CardSettings(), rules: { try $0.checkedRules() })
public struct GameDeclaration: Sendable {
    /// The name `make`'s `game` and `--game` give.
    public let name: String
    /// One line on the game, for helps.
    public let summary: String
    /// The options, in the order `spec` reports them.
    public let options: [OptionDeclaration]
    /// The built-in players `eval` and `play --agent` take, the default first: any game with an `action_mask`
    /// info column has the random legal player.
    public var players: [PlayerDeclaration] = [.randomLegal]
    /// The game's own report of an evaluation (a card game's exact expectations), added to what every game's
    /// report holds; `nil`: none.
    public var report: (@Sendable ([String: OptionValue], PlayerDeclaration, EvaluationTally) -> [(String, OptionValue)])? = nil
    /// What `play` says around the game's text.
    public var play = PlayText()
    /// How a ranking scores the game's episodes: its return unless the game declares a score column.
    public var ranking = RankingMeasure()
    /// The members the game adds to its records (``RecordedEnvironment``); none for other games.
    public let recordLayout: RecordLayout
    /// Makes the game from every option's value.
    let maker: @Sendable ([String: OptionValue], Int, AutoresetMode) throws(OptionRefusal) -> any GameInstance

    /// The option named `name`, if the game has one.
    public func option(named name: String) -> OptionDeclaration? { options.first { $0.name == name } }

    /// Every option at its default.
    public var defaults: [String: OptionValue] { Dictionary(uniqueKeysWithValues: options.map { ($0.name, $0.defaultValue) }) }

    /// The made game: `count` environments under the options' `values` (each allowed by its constraint; a
    /// missing one is at its default).
    ///
    /// - Throws: ``OptionRefusal`` when the values do not make a game together (an odd number of cards).
    public func make(_ values: [String: OptionValue], count: Int, autoresetMode: AutoresetMode) throws(OptionRefusal) -> any GameInstance {
        try maker(defaults.merging(values) { $1 }, count, autoresetMode)
    }

    /// A game whose vectors are `Vector`, with options that set `Settings` fields, and after them the episode's
    /// limits every game has (``EpisodeOption``), which ``VectorGame`` applies.
    ///
    /// - Parameters:
    ///   - name: the name `make`'s `game` and `--game` give.
    ///   - summary: one line on the game.
    ///   - vector: the type of its vectors, compiled for its environment.
    ///   - options: its options, in the order `spec` reports them.
    ///   - settings: the settings of the default rules.
    ///   - rules: the rules the settings describe, or why they make no game.
    public init<Vector: GameVector, Settings: Sendable>(
        _ name: String, summary: String, vector: Vector.Type, options: [GameOption<Settings>], settings: Settings,
        rules: @escaping @Sendable (Settings) throws(OptionRefusal) -> Vector.Environment.Rules
    ) {
        let limits = EpisodeLimits.Settings(EpisodeLimits())
        self.name = name
        self.summary = summary
        self.options =
            options.map { OptionDeclaration($0, default: $0.value(in: settings)) }
            + EpisodeOption.all.map { OptionDeclaration($0, default: $0.value(in: limits)) }
        recordLayout = (Vector.Environment.self as? any RecordedEnvironment.Type)?.recordLayout ?? RecordLayout()
        maker = { values, count, mode throws(OptionRefusal) in
            var (chosen, chosenLimits) = (settings, limits)
            for option in options {
                if let value = values[option.name] { option.assign(value, to: &chosen) }
            }
            for option in EpisodeOption.all {
                if let value = values[option.name] { option.assign(value, to: &chosenLimits) }
            }
            return Vector(vector: VectorGame(rules: try rules(chosen), count: count, autoresetMode: mode, limits: chosenLimits.limits))
        }
    }

    /// A game made by `maker` from every option's value, for games whose options are declared another way.
    public init(
        _ name: String, summary: String, options: [OptionDeclaration], recordLayout: RecordLayout = RecordLayout(),
        maker: @escaping @Sendable ([String: OptionValue], Int, AutoresetMode) throws(OptionRefusal) -> any GameInstance
    ) {
        (self.name, self.summary, self.options, self.recordLayout, self.maker) = (name, summary, options, recordLayout, maker)
    }
}

/// One option as every door reads it: a game's ``GameOption`` without its settings type.
public struct OptionDeclaration: Sendable, Hashable {
    /// The name (snake_case), as `make`, `spec`, records and Python keywords give it.
    public let name: String
    /// The flag, without its dashes.
    public let flag: String
    /// The flag's value placeholder in a help.
    public let valueName: String
    /// One line of help.
    public let help: String
    /// The values allowed.
    public let constraint: OptionConstraint
    /// The value when none is given.
    public let defaultValue: OptionValue

    /// An option's declaration.
    public init(name: String, flag: String, valueName: String, help: String, constraint: OptionConstraint, defaultValue: OptionValue) {
        (self.name, self.flag, self.valueName, self.help, self.constraint) = (name, flag, valueName, help, constraint)
        self.defaultValue = defaultValue
    }

    /// `option`'s declaration, with its default.
    public init<Settings>(_ option: GameOption<Settings>, default value: OptionValue) {
        self.init(
            name: option.name, flag: option.flag, valueName: option.valueName, help: option.help, constraint: option.constraint,
            defaultValue: value)
    }

    /// Why `value` cannot be the option's, in the words every door uses ("rows must be an integer from 1 to 64,
    /// got 65"); `nil` when it can.
    public func rejection(of value: OptionValue) -> String? {
        constraint.allows(value) ? nil : "\(name) must be \(constraint.expectation), got \(value)"
    }
}

/// Option values that are each allowed but make no game together: the option to blame and why.
public struct OptionRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The option named in the message.
    public let option: String
    /// What is wrong, completing a sentence that starts with the option's name ("and cols: …", "must be …").
    public let reason: String

    /// A refusal of `option`'s value.
    public init(option: String, reason: String) {
        self.option = option
        self.reason = reason
    }

    /// "rows and cols: …".
    public var description: String { "\(option) \(reason)" }
}
