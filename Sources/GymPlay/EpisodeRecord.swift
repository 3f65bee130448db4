import Game2048
import GymGames

/// One recorded episode: where it started and every step taken, enough to replay it exactly.
///
///     var record = EpisodeRecord(header: header)
///     record.steps.append(EpisodeStep(action: .left, reward: 4, spawn: Spawn(cell: 5, exponent: 1), score: 4))
///     let text = record.jsonLines            // what `g2048 play --record` writes
///     let again = try EpisodeRecord.parse(text)   // [record]
///
/// The file format (JSON Lines, version 2) is one header line, one line per step,
/// and an end line:
///
///     {"type":"header","format":"gym2048-episode","version":2,"rules_version":1,"seed":42,
///      "config":{"rows":4,"cols":4,"spawn_four_probability":0.1,"initial_tiles":2,"win_tile":null,…},
///      "target_tile":2048,"player":"human","board":[[0,0,0,0],[0,0,1,0],[0,0,0,0],[0,0,1,0]]}
///     {"type":"step","step":1,"action":"left","reward":0,"spawn":{"cell":11,"value":2},"score":0}
///     {"type":"end","steps":1,"score":0,"outcome":"stopped","last_episode":true}
///
/// (each record is one line in the file; `config` holds every rules option, `RulesOption.all`, by name). The end line makes a record cut off at
/// a line boundary detectable: an episode of version 2 without one is reported as
/// truncated, and so is a file that ends after an end line with
/// `"last_episode":false` (a restart, whose next header is missing). `outcome` is `game_over` (no legal move was left) or `stopped`
/// (quit, restarted, end of input or a signal); replay checks it too. Version 1
/// records, written before the end line existed, still load: ``RecordedEpisode/isVersion1`` tells
/// a reader to warn that their truncation at a line boundary cannot be detected.
/// Lines may end in CRLF; a member this version does not know is an error that
/// names it, so a typo is never silently replaced by a default. `config` holds the protocol's `make`
/// options, so a `g2048 serve` client rebuilds the environment from it; `board`
/// is the start position as exponents (0 = empty, k = tile 2^k), as the
/// protocol's observation; `target_tile` is the tile that shows the win message
/// in `g2048 play` (not a rule: play goes on after it). A file may hold several
/// episodes one after another (a restart starts a new header).
package typealias EpisodeRecord = RecordedEpisode<Game2048Episodes>

/// One recorded episode of any game: its header, every step and its end line, enough to replay it exactly
/// (``EpisodeRecord`` for 2048, ``DeclaredRecord`` for every other game).
package struct RecordedEpisode<Format: EpisodeFormat>: Hashable, Sendable {
    /// How the episode started.
    package var header: Format.Header
    /// The steps, in order.
    package var steps: [Format.Step]
    /// How the episode ended: `nil` while it is being played, and in version 1 records.
    package var end: Format.End?

    /// Creates a record.
    package init(header: Format.Header, steps: [Format.Step] = [], end: Format.End? = nil) {
        (self.header, self.steps, self.end) = (header, steps, end)
    }

    /// Whether the record is of format version 1, which has no end line.
    package var isVersion1: Bool { Format.version(of: header) == 1 }

    /// The record as JSON Lines: the header, one line per step and the end line (when known), each ending in a newline.
    package var jsonLines: String {
        var text = Format.jsonLine(header) + "\n"
        for (index, step) in steps.enumerated() { text += Format.jsonLine(step, number: index + 1) + "\n" }
        if let end { text += Format.jsonLine(end) + "\n" }
        return text
    }

    /// Reads every episode of a record.
    ///
    ///     let episodes = try EpisodeRecord.parse(contents)
    ///
    /// Blank lines are skipped and lines may end in CRLF. Every member is
    /// checked, and a member this version does not know is refused by name.
    ///
    /// - Throws: ``RecordError`` naming the first bad line: not JSON, a missing,
    ///   unknown or mistyped member, a step number out of sequence, an option value
    ///   out of range, a newer format version, another game's episode, an end line that
    ///   disagrees with its episode, or a truncated record (a last line cut off, an episode of
    ///   version 2 without its end line, or a restart whose next episode is missing).
    package static func parse(_ text: String, game: GameDeclaration? = nil, registry: GameRegistry = .standard) throws(RecordError) -> [RecordedEpisode] {
        try parse(bytes: Array(text.utf8), game: game, registry: registry)
    }

    /// Reads every episode from the bytes of a record file.
    ///
    /// - Parameters:
    ///   - bytes: the file's bytes, JSON lines.
    ///   - game: the game the record must hold; `nil`: the first header's.
    ///   - registry: the games a header may name.
    package static func parse(bytes: [UInt8], game: GameDeclaration? = nil, registry: GameRegistry = .standard) throws(RecordError) -> [RecordedEpisode] {
        var records: [RecordedEpisode] = []
        var parser = RecordParser<Format>(game: game, registry: registry)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsWithNewline = bytes.last == UInt8(ascii: "\n")
        for (index, line) in lines.enumerated() {
            let event = try parser.read(line, number: index + 1, isCutOff: index == lines.count - 1 && !endsWithNewline)
            switch event {
            case .header(let header): records.append(RecordedEpisode(header: header))
            case .step(let step): records[records.count - 1].steps.append(step)
            case .end(let end): records[records.count - 1].end = end
            case nil: break
            }
        }
        try parser.finish()
        return records
    }
}

/// The last line of a recorded episode (format version 2): how many steps, the final score, how it ended.
package struct EpisodeEnd: Hashable, Sendable {
    /// How an episode ended.
    package enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// No legal move was left.
        case gameOver = "game_over"
        /// The player quit or restarted, input ended, or a signal stopped the game.
        case stopped
    }

    /// The number of steps in the episode.
    package var steps: Int
    /// The score after the last step (0 without steps).
    package var score: Int64
    /// How it ended.
    package var outcome: Outcome
    /// Whether it is the file's last episode (`false`: a restart, another header follows).
    package var isLastEpisode: Bool

    /// Creates an end line.
    package init(steps: Int, score: Int64, outcome: Outcome, isLastEpisode: Bool) {
        (self.steps, self.score, self.outcome, self.isLastEpisode) = (steps, score, outcome, isLastEpisode)
    }
}

/// The first line of a recorded episode: the format, the rules, the seed and the start position.
package struct EpisodeHeader: Hashable, Sendable {
    /// The `format` member of every header.
    package static let format = "gym2048-episode"
    /// The version of the record format this build writes (it reads 1 too).
    package static let currentVersion = 2

    /// The record format's version.
    package var version: Int
    /// `Rules.version` of the build that recorded the episode.
    package var rulesVersion: Int
    /// The seed passed to `Environment.reset(seed:)`.
    package var seed: UInt64
    /// The rules of the environment.
    package var rules: Rules
    /// The tile whose first appearance shows the win message, or `nil`.
    package var targetTile: Int?
    /// Who played: `human`, or an agent's name.
    package var player: String
    /// The start position.
    package var board: Board

    /// Creates a header for the current format and rules version.
    package init(seed: UInt64, rules: Rules, targetTile: Int?, player: String, board: Board) {
        version = EpisodeHeader.currentVersion
        rulesVersion = Rules.version
        self.seed = seed
        self.rules = rules
        self.targetTile = targetTile
        self.player = player
        self.board = board
    }
}

/// One recorded step: the action and what the environment answered.
package struct EpisodeStep: Hashable, Sendable {
    /// The action.
    package var action: Direction
    /// The reward (the merges' value).
    package var reward: Int64
    /// The tile that spawned, or `nil` (an illegal action under the no-op policy).
    package var spawn: Spawn?
    /// The score after the step.
    package var score: Int64

    /// Creates a step.
    package init(action: Direction, reward: Int64, spawn: Spawn?, score: Int64) {
        (self.action, self.reward, self.spawn, self.score) = (action, reward, spawn, score)
    }

    /// The record of an environment step.
    package init(action: Direction, step: Step) {
        self.init(action: action, reward: step.reward, spawn: step.info.spawn, score: step.info.score)
    }
}
