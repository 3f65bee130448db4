import GymCore

/// A game's options as flags, read from its declaration (`GameDeclaration.options`): the one reader of every
/// game's table, so a new option, or a new game, reaches `eval`, `play` and `bench` without a flag of its own;
/// 2048's rules flags of `train`, `eval` and `solve` (``RulesFlags``) are made here too. A switch
/// (`--reveal-seen`) is a flag without a value; an option that can be off takes `off`.
enum GameFlags {
    /// The flag of `option`, its default shown. `checkingRange` false leaves the range to the rules, which check
    /// it with the other values in their own words (2048's `Rules`); the flag still checks the value's type.
    static func flag(_ option: OptionDeclaration, checkingRange: Bool = true) -> CommandOption<OptionValue?> {
        if case .boolean = option.constraint {
            return CommandOption<OptionValue?>(spec: .flag(option.flag, option.help), absent: nil) { _ throws(UsageError) in .boolean(true) }
        }
        let (flag, nullable) = (option.flag, option.constraint.isNullable)
        let help = nullable ? option.help.dropLast() + ", or off." : option.help
        return CommandOption<OptionValue?>.parsed(option.flag, option.valueName, help: help) { text throws(UsageError) -> OptionValue in
            let value: OptionValue
            switch option.constraint {
            case .integer where nullable && text == "off": value = .null
            case .integer:
                guard isIntegerText(text) else { throw UsageError("--\(flag) must be an integer\(nullable ? " or off" : ""), got '\(text)'") }
                guard let integer = Int(text) else { throw UsageError("--\(flag) is out of range, got \(text) (beyond 64 bits)") }
                value = .integer(integer)
            case .number:
                guard let number = Double(text), number.isFinite else { throw UsageError("--\(flag) must be a finite number, got '\(text)'") }
                value = .number(number)
            case .list: value = .list(text.split(separator: ",").map(String.init))
            case .choice(let names):
                // A choice is no range: its names are checked here, whoever checks the ranges.
                guard names.contains(text) else { throw UsageError("--\(flag) must be one of \(names.joined(separator: ", ")), got '\(text)'") }
                value = .string(text)
            case .boolean: value = .string(text)
            }
            if checkingRange, let rejection = option.rejection(of: value) {
                throw UsageError("--" + rejection.replacing(option.name, with: flag, maxReplacements: 1))
            }
            return value
        }.shown(option.defaultValue.flagText).accepting(integers: option.constraint.integers)
    }

    /// The values of the flags of `options` that were given.
    static func values(of options: [OptionDeclaration], in arguments: ParsedArguments) throws(UsageError) -> [String: OptionValue] {
        var values: [String: OptionValue] = [:]
        for option in options {
            if let value = try arguments[flag(option)] { values[option.name] = value }
        }
        return values
    }

    /// The game the flags make, over its defaults; the values are checked together (the card count) in the
    /// library's words.
    static func make(_ game: GameDeclaration, _ values: [String: OptionValue], count: Int = 1, autoresetMode: AutoresetMode = .disabled)
        throws(UsageError) -> any GameInstance
    {
        do {
            return try game.make(values, count: count, autoresetMode: autoresetMode)
        } catch {
            let flag = game.option(named: error.option)?.flag ?? error.option
            throw UsageError("--\(flag) \(error.reason)")
        }
    }

    /// `--agent`: one of the game's players, by name.
    static func agent(_ game: GameDeclaration, help: String) -> CommandOption<PlayerDeclaration?> {
        CommandOption.parsed("agent", "name", help: help) { name throws(UsageError) in
            guard let player = game.player(named: name) else {
                throw UsageError("--agent must be one of \(game.players.map(\.name).listedWithOr), got '\(name)'")
            }
            return player
        }
    }

    /// The players' own options (the forgetful player's `--memory`), each once.
    static func playerOptions(_ game: GameDeclaration) -> [OptionDeclaration] {
        var options: [OptionDeclaration] = []
        for option in game.players.flatMap(\.options) where !options.contains(where: { $0.name == option.name }) { options.append(option) }
        return options
    }

    /// The values of the chosen player's own options.
    ///
    /// - Throws: ``UsageError`` for another player's option (`--memory` without `--agent forgetful`).
    static func playerValues(_ player: PlayerDeclaration?, game: GameDeclaration, in arguments: ParsedArguments) throws(UsageError) -> [String: OptionValue] {
        let given = try values(of: playerOptions(game), in: arguments)
        for name in given.keys.sorted() where !(player?.options.contains { $0.name == name } ?? false) {
            let owners = game.players.filter { $0.options.contains { $0.name == name } }.map(\.name)
            let flag = playerOptions(game).first { $0.name == name }?.flag ?? name
            throw UsageError("--\(flag) is the \(owners.listedWithOr) player's; give --agent \(owners.first ?? "")")
        }
        return given
    }

    /// The players, as a help lists them: "perfect (remembers …), random (…)".
    static func descriptions(_ game: GameDeclaration) -> String {
        game.players.map { "\($0.name) (\($0.help))" }.joined(separator: ", ")
    }
}
