import GymCore

/// A Memorize player: it sees what an agent sees (the observation and the legal cards), remembers what it can,
/// and names the card to turn.
///
///     var player = MemorizeAgent.perfectMemory.player(rules: rules)
///     let card = player.choose(observation: state.observation, legal: state.info.actionMask, using: &rng)
public protocol MemorizePlayer {
    /// Forgets everything: a new episode starts.
    mutating func reset()
    /// The card to turn next, one of `legal`; draws from `rng` where the player picks at random.
    mutating func choose(observation: [UInt8], legal: CardSet, using rng: inout some RandomNumberGenerator) -> Int
}

/// The built-in players, by the names the command line gives them.
public enum MemorizeAgent: Sendable, Hashable, CaseIterable {
    /// A uniformly random legal card.
    case random
    /// Remembers every card seen; completes a known pair at once; else turns an unseen card, completes it if its
    /// partner is known, else turns a second unseen card.
    case perfectMemory
    /// The perfect-memory player that remembers only the last `k` cards turned.
    case forgetful(memory: Int)

    /// Every kind, with the forgetful player's default memory.
    /// (No optimal player apart: the perfect-memory rule is optimal play, ``MemorizeOptimum`` shows.)
    public static let allCases: [MemorizeAgent] = [.random, .perfectMemory, .forgetful(memory: 4)]

    /// The command line's name: `random`, `perfect`, `forgetful`.
    public var name: String {
        switch self {
        case .random: "random"
        case .perfectMemory: "perfect"
        case .forgetful: "forgetful"
        }
    }

    /// A player of this kind for a game under `rules`.
    public func player(rules: MemorizeRules) -> any MemorizePlayer {
        switch self {
        case .random: RandomCardPlayer()
        case .perfectMemory: RememberingPlayer(rules: rules, memory: nil)
        case .forgetful(let memory): RememberingPlayer(rules: rules, memory: memory)
        }
    }
}

/// Turns a uniformly random legal card.
public struct RandomCardPlayer: MemorizePlayer {
    /// A random player.
    public init() {}
    public mutating func reset() {}

    public mutating func choose(observation: [UInt8], legal: CardSet, using rng: inout some RandomNumberGenerator) -> Int {
        legal.member(at: rng.uniform(below: legal.count))
    }
}

/// The players that remember cards: perfectly, or only the last few (``MemorizeAgent/forgetful(memory:)``).
///
/// What it knows comes from the observations alone: a face-up card shows its content (and with `reveal_seen`, a
/// seen card too). One face-up card means a move is half done; none or two (a mismatched pair about to go face
/// down) mean a move starts.
public struct RememberingPlayer: MemorizePlayer {
    let pairs: Int
    /// The cards remembered most recently last, with their contents; at most `memory` of them.
    var remembered: [(card: Int, content: Int)] = []
    /// How many cards it keeps; `nil` for all.
    let memory: Int?

    /// A player for a game under `rules` remembering the last `memory` cards (`nil`: all).
    public init(rules: MemorizeRules, memory: Int?) {
        pairs = rules.pairCount
        self.memory = memory
    }

    public mutating func reset() { remembered.removeAll(keepingCapacity: true) }

    mutating func remember(_ card: Int, _ content: Int) {
        if let index = remembered.firstIndex(where: { $0.card == card }) {
            guard index != remembered.count - 1 || remembered[index].content != content else { return }
            remembered.remove(at: index)
        }
        remembered.append((card, content))
        if let memory, remembered.count > memory { remembered.removeFirst(remembered.count - memory) }
    }

    public mutating func choose(observation: [UInt8], legal: CardSet, using rng: inout some RandomNumberGenerator) -> Int {
        var faceUp: [(card: Int, content: Int)] = []
        for (card, code) in observation.enumerated() {
            switch CardView(code: code, pairs: pairs) {
            case .faceUp(let content):
                faceUp.append((card, content))
                remember(card, content)
            case .seen(let content): remember(card, content)
            default: break
            }
        }
        // What is remembered of the cards still in play, by content (arrays, not a dictionary: a dictionary's
        // order changes from run to run, and a choice must not).
        var known = [[Int]](repeating: [], count: pairs)
        for (card, content) in remembered where legal.contains(card) { known[content].append(card) }
        var unseen = legal
        for cards in known { for card in cards { unseen.remove(card) } }
        if faceUp.count == 1 {
            let first = faceUp[0]
            if let partner = known[first.content].first { return partner }
        } else if let pair = known.first(where: { $0.count == 2 }) {
            return pair.min()!
        }
        let pool = unseen.isEmpty ? legal : unseen
        return pool.member(at: rng.uniform(below: pool.count))
    }
}
