import Game2048

/// An n-tuple network: a value function for 2048 boards made of lookup tables.
///
///     let network = NTupleNetwork(rows: 4, cols: 4)              // the 4 × 6-tuple network
///     let v = network.value(of: board)                           // Σ of 32 table entries
///     network.update(board, by: 0.1 * (target - v) / 32)         // one TD step
///
/// Each ``TuplePattern`` is a list of cells; the exponents found there (capped at
/// `valueCount - 1`) form an index into the pattern's table. Every pattern is read
/// in each symmetric orientation of the board (8 on a square board, 4 on a
/// rectangle), all sharing the pattern's table, and the value of a board is the
/// sum of those entries (Szubert & Jaśkowski 2014; Wu, Yeh et al. 2014).
///
/// On 4×4 boards the features come straight from the packed ``Bitboard``: the
/// eight orientations are bit permutations of the `UInt64`, and each 6-tuple
/// index is two masks and a shift. Other sizes read ``Board`` cells. Both give
/// the same features (the tests check it).
///
/// A network is a reference type: its weights are large and shared, by the
/// learner's threads and by the agents that play with it.
public final class NTupleNetwork: @unchecked Sendable {
    /// Board rows.
    public let rows: Int
    /// Board columns.
    public let cols: Int
    /// Values per cell: exponents from `valueCount - 1` up share the last value.
    public let valueCount: Int
    /// The patterns, each with its own table.
    public let patterns: [TuplePattern]
    /// The symmetries each pattern is read in: 8 on a square board, 4 otherwise.
    public let symmetryCount: Int
    /// The start of each pattern's table in ``weights``.
    public let tableOffsets: [Int]
    /// All weights, pattern after pattern.
    public let weights: WeightStorage

    /// For generic boards: the cells of every (pattern, symmetry) feature, flattened.
    @usableFromInline let featureCells: [Int]
    /// For generic boards: where each feature's cells start in `featureCells`, and its pattern.
    @usableFromInline let featureStarts: [Int]
    @usableFromInline let featurePatterns: [Int]
    /// Whether the 4×4 bitboard path applies, and whether the patterns are the default ones.
    @usableFromInline let packedLayout: PackedLayout

    @usableFromInline
    enum PackedLayout: Sendable {
        case none
        case defaultSixTuples
        case custom
    }

    /// The number of features read per board: patterns × symmetries.
    @inlinable
    public var featureCount: Int { patterns.count * symmetryCount }

    /// Creates a network with all weights at `initialValue`.
    ///
    /// - Parameters:
    ///   - patterns: the tuples; `nil` takes ``TuplePattern/defaults(rows:cols:)``.
    ///   - valueCount: values per cell; `nil` takes the default for the size. On
    ///     4×4 boards it is at most 16 (four bits a cell), elsewhere at most 256
    ///     (a cell's exponent is a byte); larger values are lowered to these.
    ///   - initialValue: the starting weight, for optimistic initialization.
    /// - Precondition: the patterns fit the board.
    public init(rows: Int, cols: Int, patterns: [TuplePattern]? = nil, valueCount: Int? = nil, initialValue: Float = 0) {
        let defaults = TuplePattern.defaults(rows: rows, cols: cols)
        self.rows = rows
        self.cols = cols
        self.patterns = patterns ?? defaults.patterns
        var values = valueCount ?? defaults.valueCount
        if rows == 4 && cols == 4 { values = min(values, 16) }
        // A cell's exponent is a byte, and the cap `valueCount - 1` must be one too.
        values = min(values, 256)
        self.valueCount = values
        symmetryCount = rows == cols ? 8 : 4
        var offsets: [Int] = []
        var total = 0
        for pattern in self.patterns {
            precondition(pattern.cells.allSatisfy { $0 >= 0 && $0 < rows * cols }, "pattern \(pattern) does not fit a \(rows)x\(cols) board")
            offsets.append(total)
            total += pattern.tableSize(valueCount: values)
        }
        tableOffsets = offsets
        weights = WeightStorage(count: total, initialValue: initialValue)
        var cells: [Int] = [], starts: [Int] = [], owners: [Int] = []
        for (index, pattern) in self.patterns.enumerated() {
            for symmetry in 0..<symmetryCount {
                starts.append(cells.count)
                owners.append(index)
                cells += pattern.cells.map { NTupleNetwork.image(of: $0, symmetry: symmetry, rows: rows, cols: cols) }
            }
        }
        starts.append(cells.count)
        featureCells = cells
        featureStarts = starts
        featurePatterns = owners
        if rows == 4 && cols == 4 && values == 16 {
            packedLayout = self.patterns == TuplePattern.defaults(rows: 4, cols: 4).patterns ? .defaultSixTuples : .custom
        } else {
            packedLayout = .none
        }
    }

    /// Where `cell` goes under symmetry `symmetry` (0 = identity): bit 0 mirrors the
    /// columns, bit 1 mirrors the rows, bit 2 (square boards only) transposes.
    public static func image(of cell: Int, symmetry: Int, rows: Int, cols: Int) -> Int {
        var r = cell / cols, c = cell % cols
        if symmetry & 1 != 0 { c = cols - 1 - c }
        if symmetry & 2 != 0 { r = rows - 1 - r }
        if symmetry & 4 != 0 { swap(&r, &c) }
        return r * cols + c
    }

    // MARK: Generic boards

    /// The weight indices of every feature of `board`, in (pattern, symmetry) order.
    ///
    /// - Complexity: O(features × tuple length).
    public func featureIndices(of board: Board) -> [Int] {
        (0..<featureCount).map { featureIndex($0, of: board) }
    }

    @inlinable
    func featureIndex(_ feature: Int, of board: Board) -> Int {
        var index = 0, scale = 1
        let cap = UInt8(valueCount - 1)
        for position in featureStarts[feature]..<featureStarts[feature + 1] {
            index += Int(min(board[featureCells[position]], cap)) * scale
            scale *= valueCount
        }
        return tableOffsets[featurePatterns[feature]] + index
    }

    /// The value of a board: the sum of its features' weights.
    ///
    /// - Complexity: O(features × tuple length); on 4×4 boards whose tiles fit four bits, O(features).
    public func value(of board: Board) -> Float {
        if packedLayout != .none, board.maxExponent <= 15, let packed = Bitboard(board) { return value(of: packed) }
        var sum: Float = 0
        for feature in 0..<featureCount { sum += weights[featureIndex(feature, of: board)] }
        return sum
    }

    /// Adds `delta` to the weight of every feature of `board` and returns the board's new value.
    public func updateAndValue(_ board: Board, by delta: Float) -> Float {
        if packedLayout != .none, board.maxExponent <= 15, let packed = Bitboard(board) { return updateAndValue(packed, by: delta) }
        update(board, by: delta)
        return value(of: board)
    }

    /// Adds `delta` to the weight of every feature of `board`.
    public func update(_ board: Board, by delta: Float) {
        if packedLayout != .none, board.maxExponent <= 15, let packed = Bitboard(board) { return update(packed, by: delta) }
        for feature in 0..<featureCount { weights.add(delta, at: featureIndex(feature, of: board)) }
    }
}
