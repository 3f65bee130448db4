import Game2048
import GymCore
import Memorize

/// The games every door serves, each by its declaration: the one list of games. A door makes a game by name from
/// it, and reads the game's options, spaces and columns from its declaration; it names no game itself.
///
///     GameRegistry.standard.named("memorize")?.options.map(\.name)   // rows, cols, reveal_seen, …
///     let withMine = GameRegistry.standard.adding(MyGame.declaration)   // a game of one's own, served alike
public struct GameRegistry: Sendable {
    /// The games, the default first.
    public let games: [GameDeclaration]

    /// A registry of `games`, the first the default.
    public init(_ games: [GameDeclaration]) {
        precondition(!games.isEmpty, "a registry lists at least one game")
        precondition(Set(games.map(\.name)).count == games.count, "two registered games have the same name")
        self.games = games
    }

    /// The games Gym2048 ships: 2048 (the default) and Memorize.
    public static let standard = GameRegistry([Game2048Game.declaration, MemorizeGame.declaration])

    /// The game the doors serve when none is named.
    public var defaultGame: GameDeclaration { games[0] }

    /// The game named `name`, if it is registered.
    public func named(_ name: String) -> GameDeclaration? { games.first { $0.name == name } }

    /// This registry with `game` added last.
    ///
    /// - Precondition: no registered game has its name (a door makes a game by its name).
    public func adding(_ game: GameDeclaration) -> GameRegistry {
        precondition(named(game.name) == nil, "a game named \(game.name) is registered already")
        return GameRegistry(games + [game])
    }

    /// The names, as a message lists them: "2048 or memorize".
    public var names: String { games.map(\.name).listedWithOr }
}
