/// A tile placed by the game after a move or at the start of an episode.
///
///     Spawn(cell: 5, exponent: 1)   // a 2 on cell 5 (row 1, column 1 of a 4×4 board)
@frozen
public struct Spawn: Hashable, Sendable {
    /// The row-major index of the cell.
    public var cell: Int
    /// The tile's exponent: 1 for a 2, 2 for a 4.
    public var exponent: UInt8

    /// Creates a spawn.
    @inlinable public init(cell: Int, exponent: UInt8) { (self.cell, self.exponent) = (cell, exponent) }

    /// The tile's value, 2 or 4.
    @inlinable
    public var value: Int { 1 << Int(exponent) }
}

/// One outcome of the spawn chance node, with its probability.
///
///     // a board with 3 empty cells and the default 10 % fours:
///     ChanceOutcome(cell: 7, exponent: 1, probability: 0.3)    // 0.9 / 3
///     ChanceOutcome(cell: 7, exponent: 2, probability: 0.0333…) // 0.1 / 3
@frozen
public struct ChanceOutcome: Hashable, Sendable {
    /// The tile that appears.
    public var spawn: Spawn
    /// Its probability; the outcomes of one afterstate sum to 1.
    public var probability: Double

    /// Creates an outcome.
    @inlinable public init(spawn: Spawn, probability: Double) { (self.spawn, self.probability) = (spawn, probability) }
}
