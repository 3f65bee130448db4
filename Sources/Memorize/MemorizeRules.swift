import GymCore

/// The rules of a game of Memorize (Concentration): how many cards, what an observation shows and what a mismatch
/// costs. The step limit and the invalid-action policy are every game's (`EpisodeLimits`, applied by `VectorGame`).
///
///     let rules = try MemorizeRules(rows: 4, cols: 4)   // 16 cards, 8 pairs
///
/// Every value is checked when the rules are made; ``MemorizeOption/all`` declares the options that set them.
public struct MemorizeRules: Hashable, Sendable {
    /// The sizes a side may have: a row of up to 64 cards, or a grid up to 64 cards in all.
    public static let sideRange = 1...64
    /// The card counts allowed: an even number, so that every card has its pair.
    public static let cardCountRange = 2...64
    /// The mismatch penalties allowed.
    public static let penaltyRange = 0.0...1_000_000.0

    /// Rows of cards.
    public let rows: Int
    /// Cards in a row.
    public let cols: Int
    /// Whether a face-down card that has been seen shows its content (a fully observed game, for debugging).
    public let revealSeen: Bool
    /// What a mismatched pair costs: its reward is `-mismatchPenalty`.
    public let mismatchPenalty: Double

    /// The number of cards, `rows · cols`.
    public var cardCount: Int { rows * cols }
    /// The number of pairs, half the cards.
    public var pairCount: Int { cardCount / 2 }

    /// The default game: 4 × 4 cards (8 pairs), nothing revealed, no penalty.
    public init() {
        (rows, cols, revealSeen, mismatchPenalty) = (4, 4, false, 0)
    }

    /// Rules for `rows × cols` cards.
    ///
    /// - Throws: ``MemorizeRulesError`` naming the first value out of range.
    public init(rows: Int, cols: Int, revealSeen: Bool = false, mismatchPenalty: Double = 0)
        throws(MemorizeRulesError)
    {
        try MemorizeRulesError.check(MemorizeOption.rows, .integer(rows))
        try MemorizeRulesError.check(MemorizeOption.cols, .integer(cols))
        let cards = rows * cols
        guard Self.cardCountRange.contains(cards), cards % 2 == 0 else { throw .cardCount(rows: rows, cols: cols) }
        try MemorizeRulesError.check(MemorizeOption.mismatchPenalty, .number(mismatchPenalty))
        self.rows = rows
        self.cols = cols
        self.revealSeen = revealSeen
        self.mismatchPenalty = mismatchPenalty
    }
}

/// Why values do not make ``MemorizeRules``.
public enum MemorizeRulesError: Error, Hashable, Sendable {
    /// An option's value is outside what it allows: the option's name, and the message its declaration words.
    case outOfRange(option: String, message: String)
    /// `rows · cols` is odd or outside 2…64.
    case cardCount(rows: Int, cols: Int)

    /// Throws ``outOfRange(option:message:)`` when `option` does not allow `value`.
    static func check(_ option: GameOption<MemorizeSettings>, _ value: OptionValue) throws(MemorizeRulesError) {
        if let message = option.rejection(of: value) { throw .outOfRange(option: option.name, message: message) }
    }
}

extension MemorizeRulesError: CustomStringConvertible {
    /// For example "rows must be an integer from 1 to 64, got 0", or "rows·cols must be an even number of cards
    /// from 2 to 64, got 3x3 = 9".
    public var description: String {
        switch self {
        case .outOfRange(_, let message): message
        case .cardCount(let rows, let cols):
            "rows·cols must be an even number of cards from \(MemorizeRules.cardCountRange.lowerBound) to "
                + "\(MemorizeRules.cardCountRange.upperBound), got \(rows)x\(cols) = \(rows * cols)"
        }
    }
}
