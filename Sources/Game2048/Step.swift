/// What ``Environment/step(_:)`` returns: Gymnasium's `(obs, reward, terminated, truncated, info)`.
///
///     let step = try env.step(.left)
///     step.observation        // the board the agent acts on next
///     step.reward             // the merges' value, 0 for an illegal no-op
///     step.terminated         // no legal move left, or the win tile appeared
///     step.info.actionMask    // legal moves of `observation`
@frozen
public struct Step: Sendable, Hashable {
    /// The board after the move and the spawn: the state the agent acts in next.
    public var observation: Board
    /// The score increment of the move, or `-penalty` for an illegal action under `.terminate`.
    public var reward: Int64
    /// The episode ended inside the game: no legal move remains, the win tile
    /// appeared, or an illegal action under `.terminate`.
    public var terminated: Bool
    /// The episode was cut off by `maxSteps`.
    public var truncated: Bool
    /// Everything else an agent or a logger may want.
    public var info: StepInfo

    /// Creates a step result.
    @inlinable
    public init(observation: Board, reward: Int64, terminated: Bool, truncated: Bool, info: StepInfo) {
        (self.observation, self.reward, self.terminated, self.truncated) = (observation, reward, terminated, truncated)
        self.info = info
    }
}

/// The extra information of a reset or a step (Gymnasium's `info` dictionary, typed).
@frozen
public struct StepInfo: Sendable, Hashable {
    /// The legal moves of the state the agent acts in next, computed after the spawn.
    public var actionMask: ActionMask
    /// The score so far: the sum of all rewards from merges in this episode.
    public var score: Int64
    /// The largest tile value on the board.
    public var maxTile: Int
    /// Steps taken in this episode, illegal no-ops included.
    public var steps: Int
    /// The board after the move's slide and merge, before the spawn; `nil` after a reset.
    public var afterstate: Board?
    /// The tile that spawned after the move; `nil` after a reset or an illegal action.
    public var spawn: Spawn?
    /// The action was illegal (it would not change the board).
    public var invalid: Bool
    /// The win tile appeared (only with `Rules.winTile` set).
    public var won: Bool

    /// Creates an info record.
    @inlinable
    public init(
        actionMask: ActionMask, score: Int64, maxTile: Int, steps: Int,
        afterstate: Board?, spawn: Spawn?, invalid: Bool, won: Bool
    ) {
        (self.actionMask, self.score, self.maxTile, self.steps) = (actionMask, score, maxTile, steps)
        (self.afterstate, self.spawn, self.invalid, self.won) = (afterstate, spawn, invalid, won)
    }
}

/// The result of ``Environment/reset(seed:)``: Gymnasium's `(obs, info)`.
@frozen
public struct Reset: Sendable, Hashable {
    /// The starting board.
    public var observation: Board
    /// Its mask, score 0, steps 0, no afterstate and no spawn.
    public var info: StepInfo

    /// Creates a reset result.
    @inlinable public init(observation: Board, info: StepInfo) { (self.observation, self.info) = (observation, info) }
}

/// A step that `InvalidActionPolicy/reject` refused.
public enum StepError: Error, Hashable, Sendable {
    /// The action would not change the board; nothing changed.
    case illegalAction(Direction)
}

extension StepError: CustomStringConvertible {
    /// For example "illegal action left: it does not change the board".
    public var description: String {
        switch self {
        case .illegalAction(let direction): "illegal action \(direction.name): it does not change the board"
        }
    }
}

/// What one action would do, without doing it: the input of afterstate learners and search.
///
///     for a in env.afterstates() where a.legal { print(a.direction, a.reward) }
@frozen
public struct Afterstate: Sendable, Hashable {
    /// The action.
    public var direction: Direction
    /// Whether it changes the board.
    public var legal: Bool
    /// Its reward (0 when illegal).
    public var reward: Int64
    /// The board after sliding and merging, before the spawn (the current board when illegal).
    public var board: Board

    /// Creates an afterstate record.
    @inlinable
    public init(direction: Direction, legal: Bool, reward: Int64, board: Board) {
        (self.direction, self.legal, self.reward, self.board) = (direction, legal, reward, board)
    }
}
