import Game2048

/// One recorded episode: where it started and every step taken, enough to replay it exactly.
///
///     var record = EpisodeRecord(header: header)
///     record.steps.append(EpisodeStep(action: .left, reward: 4, spawn: Spawn(cell: 5, exponent: 1), score: 4))
///     let text = record.jsonLines            // what `g2048 play --record` writes
///     let again = try EpisodeRecord.parse(text)   // [record]
///
/// The file format (JSON Lines, version 1) is one header line, then one line per step:
///
///     {"type":"header","format":"gym2048-episode","version":1,"rules_version":1,"seed":42,
///      "config":{"rows":4,"cols":4,"spawn_four_probability":0.1,"initial_tiles":2,"win_tile":null,
///                "max_steps":null,"invalid_action":"noop","invalid_action_penalty":0},
///      "target_tile":2048,"player":"human","board":[[0,0,0,0],[0,0,1,0],[0,0,0,0],[0,0,1,0]]}
///     {"type":"step","step":1,"action":"left","reward":0,"spawn":{"cell":11,"value":2},"score":0}
///
/// (each record is one line in the file). `config` holds the protocol's `make`
/// options, so a `g2048 serve` client rebuilds the environment from it; `board`
/// is the start position as exponents (0 = empty, k = tile 2^k), as the
/// protocol's observation; `target_tile` is the tile that shows the win message
/// in `g2048 play` (not a rule: play goes on after it). A file may hold several
/// episodes one after another (a restart starts a new header).
public struct EpisodeRecord: Hashable, Sendable {
    /// How the episode started.
    public var header: EpisodeHeader
    /// The steps, in order.
    public var steps: [EpisodeStep]

    /// Creates a record.
    public init(header: EpisodeHeader, steps: [EpisodeStep] = []) {
        self.header = header
        self.steps = steps
    }
}

/// The first line of a recorded episode: the format, the rules, the seed and the start position.
public struct EpisodeHeader: Hashable, Sendable {
    /// The `format` member of every header.
    public static let format = "gym2048-episode"
    /// The version of the record format this build writes and reads.
    public static let currentVersion = 1

    /// The record format's version.
    public var version: Int
    /// ``Rules/version`` of the build that recorded the episode.
    public var rulesVersion: Int
    /// The seed passed to ``Environment/reset(seed:)``.
    public var seed: UInt64
    /// The rules of the environment.
    public var rules: Rules
    /// The tile whose first appearance shows the win message, or `nil`.
    public var targetTile: Int?
    /// Who played: `human`, or an agent's name.
    public var player: String
    /// The start position.
    public var board: Board

    /// Creates a header for the current format and rules version.
    public init(seed: UInt64, rules: Rules, targetTile: Int?, player: String, board: Board) {
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
public struct EpisodeStep: Hashable, Sendable {
    /// The action.
    public var action: Direction
    /// The reward (the merges' value).
    public var reward: Int64
    /// The tile that spawned, or `nil` (an illegal action under the no-op policy).
    public var spawn: Spawn?
    /// The score after the step.
    public var score: Int64

    /// Creates a step.
    public init(action: Direction, reward: Int64, spawn: Spawn?, score: Int64) {
        self.action = action
        self.reward = reward
        self.spawn = spawn
        self.score = score
    }

    /// The record of an environment step.
    public init(action: Direction, step: Step) {
        self.init(action: action, reward: step.reward, spawn: step.info.spawn, score: step.info.score)
    }
}
