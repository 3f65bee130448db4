// A small, dependency-free argument parser following swift-argument-parser's
// conventions: `--name value` or `--name=value`, boolean flags, `-h/--help`,
// generated help with `<value>` names and `(default: …)`. Parsing is a pure
// function from `[String]` to `ParsedArguments`, so tests call it directly.

import Game2048
import Game2048Learning

/// One option or flag of a command.
struct OptionSpec: Equatable {
    /// The long name without dashes, e.g. `rows`.
    var name: String
    /// The value's name in help, e.g. `n`; `nil` for a boolean flag.
    var valueName: String?
    /// One short sentence.
    var help: String
    /// The default shown in help, if any.
    var defaultValue: String?

    /// An option that takes a value.
    static func option(_ name: String, _ valueName: String, _ help: String, default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, defaultValue: defaultValue)
    }

    /// A boolean flag.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, defaultValue: nil)
    }

    var isFlag: Bool { valueName == nil }
}

/// What a subcommand accepts, and the text of its help.
struct CommandSpec: Equatable {
    /// The subcommand's name, e.g. `bench`.
    var name: String
    /// The one-sentence abstract.
    var abstract: String
    /// Longer help text, printed after the options; may be empty.
    var discussion: String = ""
    /// The options, in help order.
    var options: [OptionSpec]
    /// The name of the one positional argument the command accepts (e.g. `file`), or `nil` for none.
    var positional: String? = nil

    /// The one-line usage, e.g. `g2048 bench [--rows <n>] [--json]`.
    var usage: String {
        (["g2048", name] + (positional.map { ["<\($0)>"] } ?? [])
            + options.map { $0.isFlag ? "[--\($0.name)]" : "[--\($0.name) <\($0.valueName!)>]" })
            .joined(separator: " ")
    }

    /// The full `--help` text.
    var help: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: \(usage)", "", "OPTIONS:"]
        let rows =
            options.map { option -> (String, String) in
                let left = option.isFlag ? "--\(option.name)" : "--\(option.name) <\(option.valueName!)>"
                let right = option.help + (option.defaultValue.map { " (default: \($0))" } ?? "")
                return (left, right)
            } + [("-h, --help", "Show help information.")]
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        for (left, right) in rows {
            lines.append("  " + left + String(repeating: " ", count: max(2, width - left.count)) + right)
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n")
    }
}

/// The result of parsing: option values by name, flags that were given, and whether help was asked for.
struct ParsedArguments: Equatable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var helpRequested = false
    /// The positional arguments, in order (at most one, when the spec names one).
    var positionals: [String] = []

    /// Whether the flag `name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The raw string given for `name`, if any.
    func string(_ name: String) -> String? { values[name] }

    /// An integer option within `range`, or `defaultValue` when absent.
    ///
    /// - Throws: ``UsageError`` such as "--games must be an integer, got 'x'"
    ///   or "--games must be between 1 and 1000000, got 0"; the value is quoted as typed,
    ///   and an integer too large for the machine is reported as out of range, not as "not an integer".
    func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            guard ParsedArguments.isInteger(text) else { throw UsageError("--\(name) must be an integer, got '\(text)'") }
            throw UsageError("--\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(text)")
        }
        return value
    }

    /// Whether `text` is an optional sign and digits (an integer of any size).
    static func isInteger(_ text: String) -> Bool {
        let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// An optional integer option within `range`.
    func optionalInt(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard values[name] != nil else { return nil }
        return try int(name, default: 0, in: range)
    }

    /// An unsigned 64-bit option (seeds), or `defaultValue` when absent.
    func uint64(_ name: String, default defaultValue: UInt64) throws(UsageError) -> UInt64 {
        guard let text = values[name] else { return defaultValue }
        guard let value = UInt64(text) else {
            throw UsageError("--\(name) must be an integer from 0 to \(UInt64.max), got '\(text)'")
        }
        return value
    }

    /// A floating-point option within `range`, or `defaultValue` when absent.
    ///
    /// - Throws: ``UsageError`` quoting the value as typed: "--alpha must be a number, got 'x'",
    ///   "--alpha must be a finite number, got nan", "--alpha must be between 1e-09 and 10.0, got 11".
    func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = values[name] else { return defaultValue }
        guard let value = Double(text) else { throw UsageError("--\(name) must be a number, got '\(text)'") }
        guard value.isFinite else { throw UsageError("--\(name) must be a finite number, got \(text)") }
        guard range.contains(value) else {
            throw UsageError("--\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(text)")
        }
        return value
    }

    /// `--win-tile`: a power of two from 4 to 2^50, `off` for none, or `defaultValue` when absent.
    ///
    /// - Throws: ``UsageError`` quoting the value: "--win-tile must be a power of two from 4 to 2^50 or off, got 3".
    func winTile(default defaultValue: Int?) throws(UsageError) -> Int? {
        guard let text = values["win-tile"] else { return defaultValue }
        if text == "off" { return nil }
        let rule = "--win-tile must be a power of two from 4 to 2^\(Rules.maxExponent) or off, got"
        guard let tile = Int(text) else { throw UsageError("\(rule) '\(text)'") }
        do { _ = try Rules(winTile: tile) } catch { throw UsageError("\(rule) \(text)") }
        return tile
    }

    /// `--downgrade`, if given: the exponent of the tile from which a network's search downgrades boards
    /// (see `TileDowngrade`), `.some(nil)` for `off`; `on` is the 32 768 tile. `nil` when not given, so
    /// that the weights file's tile can apply.
    ///
    /// - Throws: ``UsageError`` for anything but on, off or a power of two from 8 to 32768.
    func downgradeLimit() throws(UsageError) -> UInt8?? {
        guard let text = values["downgrade"] else { return nil }
        switch text {
        case "off": return .some(nil)
        case "on": return TileDowngrade.defaultLimit
        default:
            guard Self.isInteger(text), let tile = Int(text), tile > 0, tile & (tile - 1) == 0,
                TileDowngrade.limitRange.contains(UInt8(tile.trailingZeroBitCount))
            else {
                throw UsageError("--downgrade must be on, off or a power of two from 8 to 32768, got '\(text)'")
            }
            return UInt8(tile.trailingZeroBitCount)
        }
    }

    /// The tile a network's search downgrades from: `--downgrade`'s (`flag`, `nil` when not given), else the
    /// weights file's, else the 32 768 tile.
    static func downgradeLimit(flag: UInt8??, recorded: UInt8?) -> UInt8? {
        flag ?? recorded ?? TileDowngrade.defaultLimit
    }

    /// The board size from `--rows` and `--cols`, each checked under its own name; a size given alone
    /// stands for both (a square board). `nil` when neither is given.
    ///
    /// - Throws: ``UsageError`` naming the flag at fault: "--cols must be between 2 and 8, got 1".
    func boardSize() throws(UsageError) -> (rows: Int, cols: Int)? {
        let rows = try optionalInt("rows", in: Rules.sizeRange.lowerBound...Rules.sizeRange.upperBound)
        let cols = try optionalInt("cols", in: Rules.sizeRange.lowerBound...Rules.sizeRange.upperBound)
        guard let size = rows ?? cols else { return nil }
        return (rows ?? size, cols ?? size)
    }
}

/// Parses `arguments` (without the program and subcommand names) against `spec`.
///
///     try parseArguments(["--rows", "5", "--json"], spec: BenchCommand.spec)
///     // values ["rows": "5"], flags ["json"]
///
/// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated
///   option, or a stray positional argument.
func parseArguments(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if argument == "-h" || argument == "--help" {
            parsed.helpRequested = true
            continue
        }
        guard argument.hasPrefix("--"), argument.count > 2 else {
            guard spec.positional != nil, parsed.positionals.isEmpty, !argument.hasPrefix("-") else {
                throw UsageError("unexpected argument '\(argument)'")
            }
            parsed.positionals.append(argument)
            continue
        }
        var name = String(argument.dropFirst(2))
        var inlineValue: String? = nil
        if let equals = name.firstIndex(of: "=") {
            inlineValue = String(name[name.index(after: equals)...])
            name = String(name[..<equals])
        }
        guard let option = spec.options.first(where: { $0.name == name }) else {
            throw UsageError("unknown option '--\(name)'")
        }
        if option.isFlag {
            guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
            parsed.flags.insert(name)
            continue
        }
        guard parsed.values[name] == nil else { throw UsageError("--\(name) given more than once") }
        if let inlineValue {
            parsed.values[name] = inlineValue
        } else {
            guard index < arguments.count else { throw UsageError("--\(name) needs a value <\(option.valueName!)>") }
            parsed.values[name] = arguments[index]
            index += 1
        }
    }
    return parsed
}
