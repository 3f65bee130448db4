/// How an episode starts, spawns and ends under some ``Rules``, worked out once: the one statement of the episode's
/// rules, read by ``Environment`` and ``VectorEnvironment`` on every step and by anything else that plays the game
/// by them (the learner's training and greedy games), so that no player restates them.
///
///     let rules = try Rules(winTile: 2048, maxSteps: 1_000)
///     let episode = rules.episodeRules
///     var board = Bitboard()
///     var rng = Xoshiro256StarStar(seed: 1)
///     episode.placeStartingTiles(on: &board, using: &rng)
///     episode.isWon(highest: 11)            // true: the win tile is there
///     episode.isTruncated(steps: 1_000)     // true: the step limit is reached
///
/// The optional fields of ``Rules`` are resolved here (no win tile is an exponent never reached, no step limit
/// `Int.max`), because a step would otherwise pay an unwrap for each.
@frozen
public struct EpisodeRules: Sendable, Hashable {
    /// ``Rules/spawnFourProbability`` as the generator's threshold.
    public let fourThreshold: UInt64
    /// ``Rules/largestExponent``: tiles at it don't merge.
    public let largestExponent: UInt8
    /// ``Rules/winExponent``, or `UInt8.max` (never reached) when there is no win tile.
    public let winExponent: UInt8
    /// ``Rules/maxSteps``, or `Int.max` (never reached) when episodes are not truncated.
    public let stepLimit: Int
    /// ``Rules/initialTiles``.
    public let initialTiles: Int
    /// ``Rules/invalidAction``.
    public let invalidAction: InvalidActionPolicy

    /// The episode rules of `rules`.
    @inlinable
    public init(_ rules: Rules) {
        fourThreshold = bernoulliThreshold(probability: rules.spawnFourProbability)
        largestExponent = rules.largestExponent
        winExponent = rules.winExponent ?? .max
        stepLimit = rules.maxSteps ?? .max
        initialTiles = rules.initialTiles
        invalidAction = rules.invalidAction
    }

    /// Places a new episode's starting tiles on `board` (empty), one spawn each, drawn from `rng`.
    @inlinable
    public func placeStartingTiles(on board: inout some GameBoard, using rng: inout some RandomNumberGenerator) {
        for _ in 0..<initialTiles { _ = board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng) }
    }

    /// The spawn after a move that changed `board`: a 2 or a 4 on a uniformly random empty cell; `nil` on a full board.
    @inlinable @inline(__always) @discardableResult
    public func spawn(on board: inout some GameBoard, using rng: inout some RandomNumberGenerator) -> Spawn? {
        board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng)
    }

    /// Whether a board whose largest exponent is `highest` holds the win tile (and so ends the episode).
    @inlinable @inline(__always)
    public func isWon(highest: UInt8) -> Bool { highest >= winExponent }

    /// Whether an episode of `steps` steps is truncated by the step limit.
    @inlinable @inline(__always)
    public func isTruncated(steps: Int) -> Bool { steps >= stepLimit }

    /// `mask` (the moves that change `board`) less those that would merge two tiles
    /// at ``largestExponent``; free unless `highest`, the board's largest tile, is there.
    @inlinable @inline(__always)
    func ceilingApplied(_ mask: ActionMask, of board: some GameBoard, highest: UInt8) -> ActionMask {
        highest < largestExponent ? mask : EpisodeRules.withoutCeilingMerges(mask, of: board, largest: largestExponent)
    }

    /// `mask` less the moves that would merge two tiles at `largest`: the slow
    /// path, taken only while such a tile is on the board.
    @inline(never) @usableFromInline
    static func withoutCeilingMerges(_ mask: ActionMask, of board: some GameBoard, largest: UInt8) -> ActionMask {
        var legal = mask
        for direction in Direction.allCases where mask.contains(direction) && board.moved(direction).highestMerge > largest {
            legal.remove(ActionMask(direction))
        }
        return legal
    }
}

/// The counters of one episode and their transitions: the one statement of what a reset, a legal
/// move and an illegal action do to the mask, the score, the step count, the largest tile and the
/// end flags. ``Environment`` keeps one; ``VectorEnvironment`` keeps one per environment.
@frozen @usableFromInline
struct Episode: Sendable, Hashable {
    /// The legal moves of the current board (the ceiling applied).
    @usableFromInline var mask: ActionMask
    /// The largest exponent on the board.
    @usableFromInline var highest: UInt8
    /// Whether the win tile appeared.
    @usableFromInline var won: Bool
    /// Where the episode is.
    @usableFromInline var phase: Environment.Phase
    /// Steps taken, illegal no-ops included.
    @usableFromInline var steps: Int
    /// The sum of the rewards of the merges.
    @usableFromInline var score: Int64

    /// An environment that was never reset.
    @usableFromInline
    static let unstarted = Episode(mask: [], highest: 0, won: false, phase: .needsReset, steps: 0, score: 0)

    @inlinable
    init(mask: ActionMask, highest: UInt8, won: Bool, phase: Environment.Phase, steps: Int, score: Int64) {
        (self.mask, self.highest, self.won, self.phase, self.steps, self.score) = (mask, highest, won, phase, steps, score)
    }

    /// The first state of an episode on `board`: over at once when no move is legal or the
    /// win tile is already there.
    @inlinable
    init(starting board: some GameBoard, limits: EpisodeRules) {
        let highest = board.maxExponent
        let mask = limits.ceilingApplied(board.legalMoves, of: board, highest: highest)
        let won = limits.isWon(highest: highest)
        self.init(mask: mask, highest: highest, won: won, phase: mask.isEmpty || won ? .over : .running, steps: 0, score: 0)
    }

    /// Whether the episode has ended (terminated or truncated).
    @inlinable @inline(__always)
    var isOver: Bool { phase == .over }

    /// The largest tile's value.
    @inlinable @inline(__always)
    var maxTile: Int { Board.value(ofExponent: highest) }

    /// After a legal move and its spawn: `board` is the new state, `legalMoves` its moves before the
    /// ceiling. Returns the end flags (truncated is set even when the step also terminated).
    @inlinable @inline(__always)
    mutating func advance(
        to board: some GameBoard, legalMoves: ActionMask, reward: Int64, highestMerge: UInt8, spawn: Spawn?,
        limits: EpisodeRules
    ) -> (terminated: Bool, truncated: Bool) {
        // A spawned 4 can be the largest tile on a nearly empty board.
        highest = max(max(highest, highestMerge), spawn?.exponent ?? 0)
        // Everything below (termination, the reported mask) reads the mask with the ceiling applied.
        mask = limits.ceilingApplied(legalMoves, of: board, highest: highest)
        steps &+= 1
        score &+= reward
        if limits.isWon(highest: highest) { won = true }
        let terminated = mask.isEmpty || won
        let truncated = limits.isTruncated(steps: steps)
        if terminated || truncated { phase = .over }
        return (terminated, truncated)
    }

    /// After an action that would not change the board, under a policy other than
    /// `InvalidActionPolicy/reject`: the reward and the end flags.
    @inlinable
    mutating func refuse(limits: EpisodeRules) -> (reward: Int64, terminated: Bool, truncated: Bool) {
        var reward: Int64 = 0
        var terminated = false
        if case .terminate(let penalty) = limits.invalidAction {
            reward = -penalty
            terminated = true
        }
        steps &+= 1
        let truncated = limits.isTruncated(steps: steps)
        if terminated || truncated { phase = .over }
        return (reward, terminated, truncated)
    }

    /// The info of this state; `afterstate`, `spawn` and `invalid` describe the step that made it.
    @inlinable @inline(__always)
    func info(afterstate: Board? = nil, spawn: Spawn? = nil, invalid: Bool = false) -> StepInfo {
        StepInfo(
            actionMask: mask, score: score, maxTile: maxTile, steps: steps,
            afterstate: afterstate, spawn: spawn, invalid: invalid, won: won)
    }
}
