import Game2048
import GymCore
import GymGames

/// `--game`: which registered game a command runs. 2048's commands are the tool's own; every other game is run
/// by the generic commands (``GameCommand``), chosen before the arguments are parsed: `g2048 eval --game memorize
/// --help` lists that game's flags, read from its declaration.
enum GameFlag {
    /// The option as 2048's commands declare it (their help lists the standard registry's games).
    static let option = CommandOption.text("game", "name", help: "The game: \(GameRegistry.standard.names).").shown(twentyFortyEight)

    /// The option with `registry`'s games in its help.
    static func spec(_ registry: GameRegistry) -> OptionSpec {
        var spec = option.spec
        spec.help = "The game: \(registry.names)."
        return spec
    }

    /// The name of the game whose commands are the tool's own.
    static let twentyFortyEight = Game2048Game.declaration.name

    /// The game `arguments` name with `--game` (the last one given), 2048 when none.
    ///
    /// - Throws: ``UsageError`` for a name that is no registered game.
    static func game(in arguments: [String], registry: GameRegistry) throws(UsageError) -> GameDeclaration {
        var game = registry.named(twentyFortyEight) ?? registry.defaultGame
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            var text: String? = nil
            if argument == "--game", index + 1 < arguments.endIndex {
                text = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--game=") {
                text = String(argument.dropFirst("--game=".count))
            }
            if let text {
                guard let named = registry.named(text) else { throw UsageError("--game must be one of \(registry.names), got '\(text)'") }
                game = named
            }
            index += 1
        }
        return game
    }

    /// The generic commands, run for every game but 2048.
    /// (Computed, as `G2048.commands` is: a stored table of metatypes is not `Sendable`.)
    static var commands: [any GameCommand.Type] { [DeclaredEvalCommand.self, DeclaredPlayCommand.self, DeclaredBenchCommand.self] }

    /// The generic command named `name`, if there is one.
    static func command(_ name: String) -> (any GameCommand.Type)? { commands.first { $0.name == name } }
}

/// A subcommand that runs any declared game: its spec is made from the game's declaration.
protocol GameCommand {
    /// The subcommand's name (`eval`).
    static var name: String { get }
    /// What the command accepts for `game`, and its help.
    static func spec(for game: GameDeclaration, registry: GameRegistry) -> CommandSpec
    /// Validates the parsed arguments for `game`; throws before any work starts.
    init(_ arguments: ParsedArguments, game: GameDeclaration) throws(UsageError)
    /// Does the work and returns the exit code.
    func run() throws -> Int32
}
