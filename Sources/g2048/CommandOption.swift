import Game2048
import GymJSON
import Game2048Network

/// One option of a command, declared once: its key, the flag derived from it, the value's name and help,
/// its typed default, and the constraint that turns the flag's text into a value or a precise error.
///
///     static let games = CommandOption.integer("games", help: "Games to play.", in: 1...10_000_000).defaulting(to: 1000)
///     games = try arguments[Self.games]                  // an Int: 1000 when --games is not given
///
/// The kinds (``integer(_:_:help:in:)``, ``number(_:_:help:in:)``, ``choice(_:_:help:of:)-(String,_,_,_)``, …) read to an
/// optional, `nil` when the flag is absent; ``defaulting(to:shown:)`` gives the option its default and
/// the `(default: …)` of its help line; ``shown(_:)`` words a default that depends on other options.
/// swift-argument-parser's `@Option(help:) var games = 1000` is the model: the name, the type, the
/// default and the help stated once.
struct CommandOption<Value: Sendable>: Sendable {
    /// How `--help` shows the option and how the parser recognises it.
    let spec: OptionSpec
    /// The value when the flag is absent.
    let absent: Value
    /// The value of the text given; the error names the flag and quotes the text.
    let parse: @Sendable (String) throws(UsageError) -> Value

    /// The flag without its dashes (`checkpoint-every`).
    var flag: String { spec.name }

    /// The flag of a snake_case key: `checkpoint_every` is `--checkpoint-every`.
    static func flag(ofKey key: String) -> String { String(key.map { $0 == "_" ? "-" : $0 }) }
}

extension CommandOption {
    /// This option with `text` as the default its help line shows (a default that depends on other options).
    func shown(_ text: String) -> CommandOption {
        var spec = spec
        spec.defaultValue = text
        return CommandOption(spec: spec, absent: absent, parse: parse)
    }

    /// This option, declaring that it accepts the integers in `range` (see ``OptionSpec/integers``); unchanged
    /// for `nil` (an option whose value is no integer).
    func accepting(integers range: ClosedRange<Int>?) -> CommandOption {
        guard let range else { return self }
        return CommandOption(spec: spec.accepting(integers: Int128(range.lowerBound)...Int128(range.upperBound)), absent: absent, parse: parse)
    }

    /// This option with a default: the value when the flag is absent, shown in the help as `shown`
    /// (by default the value as the flag would spell it).
    func defaulting<Wrapped: Sendable>(to value: Wrapped, shown: String? = nil) -> CommandOption<Wrapped> where Value == Wrapped? {
        var spec = spec
        spec.defaultValue = shown ?? Self.spelled(value)
        let parse = self.parse, flag = flag
        return CommandOption<Wrapped>(spec: spec, absent: value) { text throws(UsageError) in
            // Every kind parses to a value: `nil` stands only for an absent flag.
            guard let value = try parse(text) else { throw UsageError("--\(flag) needs a value") }
            return value
        }
    }

    /// A default as a user would type it: `2` for 2.0, a choice's name, `off` for none.
    static func spelled(_ value: Any) -> String {
        switch value {
        case let number as Double where number.rounded() == number && abs(number) < 1e15: "\(Int(number))"
        case let choice as any RawRepresentable<String>: choice.rawValue
        case let optional as Int?: optional.map { "\($0)" } ?? "off"
        default: "\(value)"
        }
    }
}

// MARK: Kinds

extension CommandOption where Value == Int? {
    /// An integer within `range`.
    ///
    /// - Throws: "--games must be an integer, got 'x'", "--games must be an integer from 1 to 1000000, got 0"; an
    ///   integer too large for the machine is out of range, not "not an integer".
    static func integer(_ key: String, _ valueName: String = "n", help: String, in range: ClosedRange<Int>) -> CommandOption<Int?> {
        let flag = flag(ofKey: key)
        let spec = OptionSpec.option(flag, valueName, help).accepting(integers: Int128(range.lowerBound)...Int128(range.upperBound))
        return CommandOption<Int?>(spec: spec, absent: nil) { text throws(UsageError) in
            guard let value = Int(text), range.contains(value) else {
                guard isIntegerText(text) else { throw UsageError("--\(flag) must be an integer, got '\(text)'") }
                throw UsageError("--\(flag) must be \(OptionConstraint.expectation(integersIn: range)), got \(text)")
            }
            return value
        }
    }

}

extension CommandOption where Value == Double? {
    /// A floating-point number within `range`.
    ///
    /// - Throws: "--alpha must be a number, got 'x'", "--alpha must be a finite number, got nan",
    ///   "--alpha must be a number from 1e-09 to 1.0, got 11".
    static func number(_ key: String, _ valueName: String, help: String, in range: ClosedRange<Double>) -> CommandOption<Double?> {
        let flag = flag(ofKey: key)
        return CommandOption<Double?>(spec: .option(flag, valueName, help), absent: nil) { text throws(UsageError) in
            guard let value = Double(text) else { throw UsageError("--\(flag) must be a number, got '\(text)'") }
            guard value.isFinite else { throw UsageError("--\(flag) must be a finite number, got \(text)") }
            guard range.contains(value) else {
                throw UsageError("--\(flag) must be \(OptionConstraint.expectation(numbersIn: range)), got \(text)")
            }
            return value
        }
    }

}

extension CommandOption where Value == UInt64? {
    /// A seed: any unsigned 64-bit integer.
    static func seed(help: String) -> CommandOption<UInt64?> { unsigned("seed", "seed", help: help) }

    /// An option taking any unsigned 64-bit integer (a seed).
    static func unsigned(_ key: String, _ valueName: String, help: String) -> CommandOption<UInt64?> {
        let flag = flag(ofKey: key)
        return CommandOption<UInt64?>(spec: OptionSpec.option(flag, valueName, help).accepting(integers: 0...Int128(UInt64.max)), absent: nil) {
            text throws(UsageError) in
            guard let value = UInt64(text) else { throw UsageError("--\(flag) must be an integer from 0 to \(UInt64.max), got '\(text)'") }
            return value
        }
    }

}

extension CommandOption {
    /// One of the cases of `Choice`, by name.
    ///
    /// - Throws: "--update must be one of forward, backward, got 'x'".
    static func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(
        _ key: String, _ valueName: String, help: String, of _: Choice.Type = Choice.self
    ) -> CommandOption<Choice?> where Value == Choice? {
        let flag = flag(ofKey: key)
        return CommandOption<Choice?>(spec: .option(flag, valueName, help), absent: nil) { text throws(UsageError) in
            guard let choice = Choice(rawValue: text) else {
                throw UsageError("--\(flag) must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
            }
            return choice
        }
    }

    /// A value whose text `parse` reads and checks (a path, a list of tiles).
    static func parsed<Parsed: Sendable>(
        _ key: String, _ valueName: String, help: String, _ parse: @escaping @Sendable (String) throws(UsageError) -> Parsed
    ) -> CommandOption<Parsed?> where Value == Parsed? {
        CommandOption<Parsed?>(spec: .option(flag(ofKey: key), valueName, help), absent: nil) { text throws(UsageError) in try parse(text) }
    }

}

extension CommandOption where Value == String? {
    /// A file path or other text, as given.
    static func text(_ key: String, _ valueName: String, help: String) -> CommandOption<String?> {
        parsed(key, valueName, help: help) { $0 }
    }

}

/// Whether `text` is an optional sign and digits (an integer of any size).
func isIntegerText(_ text: String) -> Bool {
    let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
}

extension CommandOption where Value == Bool {
    /// A boolean flag: true when given.
    static func flag(_ key: String, help: String) -> CommandOption<Bool> {
        CommandOption(spec: .flag(flag(ofKey: key), help), absent: false) { _ throws(UsageError) in true }
    }
}

// MARK: Rules options
extension OptionConstraint {
    /// The integers the constraint allows, or `nil` when its values are no integers.
    var integers: ClosedRange<Int>? {
        // Inlined into the static tables of flags, this read crashes the release build's optimizer (Swift 6.3.1:
        // "Found outside of lifetime use").
        @inline(never) get {
            guard case .integer(let range, _) = self else { return nil }
            return range
        }
    }

    /// Whether the option can be off (`null`, `off` on the command line).
    var isNullable: Bool { if case .integer(_, nullable: true) = self { true } else { false } }
}

extension CommandOption where Value == Int? {
    /// The board's rows or columns, from the rules option (its flag, value name, range and help),
    /// with this command's `help` when it words it otherwise.
    static func boardSize(_ option: RulesOption, help: String? = nil) -> CommandOption<Int?> {
        guard case .integer(let range, _) = option.constraint else { preconditionFailure("\(option.name) is no board size") }
        let size = integer(option.name, option.valueName, help: help ?? option.help, in: range)
        return size
    }

}

extension CommandOption where Value == Int?? {
    /// `--win-tile`: a power of two from 4 to 2^50, or `off` (`.some(nil)`); `nil` when absent. From the
    /// rules option, with this command's help.
    static func winTile(help: String) -> CommandOption<Int??> {
        let option = RulesOption.winTile
        let flag = option.flag
        return CommandOption<Int??>(spec: .option(flag, option.valueName, help), absent: nil) { text throws(UsageError) in
            if text == "off" { return .some(nil) }
            let rule = "--\(flag) must be a power of two from \(Rules.winTileRange.lowerBound) to 2^\(Rules.maxExponent) or off, got"
            guard let tile = Int(text) else { throw UsageError("\(rule) '\(text)'") }
            do { _ = try Rules(winTile: tile) } catch { throw UsageError("\(rule) \(text)") }
            return tile
        }
    }
}

// MARK: Search options

extension CommandOption where Value == UInt8?? {
    /// `--downgrade`: the exponent of the tile from which a network's search downgrades boards (see
    /// `TileDowngrade`), `.some(nil)` for `off`; `on` is the 32 768 tile. `nil` when absent, so that the
    /// weights file's tile can apply.
    ///
    /// - Throws: ``UsageError`` for anything but on, off or a power of two from 8 to 32768.
    static func downgrade(help: String) -> CommandOption<UInt8??> {
        parsed("downgrade", "tile", help: help) { text throws(UsageError) -> UInt8? in
            switch text {
            case "off": return nil
            case "on": return TileDowngrade.defaultLimit
            default:
                guard isIntegerText(text), let tile = Int(text), tile > 0, tile & (tile - 1) == 0,
                    TileDowngrade.limitRange.contains(UInt8(tile.trailingZeroBitCount))
                else {
                    throw UsageError("--downgrade must be on, off or a power of two from 8 to 32768, got '\(text)'")
                }
                return UInt8(tile.trailingZeroBitCount)
            }
        }
    }

    /// The tile a network's search downgrades from: `--downgrade`'s (`flag`, `nil` when not given), else the
    /// weights file's, else the 32 768 tile.
    static func downgradeLimit(flag: UInt8??, recorded: UInt8?) -> UInt8? {
        TileDowngrade.limit(given: flag, recorded: recorded)
    }
}
