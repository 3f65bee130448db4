/// The symmetries of a board that keep its shape, on ``PackedGrid`` keys: the solver stores one board of each
/// class of symmetric boards (its *canonical* form, the smallest key of the class), since the game treats them
/// alike (a move on a mirrored board is the mirrored move; a spawn is on a uniformly drawn cell).
///
/// A square board has eight (the four rotations, each mirrored or not), any other four (itself, the left-right
/// and the top-bottom mirror, the half turn). ``identity(rows:cols:)`` keeps every board as it is: the solver's choice for a
/// policy that need not treat mirrored boards alike.
@usableFromInline
package struct PackedSymmetry: Sendable {
    @usableFromInline let rows: Int
    @usableFromInline let cols: Int
    /// Whether boards are reduced at all (``identity(rows:cols:)`` does not).
    @usableFromInline let reduces: Bool
    /// Bits of a row, and their mask.
    @usableFromInline let rowBits: UInt64
    @usableFromInline let rowMask: UInt64
    /// A row's value read right to left, by its value (16^cols entries).
    @usableFromInline let mirroredRow: [UInt16]
    /// On a square board, row `r` of value `v` placed as column `r` of the transposed board: entry
    /// `r << (4 · cols) | v` (``PackedGrid/transposeTable(rows:cols:)``). Empty on other boards.
    @usableFromInline let transposedRow: [UInt64]

    /// The symmetries of a `rows` × `cols` board.
    package init(rows: Int, cols: Int) {
        self.init(rows: rows, cols: cols, reduces: true)
    }

    private init(rows: Int, cols: Int, reduces: Bool) {
        self.rows = rows
        self.cols = cols
        self.reduces = reduces
        rowBits = 4 * UInt64(cols)
        rowMask = (1 << rowBits) - 1
        let values = reduces ? 1 << (4 * cols) : 0
        mirroredRow = (0..<values).map { value in
            (0..<cols).reduce(UInt16(0)) { row, index in row | UInt16((value >> (4 * index)) & 0xF) << (4 * (cols - 1 - index)) }
        }
        // The moves' own transposition table: the same layout, for a square board.
        transposedRow = reduces && rows == cols ? PackedGrid.transposeTable(rows: rows, cols: cols) : []
    }

    /// No reduction: every board is its own canonical form.
    package static func identity(rows: Int, cols: Int) -> PackedSymmetry { PackedSymmetry(rows: rows, cols: cols, reduces: false) }

    /// How many boards a class holds at most (8 on a square board, 4 on another, 1 for ``identity(rows:cols:)``).
    package var order: Int { reduces ? (rows == cols ? 8 : 4) : 1 }

    /// The smallest key among `key`'s symmetric boards.
    @inlinable @inline(__always)
    package func canonical(_ key: UInt64) -> UInt64 {
        guard reduces else { return key }
        var best = smallestOfMirrors(key)
        if !transposedRow.isEmpty { best = min(best, smallestOfMirrors(transposed(key))) }
        return best
    }

    /// The smallest of `key`, its left-right mirror, its top-bottom mirror and its half turn.
    @inlinable @inline(__always)
    func smallestOfMirrors(_ key: UInt64) -> UInt64 {
        var mirrored: UInt64 = 0
        var flipped: UInt64 = 0
        var flippedMirrored: UInt64 = 0
        for row in 0..<rows {
            let shift = UInt64(row) * rowBits
            let otherShift = UInt64(rows - 1 - row) * rowBits
            let value = (key >> shift) & rowMask
            let reversed = UInt64(mirroredRow[Int(value)])
            mirrored |= reversed << shift
            flipped |= value << otherShift
            flippedMirrored |= reversed << otherShift
        }
        return min(min(key, mirrored), min(flipped, flippedMirrored))
    }

    /// `key` mirrored about its main diagonal (square boards).
    @inlinable @inline(__always)
    func transposed(_ key: UInt64) -> UInt64 { PackedGrid.transposed(key, lines: rows, length: cols, by: transposedRow) }
}
