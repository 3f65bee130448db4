import Game2048
import Testing
@testable import Game2048Learning

struct NTupleNetworkTests {
    /// Fills every weight with a deterministic pseudo-random value.
    static func randomize(_ network: NTupleNetwork, seed: UInt64) {
        var rng = Xoshiro256StarStar(seed: seed)
        for index in 0..<network.weights.count { network.weights[index] = Float(rng.uniform(below: 2001) - 1000) / 8 }
    }

    static func randomPackedBoard(_ rng: inout Xoshiro256StarStar) -> Board {
        var board = try! Board(rows: 4, cols: 4)
        for cell in 0..<16 where rng.uniform(below: 3) > 0 { board[cell] = UInt8(rng.uniform(below: 16)) }
        return board
    }

    @Test func defaultFourByFourNetworkIsTheFourSixTupleNetwork() {
        let network = NTupleNetwork(rows: 4, cols: 4)
        #expect(network.patterns.map(\.cells) == [[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9], [0, 1, 2, 4, 5, 6], [4, 5, 6, 8, 9, 10]])
        #expect(network.valueCount == 16)
        #expect(network.symmetryCount == 8)
        #expect(network.featureCount == 32)
        #expect(network.weights.count == 4 << 24)
        #expect(network.readsBitboards)
    }

    @Test(arguments: [(2, 2), (2, 5), (3, 3), (3, 5), (5, 5), (6, 6), (8, 8), (4, 7)])
    func everySizeHasADefaultNetworkThatFits(rows: Int, cols: Int) {
        let (patterns, values) = TuplePattern.defaults(rows: rows, cols: cols)
        #expect(!patterns.isEmpty)
        #expect(values >= 6 && values <= 64)
        for pattern in patterns {
            #expect(pattern.cells.allSatisfy { $0 >= 0 && $0 < rows * cols })
            #expect(pattern.tableSize(valueCount: values) <= 1 << 24)
        }
    }

    @Test func symmetriesOfASquareAreTheEightDistinctImages() {
        // An asymmetric 3-cell shape has 8 different images on a square board, 4 on a rectangle.
        let square = Set((0..<8).map { s in [0, 1, 5].map { NTupleNetwork.image(of: $0, symmetry: s, rows: 4, cols: 4) } })
        #expect(square.count == 8)
        #expect(square.contains([3, 2, 6]))     // mirrored columns
        #expect(square.contains([12, 13, 9]))   // mirrored rows
        #expect(square.contains([0, 4, 5]))     // transposed
        let wide = Set((0..<4).map { s in [0, 1, 6].map { NTupleNetwork.image(of: $0, symmetry: s, rows: 3, cols: 5) } })
        #expect(wide == [[0, 1, 6], [4, 3, 8], [10, 11, 6], [14, 13, 8]])
    }

    @Test func featureIndexIsTheCellsExponentsInBaseValueCount() throws {
        let network = NTupleNetwork(rows: 4, cols: 4)
        let board = try Board(rows: 4, cols: 4, exponents: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0])
        let indices = network.featureIndices(of: board)
        #expect(indices.count == 32)
        // Pattern 0, identity: cells 0…5 hold 1…6, first cell = lowest digit.
        #expect(indices[0] == 1 + 2 * 16 + 3 * 256 + 4 * 4096 + 5 * 65536 + 6 * 1_048_576)
        // Pattern 1 (table 2), identity: cells 4…9 hold 5…10.
        #expect(indices[8] == (1 << 24) + 5 + 6 * 16 + 7 * 256 + 8 * 4096 + 9 * 65536 + 10 * 1_048_576)
    }

    @Test func exponentsAboveTheCapShareTheLastValue() throws {
        let network = NTupleNetwork(rows: 2, cols: 2, patterns: [TuplePattern(cells: [0])], valueCount: 4)
        let a = try Board(rows: 2, cols: 2, exponents: [3, 0, 0, 0]), b = try Board(rows: 2, cols: 2, exponents: [9, 0, 0, 0])
        #expect(network.featureIndices(of: a) == network.featureIndices(of: b))
    }

    @Test(arguments: [false, true])
    func bitboardFeaturesEqualGenericFeatures(customPatterns: Bool) {
        let patterns = customPatterns ? [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [1, 5, 9, 6])] : nil
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: patterns)
        Self.randomize(network, seed: 3)
        var rng = Xoshiro256StarStar(seed: 5)
        for _ in 0..<2_000 {
            let board = Self.randomPackedBoard(&rng)
            let packed = Bitboard(board)!
            let generic = network.featureIndices(of: board)
            var fast: [Int] = []
            network.forEachFeature(of: packed) { fast.append($0) }
            #expect(fast.sorted() == generic.sorted())
            let sum = generic.reduce(Float(0)) { $0 + network.weights[$1] }
            #expect(abs(network.value(of: packed) - sum) <= 1e-3 * max(1, abs(sum)))
        }
    }

    @Test(arguments: [false, true])
    func learnIsTheUpdateTowardTheTargetBitForBit(customPatterns: Bool) {
        // `learn` computes the default network's indices once for the read and the write; it must
        // leave the very same Float32 weights as the value-then-update it replaces in training.
        let patterns = customPatterns ? [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [1, 5, 9, 6])] : nil
        let learned = NTupleNetwork(rows: 4, cols: 4, patterns: patterns)
        let updated = NTupleNetwork(rows: 4, cols: 4, patterns: patterns)
        var rng = Xoshiro256StarStar(seed: 7)
        // The empty board and a symmetric one make every feature a twin of another.
        let symmetric = Bitboard(rawValue: 0x1221_2332_2332_1221)
        let boards = [Bitboard(rawValue: 0), symmetric] + (0..<300).map { _ in Bitboard(Self.randomPackedBoard(&rng))! }
        for board in boards {
            var indices: [Int] = []
            learned.forEachFeature(of: board) { indices.append($0) }
            for index in indices {
                let weight = Float(rng.uniform(below: 2001) - 1000) / 7
                learned.weights[index] = weight
                updated.weights[index] = weight
            }
            let target = Float(rng.uniform(below: 4001)) / 3, step: Float = 0.1 / 32
            learned.learn(board, toward: target, step: step)
            updated.update(board, by: step * (target - updated.value(of: board)))
            #expect(indices.map { learned.weights[$0].bitPattern } == indices.map { updated.weights[$0].bitPattern })
        }
    }

    @Test func updateAddsDeltaOncePerFeature() throws {
        // Features that land on the same weight (symmetric twins) add up: V' = δ · Σ count².
        let network = NTupleNetwork(rows: 3, cols: 3)
        let board = try Board(rows: 3, cols: 3, exponents: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        var counts: [Int: Int] = [:]
        for index in network.featureIndices(of: board) { counts[index, default: 0] += 1 }
        network.update(board, by: 0.5)
        #expect(network.value(of: board) == 0.5 * Float(counts.values.reduce(0) { $0 + $1 * $1 }))
    }

    /// One asymmetric 3-cell pattern: on this board its 8 images all read different digits.
    static func distinctFeatureNetwork() -> NTupleNetwork {
        NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1, 2])])
    }

    @Test func oneTDStepMatchesAHandComputation() throws {
        // V(s) = 0 everywhere; a TD(0) step toward r' + V(s'') = 4 with α = 0.1 split over
        // F features adds 0.1 / F · 4 to each of s's F weights, so V(s) becomes 0.1 · 4 = 0.4.
        let network = Self.distinctFeatureNetwork()
        let learner = TDLearner(network: network, rules: try Rules(rows: 3, cols: 3), alpha: 0.1)
        let board = try Board(rows: 3, cols: 3, exponents: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(Set(network.featureIndices(of: board)).count == network.featureCount)
        network.update(board, by: learner.step * (4 - network.value(of: board)))
        #expect(abs(network.value(of: board) - 0.4) < 1e-6)
        // A second step toward the same target closes 10 % of the remaining gap: 0.4 + 0.1 · 3.6.
        network.update(board, by: learner.step * (4 - network.value(of: board)))
        #expect(abs(network.value(of: board) - 0.76) < 1e-6)
    }

    @Test func optimisticInitializationSetsEveryWeight() {
        let network = NTupleNetwork(rows: 2, cols: 2, initialValue: 2.5)
        #expect((0..<network.weights.count).allSatisfy { network.weights[$0] == 2.5 })
    }

    @Test(arguments: [
        ("0,1,2;3,4", 3, 3, 10, nil),
        ("0,1,x", 3, 3, 10, "pattern 1: 'x' is not a cell number"),
        ("0,1,9", 3, 3, 10, "pattern 1 has cell 9, outside a 3x3 board (cells 0...8)"),
        ("0,1;2,2", 3, 3, 10, "pattern 2 repeats cell 2"),
        ("", 3, 3, 10, "patterns are empty"),
        ("0,1;", 3, 3, 10, "pattern 2 is empty"),
        ("0,1,2,3,4,5,6,7", 3, 3, 16, "pattern 1 has 8 cells: 16^8 weights is more than 2^26"),
    ] as [(String, Int, Int, Int, String?)])
    func patternSpecsParseOrFailPrecisely(spec: String, rows: Int, cols: Int, values: Int, expected: String?) {
        do {
            let patterns = try TuplePattern.parse(spec, rows: rows, cols: cols, valueCount: values)
            #expect(expected == nil)
            #expect(patterns.map(\.description).joined(separator: ";") == spec)
        } catch let thrown {
            #expect(thrown.message == expected)
        }
    }
}
