/// What an observation shows of one card, and its code: the observation is one small integer per card.
///
/// | code | the card |
/// |---|---|
/// | `0` | face down |
/// | `1` | matched (out of play) |
/// | `2 + c` | face up, showing content `c` (`0 ≤ c < pairs`) |
/// | `2 + pairs + c` | face down, seen before with content `c`: only with `reveal_seen` |
///
/// Codes are within `0...maxCode(pairs:)`. A face-up card is the first card of the move in progress, or one
/// of a mismatched pair, which stays face up until the next card is turned.
public enum CardView: Hashable, Sendable {
    /// Face down (and, without `reveal_seen`, nothing more is shown).
    case faceDown
    /// Matched: out of play.
    case matched
    /// Face up, showing its content.
    case faceUp(content: Int)
    /// Face down, shown with the content it had when seen (`reveal_seen`).
    case seen(content: Int)

    /// The card's code in a game of `pairs` pairs.
    @inlinable
    public func code(pairs: Int) -> UInt8 {
        switch self {
        case .faceDown: 0
        case .matched: 1
        case .faceUp(let content): UInt8(2 + content)
        case .seen(let content): UInt8(2 + pairs + content)
        }
    }

    /// The view a code stands for in a game of `pairs` pairs, or `nil` for a code outside `0...maxCode(pairs:)`.
    public init?(code: UInt8, pairs: Int) {
        let code = Int(code)
        switch code {
        case 0: self = .faceDown
        case 1: self = .matched
        case 2..<(2 + pairs): self = .faceUp(content: code - 2)
        case (2 + pairs)...(1 + 2 * pairs): self = .seen(content: code - 2 - pairs)
        default: return nil
        }
    }

    /// The largest code a game of `pairs` pairs shows.
    @inlinable
    public static func maxCode(pairs: Int) -> Int { 1 + 2 * pairs }
}
