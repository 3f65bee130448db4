import Testing
import Game2048
@testable import Game2048Network
import TestSupport

/// A pattern read in another cell order, and the default 4×4 network of files written when its cells were
/// listed in ascending order.
struct NTupleNetworkReindexingTests {
    /// The default 4×4 network as earlier releases listed it.
    static let ascending: [TuplePattern] = [[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9], [0, 1, 2, 4, 5, 6], [4, 5, 6, 8, 9, 10]]
        .map(TuplePattern.init)

    @Test func theAscendingRowReadsAsTheDefaultThroughTheColumnMirror() throws {
        // Mirrored columns, [0,1,2,3,4,5] is [3,2,1,0,7,6]; the default's [6,7,0,1,2,3] takes its cells from
        // positions 5, 4, 3, 2, 1, 0.
        let order = try #require(Self.ascending[0].digitOrder(as: TuplePattern(cells: [6, 7, 0, 1, 2, 3]), rows: 4, cols: 4))
        #expect(order == [5, 4, 3, 2, 1, 0])
        // The same cells in the same order need no symmetry; a transpose of a column is found too.
        #expect(TuplePattern(cells: [0, 1, 2]).digitOrder(as: TuplePattern(cells: [0, 1, 2]), rows: 4, cols: 4) == [0, 1, 2])
        #expect(TuplePattern(cells: [0, 1, 2]).digitOrder(as: TuplePattern(cells: [8, 4, 0]), rows: 4, cols: 4) == [2, 1, 0])
        #expect(TuplePattern(cells: [0, 1, 2]).digitOrder(as: TuplePattern(cells: [8, 4, 0]), rows: 3, cols: 4) == nil)
    }

    @Test func patternsWithOtherFeaturesHaveNoDigitOrder() {
        let row = TuplePattern(cells: [0, 1, 2, 3, 4, 5])
        #expect(row.digitOrder(as: TuplePattern(cells: [0, 1, 2, 4, 5, 6]), rows: 4, cols: 4) == nil)
        #expect(row.digitOrder(as: TuplePattern(cells: [0, 1, 2, 3, 4]), rows: 4, cols: 4) == nil)
        #expect(TuplePattern(cells: [0, 0, 1]).digitOrder(as: TuplePattern(cells: [0, 1, 1]), rows: 4, cols: 4) == nil)
        #expect(NTupleNetwork.digitOrders(from: Self.ascending, to: Self.ascending.reversed(), rows: 4, cols: 4) == nil)
        #expect(NTupleNetwork.digitOrders(from: Self.ascending, to: Array(Self.ascending.prefix(3)), rows: 4, cols: 4) == nil)
    }

    @Test func reindexingSwapsTheDigitsOfEveryTableInEveryStage() {
        // Pattern [0, 1] with 3 values: index d0 + 3·d1. Read as [1, 0], the weight at (d0, d1) moves to d1 + 3·d0.
        let network = NTupleNetwork(
            rows: 2, cols: 3, patterns: [TuplePattern(cells: [0, 1]), TuplePattern(cells: [2])], valueCount: 3, stageThresholds: [3])
        for i in 0..<network.weights.count { network.weights[i] = Float(i) }
        network.reindexTables([[1, 0], [0]])
        // Stage 0: table 0 is indices 0…8, table 1 indices 9…11 (unchanged: one digit).
        #expect((0..<9).map { network.weights[$0] } == [0, 3, 6, 1, 4, 7, 2, 5, 8])
        #expect((9..<12).map { network.weights[$0] } == [9, 10, 11])
        // Stage 1, the same moves 12 further on.
        #expect((12..<21).map { network.weights[$0] } == [12, 15, 18, 13, 16, 19, 14, 17, 20])
    }

    @Test func aThreeDigitRotationMovesEachWeightWhereTheGenericIndexReadsIt() throws {
        // Every weight of [0, 1, 2] (4 values) moved for [2, 0, 1]: read on any board, the old and the new
        // network give the same value.
        let old = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1, 2])], valueCount: 4)
        let new = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [2, 0, 1])], valueCount: 4)
        for i in 0..<old.weights.count {
            old.weights[i] = Float(i * 7 % 64)
            new.weights[i] = old.weights[i]
        }
        new.reindexTables(try #require(NTupleNetwork.digitOrders(from: old.patterns, to: new.patterns, rows: 3, cols: 3)))
        var rng = Xoshiro256StarStar(seed: 11)
        for _ in 0..<200 {
            var board = try Board(rows: 3, cols: 3)
            for cell in 0..<9 { board[cell] = UInt8(rng.uniform(below: 4)) }
            #expect(new.value(of: board) == old.value(of: board))
        }
    }

    /// The default 4×4 network of earlier releases reads as today's with every index's digits reversed.
    /// (Checked without a file: a 4×4 default file is 256 MiB, more than a test should allocate beside the
    /// others; the file path is the same for every board size and is checked end to end on 2×3 below.)
    @Test func theAscendingDefaultNetworkReadsAsTodaysWithItsDigitsReversed() {
        let today = TuplePattern.defaults(rows: 4, cols: 4).patterns
        #expect(!Self.ascending.elementsEqual(today))
        #expect(NTupleNetwork.digitOrders(from: Self.ascending, to: today, rows: 4, cols: 4) == Array(repeating: [5, 4, 3, 2, 1, 0], count: 4))
    }

    /// A file of the default 2×3 network (the whole board, one 6-tuple) with its pattern written as a symmetric
    /// image, in another cell order, loads as the default network and values every board as before.
    @Test func aFileOfTheDefaultNetworkInAnotherOrderLoadsAsTheDefaultWithTheSameValues() throws {
        let (defaults, valueCount) = TuplePattern.defaults(rows: 2, cols: 3)
        #expect(defaults.map(\.cells) == [[0, 1, 2, 3, 4, 5]])
        // Column-mirrored.
        let written = [[2, 1, 0, 5, 4, 3]].map(TuplePattern.init)
        let old = NTupleNetwork(rows: 2, cols: 3, patterns: written, valueCount: valueCount, stageThresholds: [5])
        var rng = Xoshiro256StarStar(seed: 12)
        for i in 0..<old.weights.count { old.weights[i] = Float(rng.uniform(below: 2001) - 1000) / 16 }
        let directory = TemporaryDirectory()
        let path = directory.file("reordered.bin")
        try WeightsFile.save(old, metadata: WeightsFileTests.metadata, to: path)
        let (loaded, metadata) = try WeightsFile.load(from: path)
        #expect(metadata == WeightsFileTests.metadata)
        #expect(loaded.patterns == defaults)
        #expect(loaded.stageThresholds == [5])
        for _ in 0..<300 {
            var board = try Board(rows: 2, cols: 3)
            // Exponents up to 7 reach both stages.
            for cell in 0..<6 where rng.uniform(below: 4) > 0 { board[cell] = UInt8(1 + rng.uniform(below: 7)) }
            let expected = old.value(of: board)
            // The sum runs over the features in another order: equal up to rounding.
            #expect(abs(loaded.value(of: board) - expected) <= 1e-3 * max(1, abs(expected)))
        }
        // Saved again, the file holds the default order and loads as it is.
        try WeightsFile.save(loaded, metadata: metadata, to: path)
        #expect(try WeightsFile.load(from: path).network.patterns == defaults)
    }
}
