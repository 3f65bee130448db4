/// A made game's results read back as numbers: every column of ``GameSpace/columns(finals:)`` copied out of the
/// game once per ``read(_:)``, so that a player, a report or a screen reads any game's observation and info by
/// column name without knowing the game.
///
///     var results = GameResults(space: game.space, count: game.count)
///     results.read(game)
///     results.values("action_mask", at: 0)   // [1, 1, 0, …]
public struct GameResults: Sendable {
    /// The columns, in the order the game writes them.
    public let columns: GameColumns
    /// The number of environments.
    public let count: Int
    /// The number of actions (``GameSpace/actionCount``).
    public let actionCount: Int
    /// Every column's bytes for every environment, one column after another.
    var bytes: [UInt8]
    /// Where each column starts in ``bytes``.
    let offsets: [Int]

    /// Room for the results of `count` environments of `space`.
    public init(space: GameSpace, count: Int) {
        columns = space.columns(finals: false)
        self.count = count
        actionCount = space.actionCount
        let sizes = columns.all.map { $0.byteCount(environments: count) }
        offsets = sizes.indices.map { sizes[..<$0].reduce(0, +) }
        bytes = Array(repeating: 0, count: sizes.reduce(0, +))
    }

    /// Copies the game's current results.
    public mutating func read(_ game: any GameInstance) {
        let offsets = offsets
        bytes.withUnsafeMutableBytes { raw in
            let addresses: [UnsafeMutableRawPointer?] = offsets.map { raw.baseAddress! + $0 }
            addresses.withUnsafeBufferPointer { game.write(into: $0) }
        }
    }

    /// The values of column `name` for environment `index` (empty when there is no such column).
    public func values(_ name: String, at index: Int) -> [Double] {
        guard let column = columns.index(of: name) else { return [] }
        let declaration = columns.all[column]
        let size = declaration.type.byteCount
        let start = offsets[column]
        return bytes.withUnsafeBytes { bytes in
            (0..<declaration.width).map { offset in
                let at = start + (index * declaration.width + offset) * size
                return switch declaration.type {
                case .bool, .uint8: Double(bytes.load(fromByteOffset: at, as: UInt8.self))
                case .int8: Double(bytes.load(fromByteOffset: at, as: Int8.self))
                case .int64: Double(bytes.loadUnaligned(fromByteOffset: at, as: Int64.self))
                case .float32: Double(bytes.loadUnaligned(fromByteOffset: at, as: Float.self))
                case .float64: bytes.loadUnaligned(fromByteOffset: at, as: Double.self)
                }
            }
        }
    }

    /// The one value of column `name` for environment `index` as an integer, if the column exists.
    public func integer(_ name: String, at index: Int) -> Int? { values(name, at: index).first.map { Int($0) } }

    /// Environment `index`'s observation, row-major.
    public func observation(at index: Int) -> [Double] { values(GameColumns.observation, at: index) }
    /// Environment `index`'s last reward.
    public func reward(at index: Int) -> Double { values(GameColumns.reward, at: index)[0] }
    /// Environment `index`'s last step outcome: its reward and flags.
    public func outcome(at index: Int) -> StepOutcome {
        StepOutcome(
            reward: reward(at: index), terminated: values(GameColumns.terminated, at: index)[0] != 0,
            truncated: values(GameColumns.truncated, at: index)[0] != 0)
    }
    /// The actions environment `index` may take, from its `action_mask` info column; `nil` for a game without one.
    public func legalActions(at index: Int) -> [Int]? {
        guard columns.index(of: Self.actionMask) != nil else { return nil }
        return values(Self.actionMask, at: index).enumerated().compactMap { $0.element != 0 ? $0.offset : nil }
    }

    /// The info column that flags the legal actions, by the name every game gives it.
    public static let actionMask = "action_mask"
}
