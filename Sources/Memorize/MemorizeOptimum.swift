import GymCore

/// The exact expected number of moves (two cards turned) to finish a game of Memorize with perfect memory: under
/// optimal play, and under the perfect-memory player's rule, by dynamic programming over what a player knows.
///
///     let table = MemorizeOptimum(maxPairs: 32)
///     table.optimalMoves(pairs: 8)         // the least expected number of moves, 8 pairs
///     MemorizeOptimum.asymptoticMoves(pairs: 8)
///
/// A player with perfect memory is in a state `(u, k)`: `u` cards never seen, and `k` cards seen whose partner
/// is among them (a pair whose two cards are known is matched at once: one move, whenever it is made). A move
/// starts with an unseen card, which with probability `k/u` completes a known pair (1 move, to `(u−1, k−1)`);
/// otherwise it is new, and the second card is a choice:
/// - a known card: a deliberate mismatch that reveals nothing more (1 move, to `(u−1, k+1)`);
/// - an unseen card, which is the first card's partner with probability `1/(u−1)` (1 move, to `(u−2, k)`),
///   matches another known card with probability `k/(u−1)` (that pair takes one more move: 2 moves, to
///   `(u−2, k)`), or is new (1 move, to `(u−2, k+2)`).
/// A move may also start with a known card and go on with an unseen one (it is never better, and the table
/// includes it to show so); a move of two known cards changes nothing and is never made.
/// ``optimalMoves(pairs:)`` takes the better choice everywhere; ``perfectMemoryMoves(pairs:)`` always turns an
/// unseen second card, as the perfect-memory player (``MemorizeAgent/perfectMemory``) does. They agree for every
/// game up to 32 pairs, in every state: no state of ``turnsKnownSecond(unseen:known:)`` exists, so the
/// perfect-memory rule is optimal play (a test checks it). Velleman & Warrington ("What to expect in a game of
/// memory", American Mathematical Monthly, 2013) derive the optimum's growth,
/// ``asymptoticMoves(pairs:)``.
public struct MemorizeOptimum: Sendable {
    /// The most pairs the table holds.
    public let maxPairs: Int
    /// Expected moves from `(u, k)` under optimal play, at `u · (2·maxPairs + 1) + k`.
    let optimal: [Double]
    /// Expected moves from `(u, k)` under the perfect-memory rule.
    let perfect: [Double]
    /// Whether the optimum turns a known card second, having turned a new card first, at `(u, k)`.
    let knownSecond: [Bool]

    /// Solves every state of games of up to `maxPairs` pairs.
    ///
    /// - Precondition: `1 ≤ maxPairs ≤ 32`.
    public init(maxPairs: Int = MemorizeRules.cardCountRange.upperBound / 2) {
        precondition((1...32).contains(maxPairs), "maxPairs must be from 1 to 32, got \(maxPairs)")
        self.maxPairs = maxPairs
        let side = 2 * maxPairs + 1
        var optimal = [Double](repeating: 0, count: side * side), perfect = optimal
        var knownSecond = [Bool](repeating: false, count: side * side)
        for u in 1..<side {
            for k in stride(from: u % 2, through: u, by: 2) {
                let (best, known) = Self.value(u: u, k: k, side: side, table: optimal, choosing: true)
                optimal[u * side + k] = best
                knownSecond[u * side + k] = known
                perfect[u * side + k] = Self.value(u: u, k: k, side: side, table: perfect, choosing: false).moves
            }
        }
        (self.optimal, self.perfect, self.knownSecond) = (optimal, perfect, knownSecond)
    }

    /// The expected moves from `(u, k)` given the values of every state with fewer unseen cards; with
    /// `choosing`, the better of every choice (and whether a known second card is the better), else the
    /// perfect-memory rule's.
    static func value(u: Int, k: Int, side: Int, table: [Double], choosing: Bool) -> (moves: Double, knownSecond: Bool) {
        func e(_ u: Int, _ k: Int) -> Double { table[u * side + k] }
        let (du, dk) = (Double(u), Double(k))
        // The first card is unseen: it completes a known pair, or it is new.
        var unseenFirst = dk / du * (1 + (k > 0 ? e(u - 1, k - 1) : 0))
        var knownSecond = false
        if u > k {
            let second = secondCard(u: u, k: k, side: side, table: table)
            var moves = second.unseen
            if choosing, let known = second.known, known < second.unseen {
                moves = known
                knownSecond = true
            }
            unseenFirst += (du - dk) / du * moves
        }
        guard choosing && k > 0 else { return (unseenFirst, knownSecond) }
        // The first card is known, the second unseen: its partner, another known card's, or new.
        var knownFirst = 1 / du * (1 + e(u - 1, k - 1)) + (dk - 1) / du * (2 + e(u - 1, k - 1))
        if u > k { knownFirst += (du - dk) / du * (1 + e(u - 1, k + 1)) }
        return (min(unseenFirst, knownFirst), knownSecond)
    }

    /// The expected moves from `(u, k)` once the first card turned was new, by the second card: a known one
    /// (`nil` with none known), or an unseen one.
    static func secondCard(u: Int, k: Int, side: Int, table: [Double]) -> (known: Double?, unseen: Double) {
        func e(_ u: Int, _ k: Int) -> Double { table[u * side + k] }
        let (rest, dk) = (Double(u - 1), Double(k))
        var unseen = 1 / rest * (1 + e(u - 2, k)) + dk / rest * (2 + e(u - 2, k))
        if u - k >= 4 { unseen += (rest - 1 - dk) / rest * (1 + e(u - 2, k + 2)) }
        return (k > 0 ? 1 + e(u - 1, k + 1) : nil, unseen)
    }

    /// Under optimal play from `unseen` and `known` cards, the expected moves once the first card turned was
    /// new, by the second card: a known one (`nil` with none known) or an unseen one.
    public func secondCardMoves(unseen: Int, known: Int) -> (known: Double?, unseen: Double) {
        _ = index(unseen, known)
        precondition(unseen > known, "with \(unseen) unseen and \(known) known cards, the first card is never new")
        return Self.secondCard(u: unseen, k: known, side: 2 * maxPairs + 1, table: optimal)
    }

    /// The least expected number of moves to match `pairs` pairs, from a deck never seen.
    public func optimalMoves(pairs: Int) -> Double { optimalMoves(unseen: 2 * pairs, known: 0) }

    /// The expected number of moves of the perfect-memory rule (``MemorizeAgent/perfectMemory``) on `pairs` pairs.
    public func perfectMemoryMoves(pairs: Int) -> Double { perfectMemoryMoves(unseen: 2 * pairs, known: 0) }

    /// The least expected number of moves from `unseen` cards never seen and `known` seen cards whose partners
    /// are unseen.
    ///
    /// - Precondition: `known ≤ unseen ≤ 2·maxPairs` and `unseen − known` even.
    public func optimalMoves(unseen: Int, known: Int) -> Double { optimal[index(unseen, known)] }

    /// The perfect-memory rule's expected number of moves from `unseen` and `known` cards.
    public func perfectMemoryMoves(unseen: Int, known: Int) -> Double { perfect[index(unseen, known)] }

    /// Whether optimal play, having turned a new card first from `unseen` unseen and `known` known cards (counted
    /// before that card), turns a known card second rather than an unseen one.
    public func turnsKnownSecond(unseen: Int, known: Int) -> Bool { knownSecond[index(unseen, known)] }

    func index(_ u: Int, _ k: Int) -> Int {
        precondition(k >= 0 && k <= u && u <= 2 * maxPairs && (u - k) % 2 == 0, "no state of \(u) unseen and \(k) known cards")
        return u * (2 * maxPairs + 1) + k
    }

    /// Velleman & Warrington's asymptotic expectation of optimal play, `(3 − 2 ln 2)·n + 7/8 − 2 ln 2`.
    public static func asymptoticMoves(pairs: Int) -> Double {
        let ln2 = 0.693_147_180_559_945_3
        return (3 - 2 * ln2) * Double(pairs) + 7.0 / 8.0 - 2 * ln2
    }
}
