import Game2048

/// What the learner's loops need of a board beyond `GameBoard`: an empty board of the rules, a move,
/// and the packed board's limit. A ``ValueFunction`` reads one kind of these.
///
/// Two boards conform: the packed 4×4 `Bitboard` (moves from the row table) and `Board` (any size).
/// The loops are generic and `@inlinable`, so each board gets its own specialized copy: the packed
/// one compiles to the code a loop written for `Bitboard` alone would be.
@usableFromInline
package protocol LearnableBoard: GameBoard {
    /// The empty board of `rules`.
    static func empty(of rules: Rules) -> Self
    /// The board after a move in `direction`: from `table` on a packed board, by the rules of `Board` otherwise.
    func move(_ direction: Direction, table: Bitboard.MoveTable) -> MoveOutcome<Self>
    /// Whether the board cannot go on: on a packed board, two 32 768 tiles (four bits hold no more).
    var holdsTooLargeATile: Bool { get }
}

extension Bitboard: LearnableBoard {
    @inlinable
    package static func empty(of rules: Rules) -> Bitboard { Bitboard(rawValue: 0) }

    @inlinable @inline(__always)
    package func move(_ direction: Direction, table: Bitboard.MoveTable) -> MoveOutcome<Bitboard> { table.move(self, direction) }

    @inlinable @inline(__always)
    package var holdsTooLargeATile: Bool { holdsLimitTile && Bitboard.countLimitTiles(self) >= 2 }
}

extension Board: LearnableBoard {
    @inlinable
    package static func empty(of rules: Rules) -> Board { Board(rules: rules) }

    @inlinable @inline(__always)
    package func move(_ direction: Direction, table: Bitboard.MoveTable) -> MoveOutcome<Board> { moved(direction) }

    @inlinable
    package var holdsTooLargeATile: Bool { false }
}

extension Bitboard {
    /// The number of cells holding 15 (the 32 768 tile).
    @inlinable
    static func countLimitTiles(_ board: Bitboard) -> Int {
        (0..<16).count { board[$0] == 15 }
    }
}
