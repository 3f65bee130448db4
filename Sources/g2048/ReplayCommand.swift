import GymPlay
import GymSystem
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
            A Memorize record ('g2048 play --game memorize --record') is replayed the same way: the deal,
            and each card's content, reward and pairs matched.

            Records of format version 1 (from before records had end lines) are still replayed, with a note
            on stderr that a record cut off at a line boundary cannot be detected in them.

            Then the positions are shown --delay milliseconds apart, and one 'verified' line per episode
            is printed. The format is described in docs/RECORDS.md; gym2048.replay_record() in
            python/ checks a record the same way.
            """,
        options: [Self.file.spec, Self.delay.spec, Self.check.spec],
        positional: "file")

    static let file = CommandOption.text("file", "file", help: "The record (JSON Lines) to replay; the same as the positional <file>.")
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between steps; 0 shows all at once.", in: 0...600_000)
        .shown("150, or 0 when stdout is not a terminal")
    static let check = CommandOption.flag("check", help: "Only verify the record and print the summary, without showing the boards.")

    var path: String
    var delay: Int?
    var checkOnly: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let file = try arguments[Self.file]
        guard let path = arguments.positionals.first ?? file else { throw UsageError("missing <file>: the record to replay") }
        if !arguments.positionals.isEmpty && file != nil { throw UsageError("give the record once: <file> or --file") }
        self.path = path
        delay = try arguments[Self.delay]
        checkOnly = try arguments[Self.check]
    }

    func run() throws -> Int32 {
        let pace = PlayOutcome.pace(delay)
        switch Game.ofRecord(at: path) {
        case .memorize:
            return ReplayViewer<MemorizeReplayer>(source: .file(path), name: path, delay: pace, checkOnly: checkOnly).run().exitCode()
        case .twentyFortyEight, nil:
            return ReplayViewer<EpisodeReplay.Replayer>(source: .file(path), name: path, delay: pace, checkOnly: checkOnly).run().exitCode()
        }
    }
}
