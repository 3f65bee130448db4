import GymJSON
import Game2048
import GymCore
import GymGames

/// One game's lines in a record file: what its header, step and end lines hold, and how each is read, checked
/// and written.
///
/// Every game's records share one framing, kept in ``RecordParser`` (reading) and ``EpisodeRecorder``
/// (writing): JSON Lines, a header line that starts an episode, numbered step lines, an end line that says
/// whether another episode follows, restarts, blank lines and CRLF, truncation. A game states only the members of
/// its lines. Its header names it in a `game` member (2048's leaves it out: its records are older than the
/// second game), and a reader of one game refuses another's header by name.
///
/// A game's ``Progress`` is what the later lines of an episode are checked against (2048's last score), kept by
/// the parser as it reads and by the recorder as it writes, so that both build the same end line.
package protocol EpisodeFormat {
    /// The first line of an episode.
    associatedtype Header: Hashable & Sendable
    /// One step's line.
    associatedtype Step: Hashable & Sendable
    /// The last line of an episode.
    associatedtype End: Hashable & Sendable
    /// What an episode's later lines are checked against, brought up to date by each step.
    associatedtype Progress

    /// The game every record of this format holds, if it holds one game only (2048's).
    static var onlyGame: String? { get }
    /// The members of each kind of line (`type` included).
    static func headerMembers(of game: GameDeclaration) -> Set<String>
    static func stepMembers(_ progress: Progress) -> Set<String>
    static func endMembers(_ progress: Progress) -> Set<String>

    /// Reads a header line of `game` (its `type`, `game` and unknown members are checked already).
    static func header(_ fields: Fields, game: GameDeclaration) throws(RecordError) -> Header
    /// The record format version of `header`; version 1 episodes have no end line.
    static func version(of header: Header) -> Int
    /// An episode's progress at its start.
    static func progress(at header: Header) -> Progress
    /// Reads a step line's members (its `type`, `step` number and unknown members are checked already).
    static func step(_ fields: Fields, progress: Progress) throws(RecordError) -> Step
    /// `progress` after `step`.
    static func advance(_ progress: inout Progress, by step: Step)
    /// Reads an end line's members and checks them against the episode's `steps` steps and `progress`.
    static func end(_ fields: Fields, steps: Int, progress: Progress) throws(RecordError) -> End
    /// The end line of an episode of `steps` steps that stands at `progress`, ended as `progress` says or stopped.
    static func end(steps: Int, progress: Progress, isLastEpisode: Bool) -> End
    /// Whether `end` says it closes the file's last episode.
    static func isLastEpisode(_ end: End) -> Bool

    /// Each line as one line of JSON, without the newline; a step's `number` is its 1-based index.
    static func jsonLine(_ header: Header) -> String
    static func jsonLine(_ step: Step, number: Int) -> String
    static func jsonLine(_ end: End) -> String
}

extension GameRegistry {
    /// The game of a header line, from its `game` member (2048 when there is none: its records are older than
    /// the member).
    ///
    /// - Throws: ``RecordError`` for a member that names no registered game.
    func recorded(in fields: Fields) throws(RecordError) -> GameDeclaration {
        let name = try fields.optionalString("game") ?? Game2048Game.declaration.name
        guard let game = named(name) else {
            throw fields.error("\"game\" must be \(names), got \(JSONValue.quoted(name, limit: 20))")
        }
        return game
    }
}

extension Fields {
    /// A header's `format`, which must be the records' (``EpisodeHeader/format``), and its `version`, which may
    /// not be newer than this build writes: every game's headers start so.
    func formatVersion() throws(RecordError) -> Int128 {
        let format = try string("format")
        guard format == EpisodeHeader.format else {
            throw error("\"format\" must be \"\(EpisodeHeader.format)\", got \(JSONValue.quoted(format, limit: 20))")
        }
        let version = try integer("version", in: 1...Int128(Int.max))
        guard version <= EpisodeHeader.currentVersion else {
            throw error("record format version \(version) is newer than this g2048 reads (\(EpisodeHeader.currentVersion))")
        }
        return version
    }
}

/// What one line of a record holds, read and checked by ``RecordParser``.
package enum RecordEvent<Format: EpisodeFormat>: Hashable, Sendable {
    /// An episode starts.
    case header(Format.Header)
    /// A step of the current episode.
    case step(Format.Step)
    /// The current episode ends.
    case end(Format.End)
}
