/// Everything that decides an environment's future: its board, its episode's counters and its generator.
///
///     let saved = env.state
///     _ = try env.step(.left)                 // explore
///     try env.restore(saved)                  // and come back: the same spawns follow
///
/// Search agents clone a state, explore and restore it; a pickled Python environment is one of these.
/// The largest tile and the win flag are not stored: both follow from the board (a tile never shrinks),
/// and the legal moves are recomputed from it.
public struct EnvironmentState: Sendable, Hashable {
    /// The board.
    public var board: Board
    /// The episode's score so far.
    public var score: Int64
    /// Steps taken in the episode.
    public var steps: Int
    /// Where the environment is in its episode.
    public var phase: Environment.Phase
    /// The generator that draws the next spawns.
    public var generator: Xoshiro256StarStar

    /// A state as given; ``Environment/restore(_:)`` checks that it fits the environment's rules.
    public init(board: Board, score: Int64, steps: Int, phase: Environment.Phase, generator: Xoshiro256StarStar) {
        self.board = board
        self.score = score
        self.steps = steps
        self.phase = phase
        self.generator = generator
    }

    /// The largest score a state on `board` may hold under `rules`: 2^63 − 1 less the most that play from `board`
    /// could still add, so that no step overflows it, and every state play reaches from it is within its own
    /// ceiling again (a state ``Environment/state`` gives is always restored).
    ///
    /// A merge into a tile 2^k adds 2^k to the score and as much to the board's worth Φ, the sum over its tiles of
    /// (k − 1) · 2^k (the score its merges made); a spawn adds to Φ alone. So the score less Φ never grows, and
    /// Φ is at most every cell at the rules' largest tile 2^L: the score can reach at most
    /// score − Φ(board) + cells · (L − 1) · 2^L. On 4×4 the ceiling is 2^63 − 1 less about 3.4 × 10^7; on 8×8,
    /// less about 3.5 × 10^18. Natural play stays far below it.
    public static func scoreCeiling(of board: Board, rules: Rules) -> Int64 {
        func worth(_ exponent: UInt8) -> Int64 { exponent < 2 ? 0 : Int64(exponent - 1) << Int64(exponent) }
        let most = Int64(rules.cellCount) * worth(rules.largestExponent)
        return Int64.max - most + board.exponents.reduce(0) { $0 + worth($1) }
    }
}

/// Why a state cannot be restored: it contradicts the rules, or itself.
public enum StateError: Error, Hashable, Sendable {
    /// The board does not fit the rules (its size, or a tile above the largest).
    case board(RulesError)
    /// A negative score or step count.
    case negative(field: String, value: Int64)
    /// A score above its board's ceiling (``EnvironmentState/scoreCeiling(of:rules:)``): play could overflow it.
    case scoreAboveCeiling(score: Int64, ceiling: Int64)
    /// A running episode on a board with no legal move: stepping it could never end.
    case runningWithoutMoves
    /// A running episode that has already reached the win tile, or its step limit.
    case runningPastItsEnd(reason: String)
    /// A state from before the first reset: there is no episode to restore.
    case unstarted
}

extension StateError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .board(let error): "board \(error.rule)"
        case .negative(let field, let value): "\(field) must be 0 or more, got \(value)"
        case .scoreAboveCeiling(let score, let ceiling):
            "score must be at most \(ceiling) on this board (play from it could add more than the rest up to 2^63 - 1), got \(score)"
        case .runningWithoutMoves: "phase is \"running\", but the board has no legal move (an over episode says \"over\")"
        case .runningPastItsEnd(let reason): "phase is \"running\", but \(reason) (an over episode says \"over\")"
        case .unstarted: "phase must be \"running\" or \"over\": restore a state saved after a reset"
        }
    }
}

extension Environment {
    /// The current state, to ``restore(_:)`` later (here or in another environment with the same rules).
    public var state: EnvironmentState {
        EnvironmentState(board: board, score: episode.score, steps: episode.steps, phase: episode.phase, generator: rng)
    }

    /// Puts the environment in `state`, as if it had played its way there.
    ///
    /// - Throws: ``StateError`` when the state contradicts the rules or itself, or comes from before a
    ///   reset; nothing changes then.
    public mutating func restore(_ state: EnvironmentState) throws(StateError) {
        let episode = try Environment.episode(of: state, limits: limits, rules: rules)
        rng = state.generator
        (packed, generic, isPacked) = Environment.representation(of: state.board, highestExponent: episode.highest)
        self.episode = episode
    }

    /// The episode record `state` stands for, checked against the rules.
    static func episode(of state: EnvironmentState, limits: EpisodeRules, rules: Rules) throws(StateError) -> Episode {
        do { try Environment.validate(state.board, for: rules) } catch { throw .board(error) }
        if state.score < 0 { throw .negative(field: "score", value: state.score) }
        let ceiling = EnvironmentState.scoreCeiling(of: state.board, rules: rules)
        if state.score > ceiling { throw .scoreAboveCeiling(score: state.score, ceiling: ceiling) }
        if state.steps < 0 { throw .negative(field: "steps", value: Int64(state.steps)) }
        let started = Episode(starting: state.board, limits: limits)
        switch state.phase {
        case .needsReset:
            // Stepping an environment that needs a reset is a programming error, not a state to return to.
            throw .unstarted
        case .running:
            if started.won { throw .runningPastItsEnd(reason: "the board holds the win tile") }
            if started.mask.isEmpty { throw .runningWithoutMoves }
            if limits.isTruncated(steps: state.steps) {
                throw .runningPastItsEnd(reason: "steps \(state.steps) reached the step limit \(limits.stepLimit)")
            }
        case .over:
            break
        }
        return Episode(
            mask: started.mask, highest: started.highest, won: started.won, phase: state.phase, steps: state.steps,
            score: state.score)
    }
}
