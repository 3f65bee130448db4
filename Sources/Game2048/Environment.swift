/// A 2048 environment with Gymnasium's contract: `reset`, then `step` until the episode ends.
///
///     var env = Environment(rules: Rules())
///     var state = env.reset(seed: 42)
///     while !env.isOver {
///         let action = state.info.actionMask.direction(at: 0)   // any legal move
///         let step = try env.step(action)
///         state = Reset(observation: step.observation, info: step.info)
///     }
///     print(env.score)
///
/// ## Spec sheet
///
/// - **Observation**: a ``Board`` of `rules.rows × rules.cols` exponents, row-major
///   (0 = empty, `k` = tile 2^k), each within `0...rules.largestExponent`
///   (``Rules/largestExponent``). Encodings for learners: ``ObservationEncoding``
///   (`exponents`, `values`, `oneHot(channels:)`).
/// - **Action**: a ``Direction``, index `0 = up, 1 = right, 2 = down, 3 = left`.
/// - **Reward**: the sum of the values of the tiles merged by the move (the
///   original game's score increment), a 64-bit integer; 0 for an illegal
///   no-op; `-penalty` for an illegal action under `.terminate(penalty:)`.
/// - **Transition**: slide and merge (``Board/moved(_:)``); if the board changed,
///   spawn one tile (a 2 with probability `1 − spawnFourProbability`, else a
///   4, value drawn first, then a uniform empty cell); then compute the action
///   mask of the new state. An illegal action follows ``Rules/invalidAction``.
/// - **Terminated**: no legal move remains, the ``Rules/winTile`` appeared
///   (`info.won`), or an illegal action under `.terminate`.
/// - **Truncated**: `info.steps` reached ``Rules/maxSteps`` (set even when the
///   same step also terminated).
/// - **Info**: ``StepInfo``: action mask, score, max tile, steps, afterstate,
///   spawn, invalid, won.
/// - **Seeding**: ``reset(seed:)`` with a seed restarts the generator
///   (`Xoshiro256StarStar` seeded through `SplitMix64`); without one it
///   continues the current stream, so `reset(seed: s)` followed by `reset()`
///   is reproducible (Gymnasium's convention). A new environment starts from
///   `seed` given to the initializer (default 0).
/// - **Lifecycle**: ``step(_:)`` before the first reset or after the episode
///   ended is a programming error (a precondition failure). ``VectorEnvironment``
///   resets finished episodes for you.
///
/// On a 4×4 board the environment plays on a packed ``Bitboard``, and moves to
/// the generic ``Board`` when a 32 768 tile appears (four bits cannot hold the
/// 65 536 that two of them make). Both give identical trajectories.
public struct Environment: Sendable {
    /// The rules this environment plays by.
    public let rules: Rules

    /// What the transition reads of the rules on every step.
    @usableFromInline let limits: EpisodeRules
    /// The bitboard's row table, loaded once rather than through a lazy global on every move.
    @usableFromInline let rowTable: RowTableHandle
    @usableFromInline var rng: Xoshiro256StarStar
    /// The board, while ``isPacked``: a 4×4 board below the 32 768 tile, the fast path.
    @usableFromInline var packed: Bitboard
    /// The board, while not ``isPacked`` (any other size, or 4×4 from the 32 768 tile on); stale otherwise.
    ///
    /// Two fields and a flag rather than an enum of the two: a step on the fast path writes its eight
    /// bytes, where an enum case's payload is the 66 bytes of its larger case, written whole every step.
    @usableFromInline var generic: Board
    /// Which of the two fields holds the board.
    @usableFromInline var isPacked: Bool
    @usableFromInline var episode: Episode

    /// Where the environment is in its episode: the phases every game shares. The raw values are the names a
    /// saved ``EnvironmentState`` gives the phase.
    public typealias Phase = EpisodePhase

    /// Creates an environment. Call ``reset(seed:)`` before the first step.
    ///
    /// - Parameters:
    ///   - rules: the game's configuration.
    ///   - seed: the generator's seed until a reset passes another one.
    public init(rules: Rules = Rules(), seed: UInt64 = 0) {
        self.init(rules: rules, rng: Xoshiro256StarStar(seed: seed), board: Board(rules: rules), episode: .unstarted)
    }

    /// An environment in a given state: how ``VectorEnvironment`` lends out one of its environments.
    init(rules: Rules, rng: Xoshiro256StarStar, board: Board, episode: Episode) {
        self.rules = rules
        limits = EpisodeRules(rules)
        rowTable = Bitboard.rowTable
        self.rng = rng
        (packed, generic, isPacked) = Environment.representation(of: board, highestExponent: episode.highest)
        self.episode = episode
    }

    // MARK: State

    /// The current board.
    @inlinable
    public var board: Board { isPacked ? Board(packed) : generic }

    /// The current board as text, as Gymnasium's `render()` gives it (see `Board.render(colored:)`).
    ///
    /// - Parameter colored: wrap each tile in ANSI 256-colour escapes, by its exponent.
    /// - Returns: one line per row, without a trailing newline.
    public func render(colored: Bool = false) -> String { board.render(colored: colored) }

    /// The legal moves of the current board.
    @inlinable public var actionMask: ActionMask { episode.mask }
    /// The score of the current episode.
    @inlinable public var score: Int64 { episode.score }
    /// Steps taken in the current episode.
    @inlinable public var steps: Int { episode.steps }
    /// Where the environment is in its episode.
    @inlinable public var currentPhase: Phase { episode.phase }
    /// Whether the episode has ended (terminated or truncated).
    @inlinable public var isOver: Bool { episode.isOver }

    /// The current info record, with no afterstate and no spawn.
    @inlinable
    public var info: StepInfo { episode.info() }

    // MARK: Reset

    /// Starts a new episode with ``Rules/initialTiles`` random tiles.
    ///
    /// - Parameter seed: restarts the generator from this seed; `nil` continues the current stream.
    /// - Returns: the first observation and its info.
    @discardableResult
    public mutating func reset(seed: UInt64? = nil) -> Reset {
        if let seed { rng = Xoshiro256StarStar(seed: seed) }
        var board = Board(rules: rules)
        limits.placeStartingTiles(on: &board, using: &rng)
        return begin(board)
    }

    /// Starts a new episode from a given board (for tests, curricula and search agents).
    ///
    ///     let start = try Board(rows: 4, cols: 4, values: [...])
    ///     env.reset(seed: 1, board: start)
    ///
    /// No tiles are added. The episode may be over at once (no legal move, or the
    /// win tile present): ``isOver`` is then true, and the next call must be a reset.
    ///
    /// - Throws: ``RulesError/boardSize(rows:cols:expectedRows:expectedCols:)`` when the board's size isn't the rules',
    ///   ``RulesError/tileAboveLargest(exponent:cell:largest:)`` when a tile is above ``Rules/largestExponent``;
    ///   nothing changes then.
    @discardableResult
    public mutating func reset(seed: UInt64? = nil, board: Board) throws(RulesError) -> Reset {
        try Environment.validate(board, for: rules)
        if let seed { rng = Xoshiro256StarStar(seed: seed) }
        return begin(board)
    }

    /// Checks that `board` can start an episode under `rules`.
    ///
    /// - Throws: what ``reset(seed:board:)`` throws for a board that doesn't fit.
    public static func validate(_ board: Board, for rules: Rules) throws(RulesError) {
        guard board.rows == rules.rows, board.cols == rules.cols else {
            throw .boardSize(rows: board.rows, cols: board.cols, expectedRows: rules.rows, expectedCols: rules.cols)
        }
        let largest = rules.largestExponent
        if board.maxExponent > largest, let cell = board.exponents.firstIndex(where: { $0 > largest }) {
            throw .tileAboveLargest(exponent: Int(board[cell]), cell: cell, largest: Int(largest))
        }
    }

    mutating func begin(_ board: Board) -> Reset {
        episode = Episode(starting: board, limits: limits)
        (packed, generic, isPacked) = Environment.representation(of: board, highestExponent: episode.highest)
        return Reset(observation: board, info: info)
    }

    /// The fields that hold `board`: packed when it packs and its largest tile is below 32 768.
    static func representation(of board: Board, highestExponent: UInt8) -> (Bitboard, Board, Bool) {
        if highestExponent < 15, let packed = Bitboard(board) { return (packed, board, true) }
        return (Bitboard(rawValue: 0), board, false)
    }

    // MARK: Step

    /// Plays one action: slide and merge, spawn, and report.
    ///
    /// - Returns: the new observation, the reward, the end flags and the info.
    /// - Throws: ``StepError/illegalAction(_:)`` only under `InvalidActionPolicy/reject`,
    ///   and then nothing has changed.
    /// - Precondition: an episode is running (``reset(seed:)`` was called and the episode is not over).
    /// - Complexity: O(1) on 4×4, O(rows × cols) otherwise; never allocates.
    @inlinable @inline(__always)
    public mutating func step(_ action: Direction) throws(StepError) -> Step {
        precondition(
            episode.phase == .running,
            episode.phase == .over
                ? "step(_:) after the episode ended: call reset() first"
                : "step(_:) before reset(): call reset(seed:) first")
        if isPacked {
            let outcome = packed.moved(action, table: rowTable)
            guard outcome.changed else { return try illegal(action) }
            var next = outcome.afterstate
            let spawn = next.spawnRandomTile(fourThreshold: limits.fourThreshold, using: &rng)
            let (terminated, truncated) = episode.advance(
                to: next, legalMoves: next.legalMoves, reward: outcome.reward, highestMerge: outcome.highestMerge,
                spawn: spawn, limits: limits)
            packed = next
            // A 32 768 tile: the next merge may need a fifth bit.
            if episode.highest >= 15 { (generic, isPacked) = (Board(next), false) }
            return Step(
                observation: Board(next), reward: outcome.reward, terminated: terminated, truncated: truncated,
                info: episode.info(afterstate: Board(outcome.afterstate), spawn: spawn))
        } else {
            let outcome = generic.moved(action)
            guard outcome.changed, outcome.highestMerge <= limits.largestExponent else { return try illegal(action) }
            var next = outcome.afterstate
            let spawn = next.spawnRandomTile(fourThreshold: limits.fourThreshold, using: &rng)
            let (terminated, truncated) = episode.advance(
                to: next, legalMoves: next.legalMoves, reward: outcome.reward, highestMerge: outcome.highestMerge,
                spawn: spawn, limits: limits)
            generic = next
            return Step(
                observation: next, reward: outcome.reward, terminated: terminated, truncated: truncated,
                info: episode.info(afterstate: outcome.afterstate, spawn: spawn))
        }
    }

    /// Plays one action given by its index, `0 = up, 1 = right, 2 = down, 3 = left`.
    ///
    /// - Precondition: `0 <= action < 4`, and an episode is running.
    @inlinable
    public mutating func step(action: Int) throws(StepError) -> Step {
        guard let direction = Direction(rawValue: action) else {
            preconditionFailure("action must be 0..3 (up, right, down, left), got \(action)")
        }
        return try step(direction)
    }

    /// An action that would not change the board, handled by ``Rules/invalidAction``.
    @inline(never) @usableFromInline
    mutating func illegal(_ action: Direction) throws(StepError) -> Step {
        if case .reject = limits.invalidAction { throw .illegalAction(action) }
        let current = board
        let (reward, terminated, truncated) = episode.refuse(limits: limits)
        return Step(
            observation: current, reward: reward, terminated: terminated, truncated: truncated,
            info: episode.info(afterstate: current, invalid: true))
    }

    // MARK: Lookahead

    /// What `direction` would do from the current board, without changing anything.
    ///
    /// - Complexity: O(1) on 4×4, O(rows × cols) otherwise.
    @inlinable
    public func afterstate(_ direction: Direction) -> Afterstate {
        if isPacked {
            let outcome = packed.moved(direction, table: rowTable)
            return Afterstate(direction: direction, legal: outcome.changed, reward: outcome.reward, board: Board(outcome.afterstate))
        }
        let outcome = generic.moved(direction)
        let legal = outcome.changed && outcome.highestMerge <= limits.largestExponent
        return Afterstate(direction: direction, legal: legal, reward: outcome.reward, board: legal ? outcome.afterstate : generic)
    }

    /// What each of the four actions would do, in action order: the one call an
    /// afterstate learner or a search agent needs per decision.
    public func afterstates() -> [Afterstate] { Direction.allCases.map(afterstate) }

    /// The tile movements `direction` would make, for clients that animate a board.
    public func movements(_ direction: Direction) -> [TileMovement] { board.movements(direction) }
}
