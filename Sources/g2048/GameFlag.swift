import GymGames

/// `--game`: which game `eval` and `play` run. Each game has its own command (its flags and help), chosen before
/// the arguments are parsed: `g2048 eval --game memorize --help` is Memorize's help.
enum GameFlag {
    /// The option, as every game's command declares it.
    static let option = CommandOption.choice("game", "name", help: "The game: \(Game.names).", of: Game.self).defaulting(to: .twentyFortyEight)

    /// The game `arguments` name with `--game` (the last one given), 2048 when none.
    ///
    /// - Throws: ``UsageError`` for a name that is no game.
    static func game(in arguments: [String]) throws(UsageError) -> Game {
        var game = Game.twentyFortyEight
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
                guard let named = Game(rawValue: text) else {
                    throw UsageError("--game must be one of \(Game.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
                }
                game = named
            }
            index += 1
        }
        return game
    }

    /// The commands of each game but 2048's, whose commands are the tool's own.
    /// (Computed, as `G2048.commands` is: a stored table of metatypes is not `Sendable`.)
    static var commands: [Game: [any Command.Type]] { [.memorize: [MemorizeEvalCommand.self, MemorizePlayCommand.self]] }

    /// The command that runs `name` for `game`: the game's own, or `nil` for 2048's (the tool's).
    static func command(_ name: String, for game: Game) -> (any Command.Type)? {
        commands[game]?.first { $0.spec.name == name }
    }
}
