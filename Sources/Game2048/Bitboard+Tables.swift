// The 65 536-entry row table behind the 4×4 fast path, as in the fastest C
// engines (nneonneo/2048-ai, moporgic/TDL2048): one lookup moves a whole row.
//
// Each entry packs, for the 16-bit row `r` (cell 0 in the low nibble):
//
//     bits  0–15  the row after a move toward cell 0 (left)
//     bits 16–31  the row after a move toward cell 3 (right)
//     bits 32–55  the reward of merging the row (the same both ways: each run of
//                 k equal tiles merges into ⌊k/2⌋ tiles whichever end it starts from)
//     bits 56–63  the exponent of the largest tile a merge creates (0 if none)
//
// The entries come from the generic line kernel in Board+Move.swift, so the
// two paths cannot disagree on a row.

extension Bitboard {
    @usableFromInline
    static let rowTable = RowTableHandle { row in
        var line = Board(unchecked: 2, 4)
        for cell in 0..<4 { line.storage[cell] = UInt8(truncatingIfNeeded: row >> (4 * cell)) & 0xF }
        let left = line.moved(.left)
        let right = line.moved(.right)
        var leftRow: UInt64 = 0, rightRow: UInt64 = 0
        for cell in 0..<4 {
            // A 15 + 15 merge makes 16, which four bits cannot hold; the environment
            // leaves the fast path before a board can hold two 32 768 tiles.
            leftRow |= UInt64(left.afterstate.storage[cell] & 0xF) << (4 * cell)
            rightRow |= UInt64(right.afterstate.storage[cell] & 0xF) << (4 * cell)
        }
        return leftRow | rightRow << 16 | UInt64(left.reward) << 32 | UInt64(left.highestMerge) << 56
    }
}

extension Bitboard {
    /// The move table, loaded once so that a hot loop needn't go through the lazy global on every move.
    ///
    ///     let table = Bitboard.MoveTable()
    ///     for d in Direction.allCases { let outcome = table.move(board, d) }
    public struct MoveTable: Sendable {
        @usableFromInline let handle: RowTableHandle

        /// Loads the table (built on first use).
        public init() { handle = Bitboard.rowTable }

        /// The same as `board.moved(direction)`.
        @inlinable @inline(__always)
        public func move(_ board: Bitboard, _ direction: Direction) -> MoveOutcome<Bitboard> {
            board.moved(direction, table: handle)
        }
    }
}
