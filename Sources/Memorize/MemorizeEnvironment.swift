import GymCore

/// A game of Memorize (Concentration) with Gymnasium's contract: `reset`, then `step` until every pair is matched.
///
///     var env = MemorizeEnvironment(rules: MemorizeRules())
///     var state = env.reset(seed: 42)
///     while !env.isOver {
///         let card = state.info.actionMask.member(at: 0)   // any face-down card
///         let step = try env.step(card)
///         state = MemorizeReset(observation: step.observation, info: step.info)
///     }
///
/// ## Spec sheet
///
/// - **Cards**: `rows × cols` (even, 2 to 64), every content `0..<pairs` twice, shuffled at each reset
///   (``Deck/shuffled(pairs:using:)``).
/// - **Observation**: one code per card, row-major (``CardView``): face down, matched, face up with its content,
///   or (with `reveal_seen`) face down with the content it showed when seen. Partially observed: without
///   `reveal_seen`, what was seen must be remembered.
/// - **Action**: the position of a card to turn, `0..<rows·cols`; legal when it is face down (not matched, not
///   face up). One card a step; two steps make a move.
/// - **Transition**: the first card of a move stays face up. The second completes the move: a matching pair is
///   matched (out of play); a mismatched pair stays face up until the next card is turned, and then both go
///   face down. An illegal card is refused (``MemorizeStepError``) and changes nothing; made through the
///   registry, the game follows the `invalid_action` policy every game has (`noop` by default).
/// - **Reward**: 1 for the card that completes a pair, `-mismatch_penalty` for the card that completes a
///   mismatch, 0 for a first card.
/// - **Terminated**: every pair is matched. **Truncated**: by the step limit every game has (`max_steps`, applied
///   by `VectorGame`).
/// - **Seeding**: as 2048's environment: a seed restarts the generator (`Xoshiro256StarStar` seeded through
///   `SplitMix64`); no seed continues its stream; a new environment starts from the initializer's seed.
/// - **Lifecycle**: ``step(_:)`` before the first reset or after the episode ended is a programming error.
public struct MemorizeEnvironment: GameEnvironment {
    /// The rules this environment plays by.
    public let rules: MemorizeRules
    /// The generator of the decks.
    var rng: Xoshiro256StarStar
    /// The cards of the episode.
    public private(set) var deck: Deck
    /// Cards out of play.
    public private(set) var matched = CardSet()
    /// Cards turned at least once this episode.
    public private(set) var seen = CardSet()
    /// The face-up first card of the move in progress, if a move is half done.
    public private(set) var firstCard: Int?
    /// The mismatched pair still face up (empty, or two cards), until the next card is turned.
    public private(set) var mismatched = CardSet()
    /// Pairs matched this episode.
    public private(set) var pairsMatched = 0
    /// Mismatched pairs this episode.
    public private(set) var mismatches = 0
    /// Cards turned this episode.
    public private(set) var steps = 0
    /// Where the environment is in its episode.
    public private(set) var phase = Phase.needsReset

    /// Where the environment is in its episode: the phases every game shares.
    public typealias Phase = EpisodePhase

    /// Creates an environment. Call ``reset(seed:)`` before the first step.
    ///
    /// - Parameters:
    ///   - rules: the game's configuration.
    ///   - seed: the generator's seed until a reset passes another one.
    public init(rules: MemorizeRules = MemorizeRules(), seed: UInt64 = 0) {
        self.rules = rules
        rng = Xoshiro256StarStar(seed: seed)
        deck = Deck(checked: (0..<rules.cardCount).map { UInt8($0 / 2) })
    }

    /// Whether the episode is over (or not started): `step` is not allowed.
    public var isOver: Bool { phase != .running }

    /// Cards face up now: the first card of a move in progress, or a mismatched pair.
    public var faceUp: CardSet {
        var cards = mismatched
        if let firstCard { cards.insert(firstCard) }
        return cards
    }

    /// The cards that may be turned: face down and not matched.
    public var actionMask: CardSet { CardSet.first(rules.cardCount).subtracting(matched).subtracting(faceUp) }

    /// What the agent sees of card `card`.
    public func view(of card: Int) -> CardView {
        let content = Int(deck[card])
        if matched.contains(card) { return .matched }
        if faceUp.contains(card) { return .faceUp(content: content) }
        if rules.revealSeen && seen.contains(card) { return .seen(content: content) }
        return .faceDown
    }

    /// The observation: every card's ``CardView`` code, row-major.
    public var observation: [UInt8] {
        // The codes the vector's columns get, by the same code (`write(observation:)`).
        [UInt8](unsafeUninitializedCapacity: rules.cardCount) { codes, count in
            write(observation: UnsafeMutableRawPointer(codes.baseAddress!))
            count = rules.cardCount
        }
    }

    /// The info of the current state.
    public var info: MemorizeInfo {
        MemorizeInfo(actionMask: actionMask, pairsMatched: pairsMatched, mismatches: mismatches, steps: steps)
    }

    /// Starts an episode on a newly shuffled deck.
    ///
    /// - Parameter seed: restarts the generator from this seed; `nil` continues the current stream.
    @discardableResult
    public mutating func reset(seed: UInt64? = nil) -> MemorizeReset {
        if let seed { rng = Xoshiro256StarStar(seed: seed) }
        return reset(deck: Deck.shuffled(pairs: rules.pairCount, using: &rng))
    }

    /// Starts an episode on a given deck (tests, hand-made positions); the generator is not drawn from.
    ///
    /// - Precondition: the deck has the rules' number of cards.
    @discardableResult
    public mutating func reset(deck: Deck) -> MemorizeReset {
        precondition(deck.count == rules.cardCount, "a deck of \(deck.count) cards for a game of \(rules.cardCount)")
        self.deck = deck
        (matched, seen, firstCard, mismatched) = (CardSet(), CardSet(), nil, CardSet())
        (pairsMatched, mismatches, steps) = (0, 0, 0)
        phase = .running
        return MemorizeReset(observation: observation, info: info)
    }

    /// Refuses a card that may not be turned now, with its reason: not a card, matched, or face up.
    public func check(_ card: Int) throws(MemorizeStepError) {
        guard card >= 0 && card < rules.cardCount else { throw .noSuchCard(card, cardCount: rules.cardCount) }
        guard !matched.contains(card) else { throw .matched(card) }
        guard !faceUp.contains(card) else { throw .faceUp(card) }
    }

    /// Turns `card`.
    ///
    /// - Throws: ``MemorizeStepError`` for a card that is not face down; nothing changes.
    /// - Precondition: an episode is running.
    public mutating func step(_ card: Int) throws(MemorizeStepError) -> MemorizeStep {
        precondition(phase == .running, phase == .over ? "step(_:) after the episode ended: call reset()" : "step(_:) before reset()")
        try check(card)
        let outcome = advance(card)
        return MemorizeStep(
            observation: observation, reward: outcome.reward, terminated: outcome.terminated, truncated: outcome.truncated, info: info)
    }

    /// Turns `card`, which ``check(_:)`` allowed, in a running episode.
    public mutating func advance(_ card: Int) -> StepOutcome {
        mismatched = CardSet()
        seen.insert(card)
        steps += 1
        var reward = 0.0
        if let first = firstCard {
            firstCard = nil
            if deck[first] == deck[card] {
                matched.insert(first)
                matched.insert(card)
                pairsMatched += 1
                reward = 1
            } else {
                mismatched.insert(first)
                mismatched.insert(card)
                mismatches += 1
                reward = 0 - rules.mismatchPenalty  // +0.0 without a penalty: -0.0 would print as "-0.0"
            }
        } else {
            firstCard = card
        }
        let terminated = pairsMatched == rules.pairCount
        if terminated { phase = .over }
        return StepOutcome(reward: reward, terminated: terminated, truncated: false)
    }
}
