/// What ``MemorizeEnvironment/step(_:)`` returns: Gymnasium's `(obs, reward, terminated, truncated, info)`.
///
///     let step = try env.step(5)
///     step.observation     // one code per card (see CardView)
///     step.reward          // 1 for a matched pair, -mismatch_penalty for a mismatched one, else 0
///     step.terminated      // every pair is matched
public struct MemorizeStep: Sendable, Hashable {
    /// One ``CardView`` code per card, row-major: what the agent sees next.
    public var observation: [UInt8]
    /// 1 when the card completes a pair, `-mismatchPenalty` when it completes a mismatch, else 0.
    public var reward: Double
    /// Every pair is matched.
    public var terminated: Bool
    /// The episode was cut by `max_steps` (set even when the same step also terminated).
    public var truncated: Bool
    /// Everything else.
    public var info: MemorizeInfo

    /// Creates a step result.
    public init(observation: [UInt8], reward: Double, terminated: Bool, truncated: Bool, info: MemorizeInfo) {
        (self.observation, self.reward, self.terminated, self.truncated) = (observation, reward, terminated, truncated)
        self.info = info
    }
}

/// The extra information of a reset or a step (Gymnasium's `info`, typed).
public struct MemorizeInfo: Sendable, Hashable {
    /// The cards that may be turned next: face down and not matched.
    public var actionMask: CardSet
    /// Pairs matched so far in the episode.
    public var pairsMatched: Int
    /// Mismatched pairs so far.
    public var mismatches: Int
    /// Moves (two cards turned) completed so far: `pairsMatched + mismatches`.
    public var moves: Int { pairsMatched + mismatches }
    /// Cards turned so far.
    public var steps: Int

    /// Creates an info record.
    public init(actionMask: CardSet, pairsMatched: Int, mismatches: Int, steps: Int) {
        (self.actionMask, self.pairsMatched, self.mismatches, self.steps) = (actionMask, pairsMatched, mismatches, steps)
    }
}

/// The result of ``MemorizeEnvironment/reset(seed:)``: Gymnasium's `(obs, info)`.
public struct MemorizeReset: Sendable, Hashable {
    /// Every card face down.
    public var observation: [UInt8]
    /// All cards legal, nothing matched, no step.
    public var info: MemorizeInfo

    /// Creates a reset result (or a state to act on: a step's observation and info).
    public init(observation: [UInt8], info: MemorizeInfo) {
        self.observation = observation
        self.info = info
    }
}

/// A card that may not be turned; nothing changed.
public enum MemorizeStepError: Error, Hashable, Sendable {
    /// The position is not a card of the game.
    case noSuchCard(Int, cardCount: Int)
    /// The card is matched: out of play.
    case matched(Int)
    /// The card is face up already.
    case faceUp(Int)
}

extension MemorizeStepError: CustomStringConvertible {
    /// For example "card 16 is not a card: the cards are 0 to 15", "card 3 is matched", "card 5 is face up".
    public var description: String {
        switch self {
        case .noSuchCard(let card, let count): "card \(card) is not a card: the cards are 0 to \(count - 1)"
        case .matched(let card): "card \(card) is matched: only face-down cards may be turned"
        case .faceUp(let card): "card \(card) is face up: only face-down cards may be turned"
        }
    }
}
