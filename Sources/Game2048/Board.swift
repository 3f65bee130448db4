/// A 2048 board of `rows × cols` cells, each holding a tile exponent.
///
///     var board = try Board(rows: 2, cols: 3, values: [2, 2, 0,
///                                                      0, 4, 8])
///     board[row: 0, col: 0]   // 1 (the tile 2 = 2^1)
///     board.values            // [2, 2, 0, 0, 4, 8]
///
/// Cells are numbered row-major: cell `i` is row `i / cols`, column `i % cols`.
/// A cell holds an exponent `k` for the tile `2^k`, with 0 for an empty cell
/// (so 11 is the 2048 tile), the encoding pgx uses:
///
///     values        exponents
///     2 . 4 .       1 0 2 0
///     . 8 . .   →   0 3 0 0
///
/// `Board` is a value type with inline storage for up to 8 × 8 cells, so
/// copying one never allocates. The cells past `rows * cols` are always zero,
/// which lets equality and hashing look at the storage as a whole.
@frozen
public struct Board: Sendable {
    /// The largest number of cells a board can have (8 × 8).
    public static let capacity = 64

    @usableFromInline var storage: InlineArray<64, UInt8>
    @usableFromInline let rowCount: UInt8
    @usableFromInline let colCount: UInt8

    /// Creates an empty board.
    ///
    /// - Throws: ``RulesError/rows(_:)`` or ``RulesError/cols(_:)`` when a size is outside 2...8.
    public init(rows: Int, cols: Int) throws(RulesError) {
        guard Rules.sizeRange.contains(rows) else { throw .rows(rows) }
        guard Rules.sizeRange.contains(cols) else { throw .cols(cols) }
        self.init(unchecked: rows, cols)
    }

    /// Creates an empty board of the size the rules give.
    public init(rules: Rules) {
        self.init(unchecked: rules.rows, rules.cols)
    }

    /// Creates a board from row-major exponents (0 = empty, `k` = tile 2^k).
    ///
    ///     try Board(rows: 2, cols: 2, exponents: [1, 0, 0, 11])   // a 2 and a 2048
    ///
    /// - Throws: ``RulesError`` when the size is out of range, the count isn't
    ///   `rows * cols`, or an exponent exceeds ``Rules/maxExponent``.
    public init(rows: Int, cols: Int, exponents: [UInt8]) throws(RulesError) {
        try self.init(rows: rows, cols: cols)
        guard exponents.count == rows * cols else { throw .boardShape(expected: rows * cols, got: exponents.count) }
        for (cell, exponent) in exponents.enumerated() {
            guard exponent <= Rules.maxExponent else { throw .tileExponent(Int(exponent), cell: cell) }
            storage[cell] = exponent
        }
    }

    /// Creates a board from row-major tile values (0 = empty, otherwise 2, 4, 8, …).
    ///
    ///     try Board(rows: 2, cols: 2, values: [2, 0, 0, 2048])
    ///
    /// - Throws: ``RulesError`` when the size is out of range, the count isn't
    ///   `rows * cols`, or a value is not 0 or a power of two from 2 to 2^50.
    public init(rows: Int, cols: Int, values: [Int]) throws(RulesError) {
        try self.init(rows: rows, cols: cols)
        guard values.count == rows * cols else { throw .boardShape(expected: rows * cols, got: values.count) }
        for (cell, value) in values.enumerated() where value != 0 {
            let exponent = value.trailingZeroBitCount
            guard value > 1, value.nonzeroBitCount == 1, exponent <= Rules.maxExponent else {
                throw .tileValue(value, cell: cell)
            }
            storage[cell] = UInt8(exponent)
        }
    }

    @inlinable
    init(unchecked rows: Int, _ cols: Int) {
        storage = InlineArray(repeating: 0)
        rowCount = UInt8(truncatingIfNeeded: rows)
        colCount = UInt8(truncatingIfNeeded: cols)
    }

    /// Number of rows.
    @inlinable @inline(__always)
    public var rows: Int { Int(rowCount) }

    /// Number of columns.
    @inlinable @inline(__always)
    public var cols: Int { Int(colCount) }

    /// Number of cells, `rows * cols`.
    @inlinable @inline(__always)
    public var cellCount: Int { Int(rowCount) * Int(colCount) }

    /// The exponent in a cell, by row-major index (0 = empty).
    ///
    /// - Precondition: `0 <= cell < cellCount`; a value set must be at most ``Rules/maxExponent``.
    @inlinable
    public subscript(cell: Int) -> UInt8 {
        @inline(__always) get {
            precondition(cell >= 0 && cell < cellCount, "cell \(cell) out of range for a \(rows)x\(cols) board")
            return storage[cell]
        }
        set {
            precondition(cell >= 0 && cell < cellCount, "cell \(cell) out of range for a \(rows)x\(cols) board")
            precondition(newValue <= Rules.maxExponent, "exponent \(newValue) above \(Rules.maxExponent)")
            storage[cell] = newValue
        }
    }

    /// The exponent at a row and column (0 = empty).
    ///
    /// - Precondition: the row and column are inside the board.
    @inlinable
    public subscript(row row: Int, col col: Int) -> UInt8 {
        get {
            precondition(row >= 0 && row < rows && col >= 0 && col < cols, "(\(row), \(col)) outside a \(rows)x\(cols) board")
            return storage[row * cols + col]
        }
        set {
            precondition(row >= 0 && row < rows && col >= 0 && col < cols, "(\(row), \(col)) outside a \(rows)x\(cols) board")
            self[row * cols + col] = newValue
        }
    }

    /// The exponents in row-major order.
    public var exponents: [UInt8] { (0..<cellCount).map { storage[$0] } }

    /// The tile values in row-major order (0 for an empty cell).
    public var values: [Int] { (0..<cellCount).map { Board.value(ofExponent: storage[$0]) } }

    /// The tile value of an exponent: 0 for 0, otherwise `2^exponent`.
    @inlinable @inline(__always)
    public static func value(ofExponent exponent: UInt8) -> Int {
        exponent == 0 ? 0 : 1 << Int(exponent)
    }

    /// Number of empty cells.
    ///
    /// - Complexity: O(`cellCount`).
    @inlinable
    public var emptyCount: Int {
        var count = 0
        for index in 0..<((cellCount &+ 7) >> 3) {
            count &+= Board.zeroByteCount(loadCells(from: index &* 8))
        }
        return count
    }

    /// The largest exponent on the board (0 when empty).
    ///
    /// - Complexity: O(`cellCount`).
    @inlinable
    public var maxExponent: UInt8 {
        let cells = storage.span
        var best: UInt8 = 0
        for cell in 0..<cellCount { best = max(best, cells[unchecked: cell]) }
        return best
    }

    /// The largest tile value on the board (0 when empty).
    @inlinable
    public var maxTile: Int { Board.value(ofExponent: maxExponent) }

    /// The sum of all tile values. Moves conserve it; each spawn adds 2 or 4.
    public var tileSum: Int {
        (0..<cellCount).reduce(0) { $0 + Board.value(ofExponent: storage[$1]) }
    }
}

// Word-at-a-time access: eight cells per 64-bit load, byte k of a
// little-endian word being cell 8 · index + k.
extension Board {
    /// The eight cells starting at cell `8 * index`, or 0 past the storage.
    @inlinable @inline(__always)
    func loadWord(_ index: Int) -> UInt64 {
        guard index < 8 else { return 0 }
        return withCells { loadCellWord($0, index &* 8) }
    }

    /// A word whose first `bytes` bytes (clamped to 0...8) are 0xFF and the rest 0.
    @inlinable @inline(__always)
    static func prefixMask(bytes: Int) -> UInt64 {
        let n = UInt64(truncatingIfNeeded: min(max(bytes, 0), 8))
        return n == 8 ? ~0 : (1 &<< (8 &* n)) &- 1
    }

    /// The word of cells starting at cell `first`, with the bytes past the
    /// board's last cell set to 1 so that they never count as empty.
    @inlinable @inline(__always)
    func loadCells(from first: Int) -> UInt64 {
        loadWord(first >> 3) | (~Board.prefixMask(bytes: cellCount &- first) & 0x0101_0101_0101_0101)
    }

    /// The number of zero bytes in a word whose bytes are at most 0x7F.
    @inlinable @inline(__always)
    static func zeroByteCount(_ word: UInt64) -> Int {
        let zero = ~(word &+ 0x7F7F_7F7F_7F7F_7F7F) & 0x8080_8080_8080_8080
        return Int(truncatingIfNeeded: ((zero >> 7) &* 0x0101_0101_0101_0101) >> 56)
    }
}

extension Board: Hashable {
    /// Two boards are equal when they have the same size and the same tiles.
    @inlinable
    public static func == (lhs: Board, rhs: Board) -> Bool {
        guard lhs.rowCount == rhs.rowCount, lhs.colCount == rhs.colCount else { return false }
        // Cells past cellCount are always zero, so whole words can be compared.
        let a = lhs.storage.span.bytes, b = rhs.storage.span.bytes
        for word in 0..<8
        where a.unsafeLoadUnaligned(fromByteOffset: 8 &* word, as: UInt64.self)
            != b.unsafeLoadUnaligned(fromByteOffset: 8 &* word, as: UInt64.self)
        {
            return false
        }
        return true
    }

    /// Hashes the size and the tiles.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rowCount)
        hasher.combine(colCount)
        for cell in 0..<cellCount { hasher.combine(storage[cell]) }
    }
}
