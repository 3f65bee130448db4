/// One of the four moves of 2048.
///
///     let action = Direction.left
///     print(action.rawValue)   // 3
///     print(action.name)       // "left"
///
/// The raw values are the action indices used everywhere in Gym2048: the Swift
/// API, the JSON-RPC protocol, weights files and recorded episodes. They are
/// defined here and nowhere else: `0 = up`, `1 = right`, `2 = down`, `3 = left`
/// (clockwise from the top, the order of the original game's keyboard map).
@frozen
public enum Direction: Int, CaseIterable, Hashable, Sendable {
    /// Tiles slide toward row 0.
    case up = 0
    /// Tiles slide toward the last column.
    case right = 1
    /// Tiles slide toward the last row.
    case down = 2
    /// Tiles slide toward column 0.
    case left = 3

    /// The direction of action index `index`, for an index already known to be `0…3`.
    ///
    /// The enum's cases are stored as their declaration order, which is their raw value, so
    /// this is a reinterpretation: `init?(rawValue:)` compiles to a jump table, which a random
    /// agent's actions mispredict on every step (a test checks every case).
    ///
    /// - Precondition: `0 <= index < 4` (not checked).
    @inlinable @inline(__always)
    init(unchecked index: UInt8) {
        self = unsafeBitCast(index & 3, to: Direction.self)
    }

    /// The lowercase name used by the protocol and the CLI (`"up"`, `"right"`, `"down"`, `"left"`).
    @inlinable
    public var name: String {
        switch self {
        case .up: "up"
        case .right: "right"
        case .down: "down"
        case .left: "left"
        }
    }

    /// Creates a direction from its lowercase name.
    ///
    ///     Direction(name: "down")   // .down
    ///     Direction(name: "north")  // nil
    ///
    /// - Parameter name: `"up"`, `"right"`, `"down"` or `"left"`.
    public init?(name: String) {
        switch name {
        case "up": self = .up
        case "right": self = .right
        case "down": self = .down
        case "left": self = .left
        default: return nil
        }
    }

    /// The direction that undoes the sliding axis: up ↔ down, left ↔ right.
    @inlinable
    public var opposite: Direction { Direction(rawValue: (rawValue + 2) & 3)! }
}

extension Direction: CustomStringConvertible {
    /// The direction's lowercase name.
    public var description: String { name }
}
