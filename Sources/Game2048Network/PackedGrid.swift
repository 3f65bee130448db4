import Game2048
import Synchronization

/// Boards of up to 16 cells as one `UInt64` (four bits per cell, cell `i` at bits `4i`, row-major), with moves
/// read from tables made by the core's own `Board.moved`: the exact solver's representation, where billions of
/// moves are made and every board is a key in a hash table or a sorted array.
///
/// A row is a run of bits, so a left or right move is one lookup per row. An up or down move is one on the
/// transposed board (a column of this board is a row of that one), so the key is transposed, moved by rows of
/// the other length and transposed back, each step a lookup per line. The tables are built by moving each line
/// on a `Board`, so the rules (one merge per tile, from the side moved toward) are the core's and nowhere restated.
@usableFromInline
package struct PackedGrid: Sendable {
    @usableFromInline let rows: Int
    @usableFromInline let cols: Int
    /// The largest exponent a merge may make (the rules' ceiling): a move past it is illegal, as in the environment.
    @usableFromInline let largestExponent: UInt8
    /// Moves of a row of this board (`cols` cells) to the left and to the right, and of a row of the transposed
    /// board (a column, `rows` cells) up and down, by the line's value; the moved line is in the same layout.
    @usableFromInline let leftRows: [LineMove]
    @usableFromInline let rightRows: [LineMove]
    @usableFromInline let upColumns: [LineMove]
    @usableFromInline let downColumns: [LineMove]
    /// Row `r` of value `v` of this board placed in the transposed board, at `r << (4 · cols) | v`; and row `c`
    /// of the transposed board placed back, at `c << (4 · rows) | v`.
    @usableFromInline let transposing: [UInt64]
    @usableFromInline let transposingBack: [UInt64]

    @usableFromInline
    struct LineMove: Sendable {
        @usableFromInline var line: UInt16
        @usableFromInline var reward: UInt32
        @usableFromInline var highestMerge: UInt8
    }

    package init(rules: Rules) { self.init(rows: rules.rows, cols: rules.cols, largestExponent: rules.largestExponent) }

    /// The longest line a grid's move tables hold: a moved line is a `UInt16` of 4-bit cells, and a table has
    /// 16^length entries (768 KiB at 4 cells; 48 GiB at the 8 cells of a 2×8 board's rows).
    package static let longestLine = 4

    /// Whether a `rows` × `cols` board is a packed grid: 16 cells at most, and no line longer than
    /// ``longestLine``.
    package static func fits(rows: Int, cols: Int) -> Bool { rows * cols <= 16 && max(rows, cols) <= longestLine }

    /// A grid of `rows` × `cols` cells whose merges may make tiles up to `largestExponent`.
    package init(rows: Int, cols: Int, largestExponent: UInt8) {
        precondition(
            PackedGrid.fits(rows: rows, cols: cols) && largestExponent <= 15,
            "a packed grid holds 16 cells of exponents to 15, in lines of at most \(PackedGrid.longestLine), got \(rows)x\(cols)")
        self.rows = rows
        self.cols = cols
        self.largestExponent = largestExponent
        let tables = PackedGrid.tables(rows: rows, cols: cols)
        (leftRows, rightRows, upColumns, downColumns) = (tables.leftRows, tables.rightRows, tables.upColumns, tables.downColumns)
        (transposing, transposingBack) = (tables.transposing, tables.transposingBack)
    }

    /// The move tables of a `rows` × `cols` grid.
    struct Tables: Sendable {
        let leftRows, rightRows, upColumns, downColumns: [LineMove]
        let transposing, transposingBack: [UInt64]
    }

    /// The tables made so far, by `rows << 8 | cols`: made once per process and shared (arrays are copied on write
    /// only), since a 4-cell line's take a tenth of a second and a player of a network makes a grid per batch of
    /// boards the exact evaluation asks it.
    private static let madeTables = Mutex<[Int: Tables]>([:])

    /// The tables of a `rows` × `cols` grid, made on the first call for the size.
    static func tables(rows: Int, cols: Int) -> Tables {
        madeTables.withLock { made in
            if let tables = made[rows << 8 | cols] { return tables }
            let tables = Tables(
                leftRows: lineTable(length: cols, reversed: false), rightRows: lineTable(length: cols, reversed: true),
                upColumns: lineTable(length: rows, reversed: false), downColumns: lineTable(length: rows, reversed: true),
                transposing: transposeTable(rows: rows, cols: cols), transposingBack: transposeTable(rows: cols, cols: rows))
            made[rows << 8 | cols] = tables
            return tables
        }
    }

    /// Every line of `length` cells moved towards its first cell (towards its last, `reversed`), through
    /// `Board.moved(.left)`.
    static func lineTable(length: Int, reversed: Bool) -> [LineMove] {
        let count = 1 << (4 * length)
        var table = [LineMove](repeating: LineMove(line: 0, reward: 0, highestMerge: 0), count: count)
        for value in 0..<count {
            var exponents = (0..<length).map { UInt8((value >> (4 * $0)) & 0xF) }
            if reversed { exponents.reverse() }
            // A 2-row board with the line on top: its left move is the line's.
            let board = try! Board(rows: 2, cols: max(2, length), exponents: exponents + [UInt8](repeating: 0, count: max(2, length) * 2 - length))
            let outcome = board.moved(.left)
            var movedExponents = (0..<length).map { outcome.afterstate[$0] }
            if reversed { movedExponents.reverse() }
            // A merge of two 2^15 makes 2^16, which is past every ceiling: the move is illegal, its line unused.
            let moved = movedExponents.enumerated().reduce(0) { $0 | Int($1.element & 0xF) << (4 * $1.offset) }
            table[value] = LineMove(line: UInt16(moved), reward: UInt32(outcome.reward), highestMerge: outcome.highestMerge)
        }
        return table
    }

    /// For a `rows` × `cols` board: each row's cells, by the row's index and value, at their places in the
    /// transposed (`cols` × `rows`) board.
    static func transposeTable(rows: Int, cols: Int) -> [UInt64] {
        var table: [UInt64] = []
        table.reserveCapacity(rows << (4 * cols))
        for row in 0..<rows {
            for value in 0..<(1 << (4 * cols)) {
                table.append(
                    (0..<cols).reduce(UInt64(0)) { key, col in key | UInt64((value >> (4 * col)) & 0xF) << (4 * UInt64(col * rows + row)) })
            }
        }
        return table
    }

    /// `key`'s rows of `length` cells, transposed by `table` (``transposing`` or ``transposingBack``).
    @inlinable @inline(__always)
    static func transposed(_ key: UInt64, lines: Int, length: Int, by table: [UInt64]) -> UInt64 {
        let bits = 4 * UInt64(length), mask: UInt64 = (1 << bits) - 1
        var result: UInt64 = 0
        for line in 0..<lines { result |= table[line << Int(bits) | Int((key >> (UInt64(line) * bits)) & mask)] }
        return result
    }

    /// Each row of `length` cells of `key` moved by `table`: the moved key, the reward, the largest merge.
    @inlinable @inline(__always)
    static func movedLines(_ key: UInt64, lines: Int, length: Int, by table: [LineMove]) -> (UInt64, UInt32, UInt8) {
        let bits = 4 * UInt64(length), mask: UInt64 = (1 << bits) - 1
        var result: UInt64 = 0
        var reward: UInt32 = 0
        var highest: UInt8 = 0
        for line in 0..<lines {
            let moved = table[Int((key >> (UInt64(line) * bits)) & mask)]
            result |= UInt64(moved.line) << (UInt64(line) * bits)
            reward &+= moved.reward
            highest = max(highest, moved.highestMerge)
        }
        return (result, reward, highest)
    }

    /// What `direction` does to `key`: the afterstate, the reward, and whether the move is legal (it changes the
    /// board and merges no tile past the ceiling).
    @inlinable @inline(__always)
    package func move(_ key: UInt64, _ direction: Direction) -> (afterstate: UInt64, reward: UInt32, legal: Bool) {
        let result: UInt64, reward: UInt32, highest: UInt8
        switch direction {
        case .left: (result, reward, highest) = PackedGrid.movedLines(key, lines: rows, length: cols, by: leftRows)
        case .right: (result, reward, highest) = PackedGrid.movedLines(key, lines: rows, length: cols, by: rightRows)
        case .up, .down:
            let transposed = PackedGrid.transposed(key, lines: rows, length: cols, by: transposing)
            let moved: UInt64
            (moved, reward, highest) = PackedGrid.movedLines(
                transposed, lines: cols, length: rows, by: direction == .up ? upColumns : downColumns)
            result = PackedGrid.transposed(moved, lines: cols, length: rows, by: transposingBack)
        }
        return (result, reward, result != key && highest <= largestExponent)
    }

    /// The tiles' sum in units of 2 (a 2 counts 1, a 4 counts 2): unchanged by a move, grown by 1 or 2 by a
    /// spawn, so it numbers the solver's layers.
    package static func age(_ key: UInt64) -> Int {
        var sum = 0
        var rest = key
        while rest != 0 {
            let exponent = Int(rest & 0xF)
            if exponent > 0 { sum += 1 << (exponent - 1) }
            rest >>= 4
        }
        return sum
    }

    /// The exponent of the largest tile of `key` (0 for an empty board).
    @inlinable @inline(__always)
    package static func highestExponent(_ key: UInt64) -> UInt8 {
        var highest: UInt64 = 0
        var rest = key
        while rest != 0 {
            highest = max(highest, rest & 0xF)
            rest >>= 4
        }
        return UInt8(highest)
    }

    /// The empty cells of `key`, a board of `cells` cells.
    @inlinable @inline(__always)
    package static func emptyCount(_ key: UInt64, cells: Int) -> Int {
        (0..<cells).reduce(0) { $0 + ((key >> (4 * UInt64($1))) & 0xF == 0 ? 1 : 0) }
    }

    /// Every spawn on `key`, a board of `cells` cells, cell by cell: a 2 (`weight` 1 − p, one age older) and a 4
    /// (`weight` p, two ages older), the spawn of probability 0 left out. The chance of a spawn is its weight over
    /// the returned number of empty cells (the cell is drawn uniformly).
    @inlinable @inline(__always) @discardableResult
    package static func forEachSpawn(
        on key: UInt64, cells: Int, fourProbability p: Double, _ body: (_ state: UInt64, _ ageStep: Int, _ weight: Double) -> Void
    ) -> Int {
        var empty = 0
        for cell in 0..<cells where (key >> (4 * UInt64(cell))) & 0xF == 0 {
            empty += 1
            if p < 1 { body(key | 1 << (4 * UInt64(cell)), 1, 1 - p) }
            if p > 0 { body(key | 2 << (4 * UInt64(cell)), 2, p) }
        }
        return empty
    }

    /// The key of `board` (its exponents, four bits each), or `nil` when a tile is above 15.
    package static func key(of board: Board) -> UInt64? {
        var key: UInt64 = 0
        for (cell, exponent) in board.exponents.enumerated() {
            guard exponent <= 15 else { return nil }
            key |= UInt64(exponent) << (4 * UInt64(cell))
        }
        return key
    }

    /// The board of `key`.
    package func board(_ key: UInt64) -> Board {
        try! Board(rows: rows, cols: cols, exponents: (0..<rows * cols).map { UInt8((key >> (4 * UInt64($0))) & 0xF) })
    }
}
