/// A running mean and its standard error (Welford's update, stable for a million values).
public struct MeanEstimate: Sendable, Hashable {
    /// Values added.
    public private(set) var count = 0.0
    /// Their mean.
    public private(set) var mean = 0.0
    var squares = 0.0

    /// No values yet.
    public init() {}

    /// Adds a value.
    public mutating func add(_ value: Double) {
        count += 1
        let delta = value - mean
        mean += delta / count
        squares += delta * (value - mean)
    }

    /// The square of the standard error of ``mean``: its square root is left to the caller, because GymCore
    /// links into programs that do not link the C math library (the examples).
    public var squaredStandardError: Double { count > 1 ? squares / (count - 1) / count : 0 }
}

/// What `eval` measured of a player's games, whatever the game: what a game's own report is made from.
public struct EvaluationTally: Sendable, Hashable {
    /// Games played.
    public var games = 0
    /// Games that ended by the rules (terminated), the others cut by a step limit.
    public var finished = 0
    /// The total reward of a game.
    public var reward = MeanEstimate()
    /// The steps of a game.
    public var steps = MeanEstimate()
    /// Each integer info column's value at a game's end (a card game's `moves`).
    public var finalInfo: [String: MeanEstimate] = [:]

    /// No games yet.
    public init() {}
}

/// What `play` says around a game's text: what an action is called, the status under the text, a note on each
/// step. The defaults fit any game; a game words its own.
public struct PlayText: Sendable {
    /// What an action is called in messages (`card`: "'five' is not a card").
    public var actionNoun = "action"
    /// The first note of an episode, for the game's option values.
    public var start: @Sendable ([String: OptionValue]) -> String = { _ in "Type an action's number." }
    /// The status line under the text: how the episode stands.
    public var status: @Sendable ([String: OptionValue], GameResults) -> String = { _, results in
        "reward \(results.reward(at: 0))."
    }
    /// A note on the step just taken.
    public var note: @Sendable ([String: OptionValue], GameResults, StepOutcome) -> String = { _, _, outcome in
        outcome.terminated ? "The episode is over. r starts another." : outcome.truncated ? "Cut by the step limit. r starts another." : ""
    }

    /// The defaults.
    public init() {}
}

extension GameDeclaration {
    /// The player `eval` and `play --agent` take by `name`, if the game has it.
    public func player(named name: String) -> PlayerDeclaration? { players.first { $0.name == name } }
}
