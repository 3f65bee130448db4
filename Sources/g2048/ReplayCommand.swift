import GymPlay
import GymSystem
import GymCore
import GymGames

/// `g2048 replay`: show a recorded game again and check that it reproduces exactly from its seed.
///
/// The work is done by `ReplayViewer` in GymPlay.
struct ReplayCommand: Command {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Show a game recorded by 'g2048 play --record' step by step, checking that it replays.",
        discussion: """
            Every episode in the file is replayed from its seed first: the start board, and each step's
            reward, spawned tile and score must match the record, or the first difference is reported and
            the exit status is 1. A malformed or truncated record is reported in one line, also with 1.
            A record of another game ('g2048 play --game NAME --record') is replayed through the game's
            declaration the same way: what the seed dealt, and each action's reward and what the game
            records of it.

            --game names the game the record must hold; without it, the record's first header says.

            A games record ('g2048 eval --record', a line a game) is checked the same way, every game replayed
            from its seed and actions, and summarized; it has no boards to show.

            Records of format version 1 (from before records had end lines) are still replayed, with a note
            on stderr that a record cut off at a line boundary cannot be detected in them.

            Then the positions are shown --delay milliseconds apart, and one 'verified' line per episode
            is printed. The format is described in docs/RECORDS.md; gym2048.replay_record() in
            python/ checks a record the same way.
            """,
        options: [GameFlag.option.spec, Self.file.spec, Self.delay.spec, Self.check.spec],
        positional: "file")

    static let file = CommandOption.text("file", "file", help: "The record (JSON Lines) to replay; the same as the positional <file>.")
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between steps; 0 shows all at once.", in: 0...600_000)
        .shown("150, or 0 when stdout is not a terminal")
    static let check = CommandOption.flag("check", help: "Only verify the record and print the summary, without showing the boards.")

    var path: String
    var delay: Int?
    var checkOnly: Bool
    var registry: GameRegistry = .standard
    /// The game `--game` says the record holds (`nil`: the one its first header names).
    var game: GameDeclaration? = nil

    init(_ arguments: ParsedArguments, registry: GameRegistry) throws(UsageError) {
        try self.init(arguments)
        self.registry = registry
        // The name was checked against the registry before the arguments were parsed.
        game = try arguments[GameFlag.option].flatMap(registry.named)
    }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let file = try arguments[Self.file]
        guard let path = arguments.positionals.first ?? file else { throw UsageError("missing <file>: the record to replay") }
        if !arguments.positionals.isEmpty && file != nil { throw UsageError("give the record once: <file> or --file") }
        self.path = path
        delay = try arguments[Self.delay]
        checkOnly = try arguments[Self.check]
    }

    func run() throws -> Int32 {
        if let bytes = try? SystemIO.readFile(path, limit: GamesRecord.maxBytes), GamesRecord.starts(bytes) { return try checkGames(bytes) }
        let pace = PlayOutcome.pace(delay)
        // 2048's records have lines of their own; every other game's are read through its declaration.
        let game = self.game ?? registry.gameOfRecord(at: path)
        guard let game, game.name != GameFlag.twentyFortyEight else {
            var viewer = ReplayViewer<EpisodeReplay.Replayer>(source: .file(path), name: path, delay: pace, checkOnly: checkOnly)
            (viewer.registry, viewer.output) = (registry, Console.outputDescriptor)
            return viewer.run().exitCode()
        }
        var viewer = ReplayViewer<DeclaredReplayer>(source: .file(path), name: path, delay: pace, checkOnly: checkOnly)
        (viewer.registry, viewer.game, viewer.output) = (registry, game, Console.outputDescriptor)
        return viewer.run().exitCode()
    }

    /// Verifies a games record and prints its summary, or the first difference (exit 1).
    func checkGames(_ bytes: [UInt8]) throws -> Int32 {
        let verified: VerifiedGames
        do throws(GamesRecordError) {
            verified = try GamesRecord.parse(bytes, registry: registry).verify()
        } catch {
            Console.error("error: \(path): \(error)")
            return ExitCode.failure
        }
        let record = verified.record
        let reach = verified.reachRates.map { "\($0.milestone) \(formatFixed(100 * $0.rate, digits: 1)) %" }
        Console.output(
            "verified \(record.games.count) games of \(record.game.name) (\(verified.steps) steps) played by \(record.player)"
                + (record.protocolName.map { " under \($0)" } ?? "") + ": mean score \(formatFixed(verified.mean, digits: 1)) ± "
                + "\(formatFixed(1.96 * verified.standardError, digits: 1)) (95 %), median \(formatFixed(verified.median, digits: 1))"
                + (reach.isEmpty ? "" : ", reached " + reach.joined(separator: ", ")))
        return ExitCode.success
    }
}
