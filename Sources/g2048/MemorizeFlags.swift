import GymCore
import Memorize

/// Memorize's options as flags: made from `MemorizeOption.all`, so a new option reaches `eval` and `play`
/// without being stated again. A switch (`--reveal-seen`) is a flag without a value; an option that can be off
/// takes `off`.
enum MemorizeFlags {
    /// One flag per option, in `MemorizeOption.all` order.
    static let flags: [CommandOption<OptionValue?>] = MemorizeOption.all.map(flag)

    /// The flag of `option`, its default shown as the default rules have it.
    static func flag(_ option: GameOption<MemorizeSettings>) -> CommandOption<OptionValue?> {
        let shown = option.value(in: MemorizeSettings(MemorizeRules())).flagText
        if case .boolean = option.constraint {
            return CommandOption<OptionValue?>(spec: .flag(option.flag, option.help), absent: nil) { _ throws(UsageError) in .boolean(true) }
        }
        let flag = option.flag
        return CommandOption<OptionValue?>.parsed(option.name, option.valueName, help: option.help) { text throws(UsageError) -> OptionValue in
            let value: OptionValue
            switch option.constraint {
            case .integer(_, let nullable) where nullable && text == "off": value = .null
            case .integer(_, let nullable):
                guard let integer = Int(text) else {
                    throw UsageError("--\(flag) must be an integer\(nullable ? " or off" : ""), got '\(text)'")
                }
                value = .integer(integer)
            case .number:
                guard let number = Double(text), number.isFinite else { throw UsageError("--\(flag) must be a finite number, got '\(text)'") }
                value = .number(number)
            case .choice, .list, .boolean: value = .string(text)
            }
            if let rejection = option.rejection(of: value) { throw UsageError("--" + rejection.replacing(option.name, with: flag, maxReplacements: 1)) }
            return value
        }.shown(shown).accepting(integers: option.constraint.integers)
    }

    /// The rules the flags give, over the default rules; checked together (the card count) in the library's words.
    static func rules(_ arguments: ParsedArguments) throws(UsageError) -> MemorizeRules {
        var settings = MemorizeSettings(MemorizeRules())
        for (option, flag) in zip(MemorizeOption.all, flags) {
            guard let value = try arguments[flag] else { continue }
            option.assign(value, to: &settings)
        }
        do {
            return try settings.rules()
        } catch {
            throw UsageError("--rows/--cols: \(error)")
        }
    }

    /// `--agent`: a built-in player by its name (`random`, `perfect`, `forgetful`), with `help`.
    static func agent(help: String) -> CommandOption<MemorizeAgent?> {
        CommandOption.parsed("agent", "name", help: help) { name throws(UsageError) in
            guard let agent = MemorizeAgent.allCases.first(where: { $0.name == name }) else {
                throw UsageError("--agent must be one of \(MemorizeAgent.allCases.map(\.name).joined(separator: ", ")), got '\(name)'")
            }
            return agent
        }
    }

    /// `--memory`: the forgetful player's.
    static let memory = CommandOption.integer("memory", "k", help: "Cards the forgetful player remembers.", in: 0...64).defaulting(to: 4)

    /// `agent` with the memory `--memory` gives a forgetful player.
    ///
    /// - Throws: ``UsageError`` for `--memory` with another player.
    static func agent(_ agent: MemorizeAgent?, memory arguments: ParsedArguments) throws(UsageError) -> MemorizeAgent? {
        if case .forgetful = agent { return .forgetful(memory: try arguments[memory]) }
        if arguments.contains(memory) { throw UsageError("--memory is the forgetful player's; give --agent forgetful") }
        return agent
    }
}
