/// The interface shared by the generic ``Board`` and the packed 4×4 ``Bitboard``.
///
///     func greedyMove(on board: some GameBoard) -> Direction? {
///         board.legalMoves.directions.max { board.moved($0).reward < board.moved($1).reward }
///     }
///
/// Both representations implement the same rules; the test suite checks them
/// against each other on random boards, so code written against this protocol
/// behaves the same with either.
public protocol GameBoard: Hashable, Sendable {
    /// Number of rows.
    var rows: Int { get }
    /// Number of columns.
    var cols: Int { get }
    /// The exponent in a cell, by row-major index (0 = empty).
    subscript(cell: Int) -> UInt8 { get }
    /// The board after a move, the reward, and whether anything changed.
    func moved(_ direction: Direction) -> MoveOutcome<Self>
    /// The directions that change the board.
    var legalMoves: ActionMask { get }
    /// Number of empty cells.
    var emptyCount: Int { get }
    /// The largest exponent on the board (0 when empty).
    var maxExponent: UInt8 { get }
    /// Places a random tile by the spawn rule (value first, then the `k`-th empty cell).
    mutating func spawnRandomTile(fourThreshold: UInt64, using rng: inout some RandomNumberGenerator) -> Spawn?
}
