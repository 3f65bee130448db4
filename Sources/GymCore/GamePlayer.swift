/// A built-in player of a game: it sees what an agent sees (the results' columns) and names the action to take.
///
///     var player = declaration.players[0].make(game: values, options: [:])
///     let action = player.choose(results, index: 0, using: &rng)
public protocol GamePlayer {
    /// Forgets everything: a new episode starts.
    mutating func reset()
    /// The action environment `index` takes next, a legal one; draws from `rng` where the player picks at random.
    mutating func choose(_ results: GameResults, index: Int, using rng: inout Xoshiro256StarStar) -> Int
}

/// A player a game declares, by the name `--agent` gives it, with options of its own (the forgetful player's
/// `memory`): the command line reads `eval`'s and `play`'s players from here.
public struct PlayerDeclaration: Sendable {
    /// The name `--agent` gives.
    public let name: String
    /// One line on how it plays, for helps.
    public let help: String
    /// Its own options, as flags of the commands that take `--agent`.
    public let options: [OptionDeclaration]
    /// Makes the player for a game of these option values, with its own options' values.
    let maker: @Sendable ([String: OptionValue], [String: OptionValue]) -> any GamePlayer

    /// A player named `name`; `maker` gets the game's option values and the player's own (each at least at
    /// its default).
    public init(
        _ name: String, help: String, options: [OptionDeclaration] = [],
        maker: @escaping @Sendable (_ game: [String: OptionValue], _ own: [String: OptionValue]) -> any GamePlayer
    ) {
        self.name = name
        self.help = help
        self.options = options
        self.maker = maker
    }

    /// A player for a game of option values `game`, with its own options `own` (a missing one at its default).
    public func make(game: [String: OptionValue], own: [String: OptionValue] = [:]) -> any GamePlayer {
        maker(game, Dictionary(uniqueKeysWithValues: options.map { ($0.name, own[$0.name] ?? $0.defaultValue) }))
    }

    /// The player as a report names it: `forgetful(4)`, with its options' values.
    public func label(own: [String: OptionValue]) -> String {
        options.isEmpty ? name : name + "(" + options.map { (own[$0.name] ?? $0.defaultValue).flagText }.joined(separator: ",") + ")"
    }

    /// A uniformly random legal action, for any game whose info has an `action_mask` column.
    public static let randomLegal = PlayerDeclaration("random", help: "a uniformly random legal action") { _, _ in RandomLegalPlayer() }
}

/// Takes a uniformly random legal action: the `action_mask` column's, or any action when the game has none.
public struct RandomLegalPlayer: GamePlayer {
    /// A random player.
    public init() {}
    public mutating func reset() {}

    public mutating func choose(_ results: GameResults, index: Int, using rng: inout Xoshiro256StarStar) -> Int {
        guard let legal = results.legalActions(at: index) else { return rng.uniform(below: results.actionCount) }
        return legal.isEmpty ? 0 : legal[rng.uniform(below: legal.count)]
    }
}
