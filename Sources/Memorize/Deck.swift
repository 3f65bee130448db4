import GymCore

/// The cards of a game: each card's content (its pair, `0..<pairs`), every content twice.
///
///     let deck = Deck.shuffled(pairs: 8, using: &rng)
public struct Deck: Hashable, Sendable {
    /// The contents, inline: an environment holding a deck is plain bytes, copied without reference counting
    /// (a vector of thousands copies and steps them on every step).
    @usableFromInline var storage: SIMD64<UInt8>
    /// The number of cards.
    @usableFromInline let count: Int

    /// The content of each card, row-major.
    public var contents: [UInt8] { (0..<count).map { storage[$0] } }

    /// The content of card `card`.
    @inlinable public subscript(card: Int) -> UInt8 { storage[card] }

    /// The number of pairs.
    public var pairCount: Int { count / 2 }

    /// A deck with these contents.
    ///
    /// - Throws: ``DeckError`` unless every content of `0..<contents.count / 2` appears exactly twice.
    public init(contents: [Int]) throws(DeckError) {
        guard contents.count >= 2 && contents.count % 2 == 0 && contents.count <= 64 else { throw .cardCount(contents.count) }
        var seen = [Int](repeating: 0, count: contents.count / 2)
        for (card, content) in contents.enumerated() {
            guard seen.indices.contains(content) else { throw .content(card: card, content: content, pairs: seen.count) }
            seen[content] += 1
            guard seen[content] <= 2 else { throw .thirdCard(card: card, content: content) }
        }
        self.init(checked: contents.map(UInt8.init))
    }

    /// A uniformly shuffled deck of `pairs` pairs: the contents `0, 0, 1, 1, …` shuffled by Fisher–Yates from the
    /// last card down, each swap drawn with `uniform(below:)`, so a seed gives the same deck everywhere.
    public static func shuffled(pairs: Int, using rng: inout some RandomNumberGenerator) -> Deck {
        var deck = Deck(count: 2 * pairs)
        for card in 0..<deck.count { deck.storage[card] = UInt8(card / 2) }
        for i in stride(from: deck.count - 1, to: 0, by: -1) {
            let j = rng.uniform(below: i + 1)
            (deck.storage[i], deck.storage[j]) = (deck.storage[j], deck.storage[i])
        }
        return deck
    }

    /// A deck of `count` cards of content 0, to be filled.
    init(count: Int) {
        storage = SIMD64()
        self.count = count
    }

    /// A deck already known to be one.
    init(checked contents: [UInt8]) {
        self.init(count: contents.count)
        for (card, content) in contents.enumerated() { storage[card] = content }
    }

    /// The other card of `card`'s pair.
    public func partner(of card: Int) -> Int {
        let content = storage[card]
        return (0..<count).first { $0 != card && storage[$0] == content }!
    }
}

/// Why contents do not make a ``Deck``.
public enum DeckError: Error, Hashable, Sendable {
    /// The number of cards is odd, or outside 2…64.
    case cardCount(Int)
    /// A content outside `0..<pairs`.
    case content(card: Int, content: Int, pairs: Int)
    /// A content given a third time.
    case thirdCard(card: Int, content: Int)
}

extension DeckError: CustomStringConvertible {
    /// For example "card 4 has content 9, outside 0 to 7".
    public var description: String {
        switch self {
        case .cardCount(let count): "a deck has an even number of cards from 2 to 64, got \(count)"
        case .content(let card, let content, let pairs): "card \(card) has content \(content), outside 0 to \(pairs - 1)"
        case .thirdCard(let card, let content): "card \(card) is the third card with content \(content): a content makes one pair"
        }
    }
}
