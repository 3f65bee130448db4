import Game2048

/// The cells of one n-tuple, as row-major indices on a board.
///
///     let pattern = TuplePattern(cells: [0, 1, 2, 3, 4, 5])   // the first row and a half of a 4×4 board
///
/// A pattern's weights are shared by all its images under the board's symmetries
/// (8 on a square board, 4 on a rectangular one), so one table learns from every
/// orientation of the same local shape (Szubert & Jaśkowski 2014).
public struct TuplePattern: Hashable, Sendable, CustomStringConvertible {
    /// The cells, in the order their exponents form the table index (first cell = lowest digit).
    public var cells: [Int]

    /// Creates a pattern.
    public init(cells: [Int]) { self.cells = cells }

    /// The cells joined by commas, the form `--patterns` takes.
    public var description: String { cells.map(String.init).joined(separator: ",") }
}

/// Why a pattern specification was refused.
public struct PatternError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason, e.g. "pattern 2 has cell 16, outside a 4x4 board (cells 0...15)".
    public var message: String
    public var description: String { message }
}

extension TuplePattern {
    /// Parses `"0,1,2,3,4,5;4,5,6,7,8,9"`: patterns separated by `;`, cells by `,`.
    ///
    /// - Throws: ``PatternError`` for an empty spec, a non-number, a cell outside the
    ///   board, a repeated cell, or a tuple whose table would be too large.
    public static func parse(_ text: String, rows: Int, cols: Int, valueCount: Int) throws(PatternError) -> [TuplePattern] {
        let groups = text.split(separator: ";", omittingEmptySubsequences: false)
        guard !text.isEmpty else { throw PatternError(message: "patterns are empty") }
        var patterns: [TuplePattern] = []
        for (index, group) in groups.enumerated() {
            guard !group.trimmingSpaces.isEmpty else { throw PatternError(message: "pattern \(index + 1) is empty") }
            var cells: [Int] = []
            for item in group.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = item.trimmingSpaces
                guard let cell = Int(trimmed) else {
                    throw PatternError(message: "pattern \(index + 1): '\(trimmed)' is not a cell number")
                }
                guard cell >= 0 && cell < rows * cols else {
                    throw PatternError(message: "pattern \(index + 1) has cell \(cell), outside a \(rows)x\(cols) board (cells 0...\(rows * cols - 1))")
                }
                guard !cells.contains(cell) else { throw PatternError(message: "pattern \(index + 1) repeats cell \(cell)") }
                cells.append(cell)
            }
            try validate(TuplePattern(cells: cells), number: index + 1, valueCount: valueCount)
            patterns.append(TuplePattern(cells: cells))
        }
        return patterns
    }

    /// The largest table a tuple may have: 2^26 weights (256 MiB of Float32).
    public static let maxTableSize = 1 << 26

    static func validate(_ pattern: TuplePattern, number: Int, valueCount: Int) throws(PatternError) {
        guard !pattern.cells.isEmpty else { throw PatternError(message: "pattern \(number) is empty") }
        var size = 1
        for _ in pattern.cells {
            size *= valueCount
            guard size <= maxTableSize else {
                throw PatternError(
                    message: "pattern \(number) has \(pattern.cells.count) cells: \(valueCount)^\(pattern.cells.count) weights is more than 2^26")
            }
        }
    }

    /// The cell counts of the small boards (2×4, 3×3 and their like) whose default network is one 7-tuple,
    /// and whose training defaults are their own (`g2048 train`): chosen by exact measurement against
    /// the solved boards (docs/SOLVER.md).
    public static let smallBoardCells = 7...9

    /// The default network for a board size, with its per-cell value cap.
    ///
    /// - 4×4: the 4 × 6-tuple network of Wu, Yeh et al. (2014), with 16 values per cell
    ///   (empty, 2 … 32 768): cells `[6,7,0,1,2,3]`, `[10,11,4,5,6,7]`, `[5,6,7,1,2,3]`,
    ///   `[9,10,11,5,6,7]`, the column mirrors of `{0,1,2,3,4,5}`, `{4,5,6,7,8,9}`,
    ///   `{0,1,2,4,5,6}`, `{4,5,6,8,9,10}` (the same features: the network reads every
    ///   symmetry). The order of the cells is the order of a feature index's digits, first
    ///   cell lowest, and this one puts the cells near the board's middle, whose tiles change
    ///   from move to move, in the low digits, and the corners and edges, where the large
    ///   tiles stay, in the high ones: the weights a game reads then share cache lines and
    ///   pages. Training runs about 17 % faster than with the cells in ascending order.
    /// - Boards of 7 to 9 cells (2×4, 4×2, 3×3): one 7-tuple, the first seven cells in row-major
    ///   order (on 3×3 the top two rows and a corner), with one value per reachable exponent (10 or
    ///   11 values, 10 to 20 million weights). Measured against the exact solution, smaller tuples
    ///   stop learning at half of optimal play there (docs/SOLVER.md); this one keeps learning.
    /// - Other boards with a side of 2: every row and column segment of up to 4 cells
    ///   anchored at the corner (the whole board on 2×2 and 2×3), 8 to 10 values.
    /// - Other sizes: straight 4-tuples along the first two rows and columns and
    ///   2×2 squares at the corner and beside it (both orientations come from the
    ///   symmetries), with one value per reachable exponent, capped so a table stays
    ///   within 2^24 weights.
    public static func defaults(rows: Int, cols: Int) -> (patterns: [TuplePattern], valueCount: Int) {
        if rows == 4 && cols == 4 {
            return ([[6, 7, 0, 1, 2, 3], [10, 11, 4, 5, 6, 7], [5, 6, 7, 1, 2, 3], [9, 10, 11, 5, 6, 7]].map(TuplePattern.init), 16)
        }
        let cell = { (r: Int, c: Int) in r * cols + c }
        // The largest exponent the board can reach, plus empty, bounded so 4-tuples stay within 2^24 weights.
        let reachable = rows * cols + 2
        if smallBoardCells.contains(rows * cols) { return ([TuplePattern(cells: Array(0..<7))], reachable) }
        if min(rows, cols) == 2 {
            let valueCount = min(reachable, 20)
            if rows * cols <= 6 {
                return ([TuplePattern(cells: Array(0..<(rows * cols)))], valueCount)
            }
            let length = min(4, max(rows, cols))
            let line = rows >= cols ? (0..<length).map { cell($0, 0) } : (0..<length).map { cell(0, $0) }
            let square = [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1)]
            let second = rows >= cols ? (0..<length).map { cell($0, 1) } : (0..<length).map { cell(1, $0) }
            return ([line, second, square].map(TuplePattern.init), valueCount)
        }
        let valueCount = min(reachable, 64)
        let length = min(4, cols), height = min(4, rows)
        var patterns = [
            (0..<length).map { cell(0, $0) },
            (0..<length).map { cell(1, $0) },
            (0..<height).map { cell($0, 0) },
            (0..<height).map { cell($0, 1) },
            [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1)],
            [cell(1, 1), cell(1, 2), cell(2, 1), cell(2, 2)],
        ]
        if rows == cols { patterns.removeSubrange(2...3) }  // columns are rotations of rows
        return (patterns.map(TuplePattern.init), valueCount)
    }

    /// The names of the 4×4 networks ``named(_:)`` knows, for `--network`.
    public static let networkNames = ["4x6", "5x6", "8x6"]

    /// A named 4×4 network of 6-tuples, or `nil` for an unknown name.
    ///
    /// - `4x6`: the default, four 6-tuples (Wu, Yeh et al. 2014), 256 MiB.
    /// - `8x6`: the eight 6-tuples of Matsuzaki (2016, "Systematic selection of n-tuple networks with
    ///   consideration of interinfluence for game 2048"), the larger network of the OTD and OTD+TC papers
    ///   (Guei et al. 2021, 2022): cells {0,1,2,4,5,6}, {4,5,6,7,8,9}, {0,1,2,3,4,5}, {2,3,4,5,6,9},
    ///   {0,1,2,5,9,10}, {3,4,5,6,7,8}, {1,3,4,5,6,7}, {0,1,4,8,9,10}; 512 MiB.
    /// - `5x6`: the first five of those, 320 MiB.
    public static func named(_ name: String) -> [TuplePattern]? {
        let matsuzaki: [[Int]] = [
            [0, 1, 2, 4, 5, 6], [4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 9],
            [0, 1, 2, 5, 9, 10], [3, 4, 5, 6, 7, 8], [1, 3, 4, 5, 6, 7], [0, 1, 4, 8, 9, 10],
        ]
        switch name {
        case "4x6": return defaults(rows: 4, cols: 4).patterns
        case "5x6": return matsuzaki.prefix(5).map(TuplePattern.init)
        case "8x6": return matsuzaki.map(TuplePattern.init)
        default: return nil
        }
    }

    /// The table size of a pattern with `valueCount` values per cell.
    public func tableSize(valueCount: Int) -> Int {
        cells.reduce(1) { size, _ in size * valueCount }
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }
}
