import Game2048Training
import Testing
@testable import g2048

/// The pure parser, row by row (swift-configuration's CLIArgumentParserTests style).
struct ArgumentsTests {
    static let rows = CommandOption.integer("rows", help: "Rows.", in: 2...8).defaulting(to: 4)
    static let seed = CommandOption.seed(help: "Seed.")
    static let json = CommandOption.flag("json", help: "JSON output.")
    static let spec = CommandSpec(name: "demo", abstract: "A demo command.", options: [rows.spec, seed.spec, json.spec])

    /// The same flag read as other kinds.
    static let rowsAsNumber = CommandOption.number("rows", "n", help: "Rows.", in: 0...10).defaulting(to: 1)
    static let rowsAsSchedule = CommandOption.choice("rows", "n", help: "Rows.", of: TDLearner.Schedule.self)

    @Test func parsesSeparateAndInlineValuesAndFlags() throws {
        let parsed = try parseArguments(["--rows", "5", "--seed=7", "--json"], spec: Self.spec)
        #expect(parsed.values == ["rows": "5", "seed": "7"])
        #expect(parsed.flags == ["json"])
        #expect(!parsed.helpRequested)
    }

    @Test func emptyArgumentsParseToNothing() throws {
        #expect(try parseArguments([], spec: Self.spec) == ParsedArguments(declared: ["rows", "seed", "json"]))
    }

    @Test(arguments: [["-h"], ["--help"], ["--rows", "3", "--help"]])
    func helpIsRecognizedAnywhere(arguments: [String]) throws {
        #expect(try parseArguments(arguments, spec: Self.spec).helpRequested)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--rows"], "--rows needs a value <n>"),
        (["--rows", "3", "--rows", "4"], "--rows given more than once"),
        (["--json=yes"], "--json takes no value"),
        (["stray"], "unexpected argument 'stray'"),
        (["-x"], "unexpected argument '-x'"),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try parseArguments(arguments, spec: Self.spec) }
    }

    @Test func typedReadsValidateRangeAndSyntax() throws {
        let parsed = try parseArguments(["--rows", "9", "--seed", "-1"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be an integer from 2 to 8, got 9")) { try parsed[Self.rows] }
        #expect(throws: UsageError("--seed must be an integer from 0 to 18446744073709551615, got '-1'")) { try parsed[Self.seed] }
        let good = try parseArguments(["--rows", "6", "--seed", "18446744073709551615", "--json"], spec: Self.spec)
        #expect(try good[Self.rows] == 6 && good[Self.seed] == UInt64.max && good[Self.json])
        let empty = try parseArguments([], spec: Self.spec)
        #expect(try empty[Self.rows] == 4 && empty[Self.seed] == nil && !empty[Self.json])
        #expect(!empty.contains(Self.rows) && good.contains(Self.rows) && good.contains(Self.json))
    }

    @Test func choicesListTheirCases() throws {
        let parsed = try parseArguments(["--rows", "sideways"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be one of forward, backward, got 'sideways'")) { try parsed[Self.rowsAsSchedule] }
        #expect(try parseArguments(["--rows", "backward"], spec: Self.spec)[Self.rowsAsSchedule] == .backward)
    }

    /// The help's defaults come from the typed defaults, spelled as a user types them.
    @Test func defaultsAreShownAsTyped() {
        #expect(Self.rows.spec.defaultValue == "4")
        #expect(Self.rowsAsNumber.spec.defaultValue == "1")
        #expect(CommandOption.winTile(help: "").defaulting(to: nil as Int?).spec.defaultValue == "off")
        #expect(CommandOption.choice("u", "s", help: "", of: TDLearner.Schedule.self).defaulting(to: .forward).spec.defaultValue == "forward")
    }

    /// Every command reads only what it declares: a read of anything else stops the test run here, so
    /// each command is built from its declared defaults (and, where one is required, a value).
    @Test(arguments: G2048.commands.map { $0.spec.name })
    func everyCommandReadsOnlyDeclaredOptions(command: String) throws {
        let type = try #require(G2048.commands.first { $0.spec.name == command })
        let required = [
            "replay": ["record.jsonl"], "play": ["--rows", "4"], "solve": ["--out", "s.bin"], "query": ["--solution", "s.bin", "--board", "[]"],
            "rank submit": ["--team", "t", "--agent", "a", "record.jsonl"],
        ]
        let arguments = required[command] ?? []
        _ = try type.init(parseArguments(arguments, spec: type.spec))
    }

    /// Integers are quoted as typed, and one too large for Int is out of range rather than "not an integer".
    @Test(arguments: [
        ("99999999999999999999", "--rows must be an integer from 2 to 8, got 99999999999999999999"),
        ("009", "--rows must be an integer from 2 to 8, got 009"),
        ("+9", "--rows must be an integer from 2 to 8, got +9"),
        ("4.0", "--rows must be an integer, got '4.0'"),
        ("", "--rows must be an integer, got ''"),
    ])
    func integerErrorsQuoteTheValueAsTyped(text: String, message: String) throws {
        let parsed = try parseArguments(["--rows", text], spec: Self.spec)
        #expect(throws: UsageError(message)) { try parsed[Self.rows] }
    }

    /// `--cols 1` alone once reported `--rows`: each size flag is checked under its own name.
    @Test(arguments: [
        (["--cols", "1"], "--cols must be an integer from 2 to 8, got 1"),
        (["--rows", "1"], "--rows must be an integer from 2 to 8, got 1"),
        (["--rows", "3", "--cols", "9"], "--cols must be an integer from 2 to 8, got 9"),
    ])
    func boardSizeNamesTheFlagAtFault(arguments: [String], message: String) throws {
        let parsed = try parseArguments(arguments, spec: BenchCommand.spec)
        #expect(throws: UsageError(message)) { try parsed.boardSize(rows: BenchCommand.rows, cols: BenchCommand.cols) }
    }

    @Test func boardSizeGivenOnceIsSquare() throws {
        func size(_ arguments: [String]) throws -> (rows: Int, cols: Int)? {
            try parseArguments(arguments, spec: BenchCommand.spec).boardSize(rows: BenchCommand.rows, cols: BenchCommand.cols)
        }
        #expect(try size(["--cols", "5"])! == (5, 5))
        #expect(try size(["--rows", "3", "--cols", "6"])! == (3, 6))
        #expect(try size([]) == nil)
    }

    @Test func numbersRejectNonFiniteAndOutOfRange() throws {
        let parsed = try parseArguments(["--rows", "nan"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be a finite number, got nan")) { try parsed[Self.rowsAsNumber] }
        for text in ["inf", "-infinity", "NaN"] {
            let odd = try parseArguments(["--rows", text], spec: Self.spec)
            #expect(throws: UsageError("--rows must be a finite number, got \(text)")) { try odd[Self.rowsAsNumber] }
        }
        let word = try parseArguments(["--rows", "ten"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be a number, got 'ten'")) { try word[Self.rowsAsNumber] }
        let big = try parseArguments(["--rows", "11"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be a number from 0.0 to 10.0, got 11")) { try big[Self.rowsAsNumber] }
    }

    @Test func helpTextFollowsArgumentParserConventions() {
        #expect(
            Self.spec.help == """
                OVERVIEW: A demo command.

                USAGE: g2048 demo [--rows <n>] [--seed <seed>] [--json]

                OPTIONS:
                  --rows <n>     Rows. (default: 4)
                  --seed <seed>  Seed.
                  --json         JSON output.
                  -h, --help     Show help information.
                """)
    }
}
