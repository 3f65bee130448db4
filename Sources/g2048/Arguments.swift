// A small, dependency-free argument parser following swift-argument-parser's
// conventions: `--name value` or `--name=value`, boolean flags, `-h/--help`,
// generated help with `<value>` names and `(default: …)`. Parsing is a pure
// function from `[String]` to `ParsedArguments`, so tests call it directly.

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
    /// The integers the option accepts, for an option whose value is an integer (`--games`, `--seed`, `--rows`),
    /// else `nil`: what a test of every flag at its bounds reads, so that a new flag is covered when declared.
    var integers: ClosedRange<Int128>? = nil

    /// An option that takes a value.
    static func option(_ name: String, _ valueName: String, _ help: String, default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, defaultValue: defaultValue)
    }

    /// This option, accepting the integers in `range`.
    func accepting(integers range: ClosedRange<Int128>) -> OptionSpec {
        var spec = self
        spec.integers = range
        return spec
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

    /// The full `--help` text, no line longer than ``helpWidth`` columns.
    var help: String {
        var lines = ["OVERVIEW: \(abstract)", ""]
        lines += wrap("USAGE: \(usage)", width: helpWidth, indent: String(repeating: " ", count: "USAGE: g2048 \(name) ".count))
        lines += ["", "OPTIONS:"]
        let rows =
            options.map { option -> (String, String) in
                let left = option.isFlag ? "--\(option.name)" : "--\(option.name) <\(option.valueName!)>"
                let right = option.help + (option.defaultValue.map { " (default: \($0))" } ?? "")
                return (left, right)
            } + [("-h, --help", "Show help information.")]
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        let column = String(repeating: " ", count: 2 + width)
        for (left, right) in rows {
            lines += wrap("  " + left + String(repeating: " ", count: max(2, width - left.count)) + right, width: helpWidth, indent: column)
        }
        if !discussion.isEmpty { lines += [""] + Self.reflow(discussion, width: helpWidth) }
        return lines.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` columns: its paragraphs (separated by blank lines) joined and
    /// broken again at spaces, whatever the width the source was written at; an indented line stays a
    /// line of its own (a list entry, an example), its continuation under its first word.
    static func reflow(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], paragraph: [Substring] = []
        func flush() {
            if !paragraph.isEmpty { lines += wrap(paragraph.joined(separator: " "), width: width, indent: "") }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                flush()
                lines.append("")
            } else if line.first == " " {
                flush()
                let indent = line.prefix { $0 == " " }
                let hanging = indent + String(repeating: " ", count: line.dropFirst(indent.count).prefix { $0 != " " }.count + 1)
                lines += wrap(String(line), width: width, indent: String(hanging))
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return lines
    }
}

/// The widest line of any help text: terminals of 100 columns show every line whole.
let helpWidth = 100

/// `line` broken at spaces into lines of at most `width` characters, the later ones starting with
/// `indent`; a word longer than a line stays whole.
func wrap(_ line: String, width: Int, indent: String) -> [String] {
    guard line.count > width else { return [line] }
    let leading = String(line.prefix { $0 == " " })
    var lines: [String] = [], current = leading
    for word in line.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false) {
        let candidate = current.count == (lines.isEmpty ? leading : indent).count ? current + word : current + " " + word
        if candidate.count > width && current.count > (lines.isEmpty ? leading : indent).count {
            lines.append(current)
            current = indent + word
        } else {
            current = candidate
        }
    }
    lines.append(current)
    return lines
}

/// The result of parsing: option values by name, flags that were given, and whether help was asked for.
///
/// Values are read back typed, through the command's declarations: `try arguments[Self.games]`.
struct ParsedArguments: Equatable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var helpRequested = false
    /// The positional arguments, in order (at most one, when the spec names one).
    var positionals: [String] = []
    /// The flags of the options the command declares: reading any other is a programming error.
    var declared: Set<String> = []

    /// The value of `option`: parsed from its text, or its default when it was not given.
    ///
    /// - Throws: ``UsageError`` naming the flag, what it allows and the text given.
    subscript<Value>(option: CommandOption<Value>) -> Value {
        get throws(UsageError) {
            guard let text = text(of: option) else { return option.absent }
            return try option.parse(text)
        }
    }

    /// Whether `option` was given (a flag, or an option with a value).
    func contains<Value>(_ option: CommandOption<Value>) -> Bool {
        text(of: option) != nil
    }

    /// The text given for `option` (`""` for a flag), or `nil`.
    private func text<Value>(of option: CommandOption<Value>) -> String? {
        precondition(declared.contains(option.flag), "--\(option.flag) is read but not declared by the command")
        return option.spec.isFlag ? (flags.contains(option.flag) ? "" : nil) : values[option.flag]
    }

    /// The board size from `rows` and `cols`, each checked under its own flag; a size given alone stands
    /// for both (a square board). `nil` when neither is given.
    func boardSize(rows: CommandOption<Int?>, cols: CommandOption<Int?>) throws(UsageError) -> (rows: Int, cols: Int)? {
        let (rows, cols) = (try self[rows], try self[cols])
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
    var parsed = ParsedArguments(declared: Set(spec.options.map(\.name)))
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
