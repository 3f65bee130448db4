import Testing
@testable import g2048

/// The pure parser, row by row (swift-configuration's CLIArgumentParserTests style).
struct ArgumentsTests {
    static let spec = CommandSpec(
        name: "demo", abstract: "A demo command.",
        options: [.option("rows", "n", "Rows.", default: "4"), .option("seed", "seed", "Seed."), .flag("json", "JSON output.")])

    @Test func parsesSeparateAndInlineValuesAndFlags() throws {
        let parsed = try parseArguments(["--rows", "5", "--seed=7", "--json"], spec: Self.spec)
        #expect(parsed.values == ["rows": "5", "seed": "7"])
        #expect(parsed.flags == ["json"])
        #expect(!parsed.helpRequested)
    }

    @Test func emptyArgumentsParseToNothing() throws {
        #expect(try parseArguments([], spec: Self.spec) == ParsedArguments())
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

    @Test func typedGettersValidateRangeAndSyntax() throws {
        let parsed = try parseArguments(["--rows", "9", "--seed", "-1"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be between 2 and 8, got 9")) {
            try parsed.int("rows", default: 4, in: 2...8)
        }
        #expect(throws: UsageError("--seed must be an integer from 0 to 18446744073709551615, got '-1'")) {
            try parsed.uint64("seed", default: 0)
        }
        let good = try parseArguments(["--rows", "6", "--seed", "18446744073709551615"], spec: Self.spec)
        #expect(try good.int("rows", default: 4, in: 2...8) == 6)
        #expect(try good.uint64("seed", default: 0) == UInt64.max)
        #expect(try ParsedArguments().int("rows", default: 4, in: 2...8) == 4)
    }

    /// Integers are quoted as typed, and one too large for Int is out of range rather than "not an integer".
    @Test(arguments: [
        ("99999999999999999999", "--rows must be between 2 and 8, got 99999999999999999999"),
        ("009", "--rows must be between 2 and 8, got 009"),
        ("+9", "--rows must be between 2 and 8, got +9"),
        ("4.0", "--rows must be an integer, got '4.0'"),
        ("", "--rows must be an integer, got ''"),
    ])
    func integerErrorsQuoteTheValueAsTyped(text: String, message: String) throws {
        let parsed = try parseArguments(["--rows", text], spec: Self.spec)
        #expect(throws: UsageError(message)) { try parsed.int("rows", default: 4, in: 2...8) }
    }

    /// `--cols 1` alone once reported `--rows`: each size flag is checked under its own name.
    @Test(arguments: [
        (["--cols", "1"], "--cols must be between 2 and 8, got 1"),
        (["--rows", "1"], "--rows must be between 2 and 8, got 1"),
        (["--rows", "3", "--cols", "9"], "--cols must be between 2 and 8, got 9"),
    ])
    func boardSizeNamesTheFlagAtFault(arguments: [String], message: String) throws {
        let parsed = try parseArguments(arguments, spec: BenchCommand.spec)
        #expect(throws: UsageError(message)) { try parsed.boardSize() }
    }

    @Test func boardSizeGivenOnceIsSquare() throws {
        #expect(try parseArguments(["--cols", "5"], spec: BenchCommand.spec).boardSize()! == (5, 5))
        #expect(try parseArguments(["--rows", "3", "--cols", "6"], spec: BenchCommand.spec).boardSize()! == (3, 6))
        #expect(try ParsedArguments().boardSize() == nil)
    }

    @Test func doubleGetterRejectsNonFiniteAndOutOfRange() throws {
        let parsed = try parseArguments(["--rows", "nan"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be a finite number, got nan")) { try parsed.double("rows", default: 1, in: 0...10) }
        for text in ["inf", "-infinity", "NaN"] {
            let odd = try parseArguments(["--rows", text], spec: Self.spec)
            #expect(throws: UsageError("--rows must be a finite number, got \(text)")) { try odd.double("rows", default: 1, in: 0...10) }
        }
        let word = try parseArguments(["--rows", "ten"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be a number, got 'ten'")) { try word.double("rows", default: 1, in: 0...10) }
        let big = try parseArguments(["--rows", "11"], spec: Self.spec)
        #expect(throws: UsageError("--rows must be between 0.0 and 10.0, got 11")) { try big.double("rows", default: 1, in: 0...10) }
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
