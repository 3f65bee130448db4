/// A set of card positions, at most 64, as one 64-bit word: the legal cards of a state, the matched ones, the
/// ones seen.
///
///     let legal = env.actionMask        // CardSet
///     for card in legal { … }           // ascending positions
@frozen
public struct CardSet: Hashable, Sendable, Sequence {
    /// Bit `i` is card `i`.
    public var bits: UInt64

    /// The set whose members are the bits of `bits`.
    @inlinable
    public init(bits: UInt64 = 0) { self.bits = bits }

    /// Cards `0..<count`.
    @inlinable
    public static func first(_ count: Int) -> CardSet { CardSet(bits: count >= 64 ? ~0 : (1 << UInt64(count)) &- 1) }

    /// Whether `card` is in the set.
    @inlinable
    public func contains(_ card: Int) -> Bool { card >= 0 && card < 64 && bits & (1 << UInt64(card)) != 0 }

    /// Adds `card`.
    @inlinable
    public mutating func insert(_ card: Int) { bits |= 1 << UInt64(card) }

    /// Removes `card`.
    @inlinable
    public mutating func remove(_ card: Int) { bits &= ~(1 << UInt64(card)) }

    /// The number of cards in the set.
    @inlinable
    public var count: Int { bits.nonzeroBitCount }

    /// Whether the set is empty.
    @inlinable
    public var isEmpty: Bool { bits == 0 }

    /// The cards of either set.
    @inlinable
    public func union(_ other: CardSet) -> CardSet { CardSet(bits: bits | other.bits) }

    /// The cards of this set that are not in `other`.
    @inlinable
    public func subtracting(_ other: CardSet) -> CardSet { CardSet(bits: bits & ~other.bits) }

    /// The members in ascending order.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(bits: bits) }

    /// Walks the members from the lowest.
    @frozen
    public struct Iterator: IteratorProtocol {
        @usableFromInline var bits: UInt64
        @inlinable init(bits: UInt64) { self.bits = bits }
        /// The next member, or `nil`.
        @inlinable
        public mutating func next() -> Int? {
            guard bits != 0 else { return nil }
            let card = bits.trailingZeroBitCount
            bits &= bits &- 1
            return card
        }
    }

    /// The `index`-th member in ascending order (0-based).
    ///
    /// - Precondition: `index < count`.
    @inlinable
    public func member(at index: Int) -> Int {
        precondition(index >= 0 && index < count, "index \(index) is outside a set of \(count) cards")
        var rest = bits
        for _ in 0..<index { rest &= rest &- 1 }
        return rest.trailingZeroBitCount
    }
}
