import Game2048

/// The rules options a player of legal moves plays by, as flags: made from `RulesOption`, so that a new rules
/// option reaches `train` and `eval` (and the weights files they write and read) without being stated again.
///
///     let (rules, given) = try RulesFlags.rules(arguments, base: try Rules(rows: 3, cols: 3))
///
/// The board size is each command's own (`--rows`, `--cols`, with defaults that depend on a weights file), and
/// the invalid-action policy cannot change the games of a player that makes only legal moves.
enum RulesFlags {
    /// The options, in `RulesOption.all` order.
    static let options = RulesOption.all.filter { !$0.isRequired && $0.concernsLegalPlay }

    /// The flags, in ``options`` order; each reads its text into the option's value (`off` is off).
    static let flags: [CommandOption<OptionValue?>] = options.map(flag)

    /// The flag of `option`, read as every game's option is (``GameFlags``), its default as `Rules()` has it; its
    /// range is checked with the other rules, by `Rules`, in its words.
    static func flag(_ option: RulesOption) -> CommandOption<OptionValue?> {
        GameFlags.flag(OptionDeclaration(option.option, default: option.value(in: RulesSettings(Rules()))), checkingRange: false)
    }

    /// `base` with every flag given applied, validated together as `Rules` validates them; and the options given.
    ///
    /// - Throws: ``UsageError`` naming the flag, with the library's rule: "--win-tile must be a power of two from 4 to 2^50 or off, got 3".
    static func rules(_ arguments: ParsedArguments, base: Rules) throws(UsageError) -> (rules: Rules, given: [RulesOption]) {
        var settings = RulesSettings(base)
        var given: [RulesOption] = []
        for (option, flag) in zip(options, flags) {
            guard let value = try arguments[flag] else { continue }
            given.append(option)
            // The flag's parse gave the option's type; its range is checked with the rest, by `Rules`, in its words.
            option.assign(value, to: &settings, checkingRange: false)
        }
        do {
            return (try settings.rules(), given)
        } catch {
            throw usageError(error)
        }
    }

    /// The usage error of a `RulesError`, naming the flag; an option that can be off says so.
    static func usageError(_ error: RulesError) -> UsageError {
        let option = RulesOption.option(of: error.field)
        var rule = error.rule
        if let option, option.constraint.isNullable, let got = rule.ranges(of: ", got ").last {
            rule.replaceSubrange(got, with: " or off, got ")
        }
        return UsageError("--\(option?.flag ?? error.field.rawValue) \(rule)")
    }
}
