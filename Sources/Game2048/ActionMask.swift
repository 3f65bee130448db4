/// The set of legal actions in a state, as four bits.
///
///     let mask: ActionMask = [.left, .down]
///     mask.contains(.left)   // true
///     mask.rawValue          // 0b1100 (bit i is Direction(rawValue: i))
///     mask.booleans          // [false, false, true, true]
///
/// An action is legal exactly when it changes the board (two tiles at
/// ``Rules/largestExponent`` don't merge, see there). The mask that an
/// ``Environment`` reports is always the mask of the state the agent acts in
/// next, that is, computed after the spawn.
@frozen
public struct ActionMask: OptionSet, Hashable, Sendable {
    /// Bit `i` is set when `Direction(rawValue: i)` is legal; bits 4–7 are always zero.
    public var rawValue: UInt8

    /// Creates a mask from its bits; bits above the fourth are dropped.
    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b1111 }

    /// Creates the mask holding exactly one direction.
    @inlinable
    public init(_ direction: Direction) { self.rawValue = 1 << UInt8(direction.rawValue) }

    /// Up is legal.
    public static let up = ActionMask(.up)
    /// Right is legal.
    public static let right = ActionMask(.right)
    /// Down is legal.
    public static let down = ActionMask(.down)
    /// Left is legal.
    public static let left = ActionMask(.left)
    /// All four directions.
    public static let all = ActionMask(rawValue: 0b1111)

    /// Whether `direction` is legal.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    public func contains(_ direction: Direction) -> Bool {
        rawValue & (1 << UInt8(direction.rawValue)) != 0
    }

    /// The number of legal directions, 0 to 4.
    @inlinable
    public var count: Int {
        // Three bits per mask value, looked up in a constant: agents call this
        // every step, and the baseline x86-64 target has no POPCNT.
        Int(truncatingIfNeeded: (0x8DA6_9169_1448 as UInt64) &>> (3 &* UInt64(rawValue & 0xF))) & 7
    }

    /// The legal directions in action order.
    public var directions: [Direction] { Direction.allCases.filter(contains) }

    /// Four booleans in action order (`up, right, down, left`), as Gymnasium's `action_mask`.
    public var booleans: [Bool] { Direction.allCases.map(contains) }

    /// Writes the mask as four bytes at `target`, in action order: 1 where the action is legal, 0 elsewhere.
    @inlinable @inline(__always)
    public func storeBytes(at target: UnsafeMutablePointer<UInt8>) {
        // Bit i moves to the low bit of byte i: one multiply spreads the four bits, one mask keeps them.
        let m = UInt32(rawValue & 0xF)
        let spread = (m &* 0x0020_4081) & 0x0101_0101
        UnsafeMutableRawPointer(target).storeBytes(of: spread.littleEndian, as: UInt32.self)
    }

    /// The `index`-th legal direction in action order.
    ///
    ///     let mask: ActionMask = [.right, .left]
    ///     mask.direction(at: 1)   // .left
    ///
    /// - Precondition: `0 <= index < count`.
    /// - Complexity: O(1).
    @inlinable
    public func direction(at index: Int) -> Direction {
        precondition(index >= 0 && index < count, "index \(index) out of range for a mask of \(count) legal actions")
        // Two bits per (mask, index) pair in two constants, so a random agent's
        // choice costs no data-dependent branch.
        let m = UInt64(rawValue & 0xF), k = UInt64(truncatingIfNeeded: index)
        let table: UInt64 = m < 8 ? 0x2409_0802_0401_0000 : 0xE439_380E_340D_0C03
        return Direction(unchecked: UInt8(truncatingIfNeeded: table &>> (2 &* ((m & 7) &* 4 &+ k))))
    }
}

extension ActionMask: CustomStringConvertible {
    /// The legal directions, for example `[up, left]`.
    public var description: String { "[" + directions.map(\.name).joined(separator: ", ") + "]" }
}
