import Game2048
import Synchronization

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
/// On 4×4 boards the features come straight from the packed `Bitboard`: the
/// eight orientations are bit permutations of the `UInt64`, and each 6-tuple
/// index is two masks and a shift. Other sizes read `Board` cells. Both give
/// the same features (the tests check it).
///
/// A network may be split into stages at tile thresholds (a multi-stage network,
/// Yeh et al. 2016; Jaśkowski 2018): with thresholds 16 384 and 32 768 it holds
/// three full sets of tables, and a board reads the set of its stage, the number
/// of thresholds its largest tile has reached. See ``promote(toStage:)``, and ``StageBoards``
/// for later stages that read their boards downgraded.
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
    /// All weights, pattern after pattern, stage after stage.
    public let weights: WeightStorage
    /// The stage thresholds, as tile exponents in ascending order (`[14, 15]` for 16 384 and 32 768); empty for one stage.
    public let stageThresholds: [UInt8]
    /// The number of stages: one more than the thresholds.
    public let stageCount: Int
    /// The weights of one stage: every pattern's table once.
    public let stageSize: Int
    /// The stage of every largest exponent 0…15, a nibble each (stages are fewer than 16), so that
    /// ``stage(maxExponent:)`` needs no loop over ``stageThresholds`` for a 4×4 bitboard.
    @usableFromInline let packedStages: UInt64
    /// How the stages past the first read their boards.
    public let stageBoards: StageBoards
    /// The exponent from which a board's features are read downgraded: the first stage threshold when
    /// ``stageBoards`` is ``StageBoards/downgraded``, else 0 (never).
    @usableFromInline package let featureDowngradeLimit: UInt8
    /// Whether each stage from 1 on has been promoted (copied from the one before), behind a lock.
    let promotedStages: Mutex<[Bool]>

    /// For generic boards: the cells of every (pattern, symmetry) feature, flattened.
    @usableFromInline let featureCells: [Int]
    /// For generic boards: where each feature's cells start in `featureCells`, and its pattern.
    @usableFromInline let featureStarts: [Int]
    @usableFromInline let featurePatterns: [Int]
    /// For 4×4 bitboards with custom patterns: every pattern's cells as runs of consecutive cells
    /// (``PackedRun``), flattened, and where each pattern's runs start. A bitboard holds cell `c` in bits
    /// `4c…4c+3`, so a run of cells listed in ascending order is one shift and one mask of the board: the
    /// 8 × 6-tuple network's patterns take two runs each on average instead of six cells.
    @usableFromInline let packedRuns: [PackedRun]
    @usableFromInline let packedRunStarts: [Int]

    /// Consecutive cells of a pattern, `cells[k…k+n-1] == c…c+n-1`: their index digits are
    /// `(board >> source) & mask`, placed at `destination`.
    @usableFromInline
    struct PackedRun: Sendable {
        /// `4 × c`.
        @usableFromInline let source: UInt64
        /// `n` nibbles.
        @usableFromInline let mask: UInt64
        /// `4 × k`.
        @usableFromInline let destination: Int

        /// The runs of a pattern's cells, in its order.
        static func runs(of cells: [Int]) -> [PackedRun] {
            // No cells, no runs: index 0, a table of one weight, as the generic board reads it.
            guard !cells.isEmpty else { return [] }
            var runs: [PackedRun] = []
            var first = 0
            for k in 1...cells.count where k == cells.count || cells[k] != cells[k - 1] + 1 {
                let length = k - first
                runs.append(
                    PackedRun(
                        source: UInt64(4 * cells[first]), mask: length >= 16 ? ~0 : (1 << (4 * UInt64(length))) - 1,
                        destination: 4 * first))
                first = k
            }
            return runs
        }
    }
    /// How this network's boards are read: the ``ValueFunction`` its hot loops are specialized for.
    @usableFromInline package let reading: Reading
    /// Values learned for single afterstates, which replace the tuples' sum for the boards they hold: a small
    /// board's network trained further by `AfterstateLearner` (`g2048 train --table-share`); `nil` for most.
    ///
    /// Every way of reading the network's value of a board (greedy play, search, the C ABI's players, the exact
    /// evaluation) reads it, so a player of the network is the player of both.
    public private(set) var afterstates: AfterstateTable?

    /// The three ``ValueFunction``s, chosen once when a network is made: the entry points of training,
    /// greedy play and search switch over this once per game or decision and run code specialized for
    /// the case.
    @usableFromInline
    package enum Reading: Sendable {
        /// ``DefaultTupleValue``: the default 4×4 patterns, 16 values a cell.
        case defaultTuples
        /// ``PackedRunValue``: other 4×4 patterns, 16 values a cell.
        case packedRuns
        /// ``CellTupleValue``: every other network.
        case cells
    }

    /// The number of features read per board: patterns × symmetries.
    @inlinable
    public var featureCount: Int { patterns.count * symmetryCount }

    /// The features a network of `patterns` patterns reads on a `rows`×`cols` board: one per pattern and symmetry.
    public static func featureCount(patterns: Int, rows: Int, cols: Int) -> Int { patterns * (rows == cols ? 8 : 4) }

    /// The values per cell a network made with `valueCount` has (see ``init(rows:cols:patterns:valueCount:initialValue:stageThresholds:stageBoards:promoted:afterstates:)``).
    static func valueCount(_ valueCount: Int?, rows: Int, cols: Int) -> Int {
        let values = valueCount ?? TuplePattern.defaults(rows: rows, cols: cols).valueCount
        // Four bits a cell on 4×4; elsewhere a cell's exponent is a byte, and the cap `valueCount - 1` must be one too.
        return min(values, rows == 4 && cols == 4 ? 16 : 256)
    }

    /// The weights a new network of these arguments holds: what a caller sizes its memory by first, since an
    /// allocation past the process's limit would stop it.
    public static func weightCount(rows: Int, cols: Int, patterns: [TuplePattern]? = nil, valueCount: Int? = nil, stages: Int = 1) -> Int {
        let values = NTupleNetwork.valueCount(valueCount, rows: rows, cols: cols)
        return (patterns ?? TuplePattern.defaults(rows: rows, cols: cols).patterns).reduce(0) { $0 + $1.tableSize(valueCount: values) } * stages
    }

    /// The memory `count` weights take, aligned as they are mapped.
    public static func memoryBytes(weights count: Int) -> Int { WeightStorage.addressSpace(holding: count) }

    /// Creates a network with all weights at `initialValue`.
    ///
    /// - Parameters:
    ///   - rows: the board's rows.
    ///   - cols: the board's columns.
    ///   - patterns: the tuples; `nil` takes ``TuplePattern/defaults(rows:cols:)``.
    ///   - valueCount: values per cell; `nil` takes the default for the size. On
    ///     4×4 boards it is at most 16 (four bits a cell), elsewhere at most 256
    ///     (a cell's exponent is a byte); larger values are lowered to these.
    ///   - initialValue: the starting weight, for optimistic initialization.
    ///   - stageThresholds: tile exponents where a new stage starts, ascending, each
    ///     from 2 to `Rules.maxExponent` (15 on 4×4); empty (the default) for one stage.
    ///   - stageBoards: how the stages past the first read their boards (``StageBoards``).
    ///   - promoted: for each stage from 1 on, whether it was promoted already (a loaded file's); `nil` for none.
    ///   - afterstates: a table of afterstate values for the network to carry (see ``afterstates``), or `nil`.
    /// - Precondition: the patterns fit the board; the thresholds are valid; downgraded stage boards have stages;
    ///   a table is for the board's size.
    public init(
        rows: Int, cols: Int, patterns: [TuplePattern]? = nil, valueCount: Int? = nil, initialValue: Float = 0,
        stageThresholds: [UInt8] = [], stageBoards: StageBoards = .plain, promoted: [Bool]? = nil, afterstates: AfterstateTable? = nil
    ) {
        precondition(afterstates.map { $0.rows == rows && $0.cols == cols } ?? true, "the afterstate table is for another board size")
        self.afterstates = afterstates
        let defaults = TuplePattern.defaults(rows: rows, cols: cols)
        self.rows = rows
        self.cols = cols
        self.patterns = patterns ?? defaults.patterns
        let values = NTupleNetwork.valueCount(valueCount, rows: rows, cols: cols)
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
        precondition(NTupleNetwork.stageProblem(stageThresholds, rows: rows, cols: cols) == nil, "invalid stage thresholds \(stageThresholds)")
        self.stageThresholds = stageThresholds
        stageCount = stageThresholds.count + 1
        packedStages = (0..<16).reduce(0) { table, exponent in
            table | UInt64(stageThresholds.count { UInt8(exponent) >= $0 }) << (4 * UInt64(exponent))
        }
        stageSize = total
        precondition(stageBoards == .plain || !stageThresholds.isEmpty, "downgraded stage boards need stages")
        self.stageBoards = stageBoards
        featureDowngradeLimit = stageBoards == .downgraded ? stageThresholds[0] : 0
        let flags = promoted ?? Array(repeating: false, count: stageThresholds.count)
        precondition(flags.count == stageThresholds.count, "one promoted flag per stage after the first")
        promotedStages = Mutex(flags)
        weights = WeightStorage(count: total * stageCount, initialValue: initialValue)
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
        let runs = self.patterns.map { PackedRun.runs(of: $0.cells) }
        packedRuns = runs.flatMap { $0 }
        packedRunStarts = runs.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        if rows == 4 && cols == 4 && values == 16 {
            reading = self.patterns == TuplePattern.defaults(rows: 4, cols: 4).patterns ? .defaultTuples : .packedRuns
        } else {
            reading = .cells
        }
    }

    /// Gives the network an empty afterstate table (a network-only file resumed by `g2048 train`, whose run learns
    /// one), before the network is shared with another thread.
    ///
    /// - Precondition: the network has none, and its board may have one (``AfterstateTable/fits(rows:cols:)``).
    public func attachAfterstateTable() {
        precondition(afterstates == nil, "the network has an afterstate table already")
        afterstates = AfterstateTable(rows: rows, cols: cols)
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

    /// The weight indices of every feature of `board`, in (pattern, symmetry) order, within one
    /// stage's tables (add `stage × stageSize` for a staged network's other stages); read off the board
    /// downgraded when its stage reads it so (``StageBoards/downgraded``).
    ///
    /// - Complexity: O(features × tuple length).
    public func featureIndices(of board: Board) -> [Int] {
        let board = featureBoard(board)
        return (0..<featureCount).map { featureIndex($0, of: board) }
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

    /// `board` packed, when this network reads packed boards and its tiles fit four bits.
    @inlinable
    func packed(_ board: Board) -> Bitboard? {
        reading != .cells && board.maxExponent <= 15 ? Bitboard(board) : nil
    }

    /// The value of a board: the sum of its features' weights.
    ///
    /// - Complexity: O(features × tuple length); on 4×4 boards whose tiles fit four bits, O(features).
    public func value(of board: Board) -> Float {
        if let packed = packed(board) { return value(of: packed) }
        return CellTupleValue(self).value(of: board)
    }

    /// Adds `delta` to the weight of every feature of `board` and returns the board's new value.
    public func updateAndValue(_ board: Board, by delta: Float) -> Float {
        if let packed = packed(board) { return updateAndValue(packed, by: delta) }
        return CellTupleValue(self).updateAndValue(board, by: delta)
    }

    /// Adds `delta` to the weight of every feature of `board`.
    public func update(_ board: Board, by delta: Float) {
        if let packed = packed(board) { return update(packed, by: delta) }
        CellTupleValue(self).update(board, by: delta)
    }

    /// Calls `body` with the weight index of every feature of `board`, its stage's offset included.
    func forEachFeature(of board: Board, _ body: (Int) -> Void) {
        if let packed = packed(board) { return forEachFeature(of: packed, body) }
        let offset = stageOffset(of: board)
        CellTupleValue(self).forEachFeature(of: board) { body(offset + $0) }
    }

    // MARK: Stages

    /// Why `thresholds` cannot split a network for a `rows`×`cols` board, or `nil`: they must
    /// ascend strictly, each from 2 (the tile 4) to `Rules.maxExponent`, at most 15 (32 768)
    /// on 4×4 boards, and there may be at most ``maxStages`` − 1 of them.
    public static func stageProblem(_ thresholds: [UInt8], rows: Int, cols: Int) -> String? {
        guard thresholds.count < maxStages else { return "\(thresholds.count) stage thresholds; at most \(maxStages - 1)" }
        let highest: UInt8 = rows == 4 && cols == 4 ? 15 : Rules.maxExponent
        for (index, exponent) in thresholds.enumerated() {
            guard (2...highest).contains(exponent) else {
                return "stage threshold 2^\(exponent) must be from 2^2 (the tile 4) to 2^\(highest) on a \(rows)x\(cols) board"
            }
            if index > 0 && exponent <= thresholds[index - 1] { return "stage thresholds must ascend: 2^\(exponent) after 2^\(thresholds[index - 1])" }
        }
        return nil
    }

    /// The most stages a network may have.
    public static let maxStages = 8

    /// The stage of a board whose largest tile has exponent `maxExponent`: the number of thresholds at or below it.
    ///
    /// Up to exponent 15 (every 4×4 bitboard) it is a nibble of a table made at creation, one shift and one mask.
    @inlinable @inline(__always)
    public func stage(maxExponent: UInt8) -> Int {
        if maxExponent < 16 { return Int(truncatingIfNeeded: (packedStages >> (UInt64(maxExponent) &<< 2)) & 0xF) }
        var stage = 0
        for threshold in stageThresholds where maxExponent >= threshold { stage += 1 }
        return stage
    }

    /// The board whose features are read for `board`: itself, or with ``StageBoards/downgraded`` stages and a
    /// tile at the first threshold or above, its downgraded form (the stage is still `board`'s).
    ///
    /// One load and a compare for a network without it; the downgrade itself only on the boards of a later stage.
    @inlinable @inline(__always)
    func featureBoard(_ board: Bitboard) -> Bitboard {
        guard featureDowngradeLimit != 0, TileDowngrade.holds(board.rawValue, atLeast: featureDowngradeLimit) else { return board }
        return TileDowngrade.downgraded(board, from: featureDowngradeLimit)
    }

    /// ``featureBoard(_:)-(Bitboard)`` on a generic board.
    @inlinable @inline(__always)
    func featureBoard(_ board: Board) -> Board {
        guard featureDowngradeLimit != 0, board.maxExponent >= featureDowngradeLimit else { return board }
        return TileDowngrade.downgraded(board, from: featureDowngradeLimit)
    }

    /// Where the tables of `board`'s stage start in ``weights``: 0 without stages, and
    /// then the board's largest tile is not even looked at.
    @inlinable @inline(__always)
    func stageOffset(of board: some GameBoard) -> Int {
        stageCount == 1 ? 0 : stage(maxExponent: board.maxExponent) &* stageSize
    }

    /// Whether each stage from 1 on has been promoted.
    public var promoted: [Bool] { promotedStages.withLock { $0 } }

    /// Weight promotion (Jaśkowski 2018): the first time a game enters `stage`, its tables
    /// start as a copy of the stage before (and so on down, for a stage skipped).
    ///
    /// Done once per stage, under a lock, so two threads never copy the same stage; a
    /// thread of another game reading the stage during the copy ("Hogwild!") may see
    /// part old, part new weights, which costs a little learning, never memory safety.
    /// Returns whether anything was copied.
    @discardableResult
    public func promote(toStage stage: Int) -> Bool {
        guard stage > 0 && stage < stageCount else { return false }
        return promotedStages.withLock { flags -> Bool in
            var copied = false
            for target in 1...stage where !flags[target - 1] {
                weights.copy(count: stageSize, from: (target - 1) * stageSize, to: target * stageSize)
                flags[target - 1] = true
                copied = true
            }
            return copied
        }
    }
}
