import Game2048
import GymCore
import Memorize

/// A published way to evaluate a player: one game under fixed options, and a fixed list of episode seeds drawn
/// from a protocol seed. Agents evaluated under the same protocol played the same games, so their results can
/// be ranked side by side, and a ranking can check that a record holds exactly those games.
///
///     let protocol = EvaluationProtocol.named("2048-4x4-v1")!
///     protocol.seeds.prefix(2)   // the seeds of games 0 and 1: what `g2048 eval --seed 2048` plays first
///
/// A protocol is never changed once published: a new set of games is a new name (`-v2`).
public struct EvaluationProtocol: Sendable {
    /// The name, ending with its version: `2048-4x4-v1`.
    public let name: String
    /// One line on what it measures.
    public let summary: String
    /// The game.
    public let game: GameDeclaration
    /// Every option's value (the options not given are at their defaults).
    public let values: [String: OptionValue]
    /// The seed the episode seeds are drawn from.
    public let seed: UInt64
    /// The number of games.
    public let games: Int

    /// A protocol of `games` games of `game` under `options` (the rest at their defaults), seeded from `seed`.
    ///
    /// - Precondition: every option is the game's, with an allowed value.
    public init(_ name: String, summary: String, game: GameDeclaration, options: [String: OptionValue], seed: UInt64, games: Int) {
        for (option, value) in options {
            precondition(game.option(named: option)?.rejection(of: value) == nil, "\(name): \(option) \(value) is not an option of \(game.name)")
        }
        precondition(games >= 1)
        (self.name, self.summary, self.game, self.seed, self.games) = (name, summary, game, seed, games)
        values = game.defaults.merging(options) { $1 }
    }

    /// The seed of game `i`: the `(i + 1)`-th output of `SplitMix64(seed:)`, as `eval --seed` draws its games'.
    public var seeds: [UInt64] { SplitMix64.seeds(from: seed, count: games) }

    /// The protocols Gym2048 publishes.
    public static let standard: [EvaluationProtocol] = [
        EvaluationProtocol(
            "2048-3x3-v1", summary: "2048 on a 3x3 board, solved exactly: 1000 games", game: Game2048Game.declaration,
            options: ["rows": .integer(3), "cols": .integer(3)], seed: 2048, games: 1000),
        EvaluationProtocol(
            "2048-4x4-v1", summary: "2048 on the classic 4x4 board: 1000 games", game: Game2048Game.declaration,
            options: ["rows": .integer(4), "cols": .integer(4)], seed: 2048, games: 1000),
        EvaluationProtocol(
            "memorize-4x4-v1", summary: "Memorize with 8 pairs, a mismatch costing 1: 1000 games",
            game: MemorizeGame.declaration, options: ["rows": .integer(4), "cols": .integer(4), "mismatch_penalty": .number(1)],
            seed: 2048, games: 1000),
    ]

    /// The published protocol named `name`.
    public static func named(_ name: String) -> EvaluationProtocol? { standard.first { $0.name == name } }

    /// The published names, as a message lists them.
    public static var names: String { standard.map(\.name).listedWithOr }
}
