/// What one move does to a board, before any tile spawns.
///
///     let outcome = board.moved(.left)
///     outcome.afterstate   // the board after sliding and merging
///     outcome.reward       // the sum of the merged tiles' values
///     outcome.changed      // false: the move is illegal
///
/// The afterstate is the deterministic half of a 2048 transition; the spawn
/// that follows is the random half. Afterstate learners (Szubert & Jaśkowski
/// 2014) value exactly this board. `Grid` is ``Board`` or ``Bitboard``.
@frozen
public struct MoveOutcome<Grid: GameBoard>: Hashable, Sendable {
    /// The board after sliding and merging, before the spawn.
    public var afterstate: Grid
    /// The sum of the values of the tiles created by merges (the score increment).
    public var reward: Int64
    /// Whether any tile moved or merged; a move that changes nothing is illegal.
    public var changed: Bool
    /// The exponent of the largest tile a merge created (0 when nothing merged).
    public var highestMerge: UInt8

    /// Creates an outcome.
    @inlinable
    public init(afterstate: Grid, reward: Int64, changed: Bool, highestMerge: UInt8) {
        (self.afterstate, self.reward, self.changed, self.highestMerge) = (afterstate, reward, changed, highestMerge)
    }
}

/// One tile's path during a move, for clients that animate a board.
///
///     // row [2 2 . 4] moved left: cell 1 merges into cell 0, cell 3 slides to cell 1
///     [TileMovement(from: 1, to: 0, merged: true), TileMovement(from: 3, to: 1, merged: false)]
///
/// Only tiles that move are listed. When `merged` is true, the tile at `from`
/// lands on the tile that reaches `to` first in the move direction, and the two
/// become one tile of twice the value.
@frozen
public struct TileMovement: Hashable, Sendable {
    /// The cell the tile starts in (row-major index).
    public var from: Int
    /// The cell it ends in.
    public var to: Int
    /// Whether it merges there with the tile that already reached `to`.
    public var merged: Bool

    /// Creates a movement.
    @inlinable
    public init(from: Int, to: Int, merged: Bool) {
        (self.from, self.to, self.merged) = (from, to, merged)
    }
}
