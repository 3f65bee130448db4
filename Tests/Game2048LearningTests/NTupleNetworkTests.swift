import Game2048
import Testing
@testable import Game2048Network
@testable import Game2048Training

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
        #expect(network.patterns.map(\.cells) == [[6, 7, 0, 1, 2, 3], [10, 11, 4, 5, 6, 7], [5, 6, 7, 1, 2, 3], [9, 10, 11, 5, 6, 7]])
        // The paper's tuples, {0,1,2,3,4,5}, {4,5,6,7,8,9}, {0,1,2,4,5,6}, {4,5,6,8,9,10}: each
        // pattern's cells are one of their symmetric images, so the network reads the same features.
        let paper: [Set<Int>] = [[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9], [0, 1, 2, 4, 5, 6], [4, 5, 6, 8, 9, 10]]
        for (pattern, tuple) in zip(network.patterns, paper) {
            let images = (0..<8).map { s in Set(pattern.cells.map { NTupleNetwork.image(of: $0, symmetry: s, rows: 4, cols: 4) }) }
            #expect(images.contains(tuple))
        }
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
            #expect(pattern.tableSize(valueCount: values) <= TuplePattern.maxTableSize)
        }
    }

    @Test func symmetriesOfASquareAreTheEightDistinctImages() {
        // An asymmetric 3-cell shape has 8 different images on a square board, 4 on a rectangle.
        let square = Set((0..<8).map { s in [0, 1, 5].map { NTupleNetwork.image(of: $0, symmetry: s, rows: 4, cols: 4) } })
        #expect(square.count == 8)
        #expect(square.contains([3, 2, 6]))  // mirrored columns
        #expect(square.contains([12, 13, 9]))  // mirrored rows
        #expect(square.contains([0, 4, 5]))  // transposed
        let wide = Set((0..<4).map { s in [0, 1, 6].map { NTupleNetwork.image(of: $0, symmetry: s, rows: 3, cols: 5) } })
        #expect(wide == [[0, 1, 6], [4, 3, 8], [10, 11, 6], [14, 13, 8]])
    }

    @Test func featureIndexIsTheCellsExponentsInBaseValueCount() throws {
        let network = NTupleNetwork(rows: 4, cols: 4)
        let board = try Board(rows: 4, cols: 4, exponents: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0])
        let indices = network.featureIndices(of: board)
        #expect(indices.count == 32)
        // Pattern 0, identity: cells 6, 7, 0, 1, 2, 3 hold 7, 8, 1, 2, 3, 4, first cell = lowest digit.
        #expect(indices[0] == 7 + 8 * 16 + 1 * 256 + 2 * 4096 + 3 * 65536 + 4 * 1_048_576)
        // Pattern 1 (table 2), identity: cells 10, 11, 4, 5, 6, 7 hold 11, 12, 5, 6, 7, 8.
        #expect(indices[8] == (1 << 24) + 11 + 12 * 16 + 5 * 256 + 6 * 4096 + 7 * 65536 + 8 * 1_048_576)
    }

    @Test func exponentsAboveTheCapShareTheLastValue() throws {
        let network = NTupleNetwork(rows: 2, cols: 2, patterns: [TuplePattern(cells: [0])], valueCount: 4)
        let a = try Board(rows: 2, cols: 2, exponents: [3, 0, 0, 0]), b = try Board(rows: 2, cols: 2, exponents: [9, 0, 0, 0])
        #expect(network.featureIndices(of: a) == network.featureIndices(of: b))
    }

    /// The packed path reads the features the generic one does: the default network, small custom tuples, and 8x6.
    @Test(arguments: ["default", "custom", "8x6"])
    func bitboardFeaturesEqualGenericFeatures(patternSet: String) {
        let patterns =
            patternSet == "custom"
            // Runs of consecutive cells, cells alone, a run across rows, and cells in descending order.
            ? [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [1, 5, 9, 6]), TuplePattern(cells: [7, 6, 3, 4, 5])]
            : TuplePattern.named(patternSet)
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: patterns)
        var rng = Xoshiro256StarStar(seed: 5)
        for _ in 0..<2_000 {
            let board = Self.randomPackedBoard(&rng)
            let packed = Bitboard(board)!
            let generic = network.featureIndices(of: board)
            var fast: [Int] = []
            network.forEachFeature(of: packed) { fast.append($0) }
            #expect(fast.sorted() == generic.sorted())
            // Weights where this board reads them, so the value sums something.
            for index in generic { network.weights[index] = Float(rng.uniform(below: 2001) - 1000) / 8 }
            let sum = generic.reduce(Float(0)) { $0 + network.weights[$1] }
            #expect(abs(network.value(of: packed) - sum) <= 1e-3 * max(1, abs(sum)))
        }
    }

    /// A custom pattern's index on the packed board is a shift and a mask per run of consecutive cells.
    @Test func packedRunsByHand() {
        func runs(_ cells: [Int]) -> [[Int]] {
            NTupleNetwork.PackedRun.runs(of: cells).map { [Int($0.source), $0.mask == ~0 ? -1 : Int($0.mask), $0.destination] }
        }
        #expect(runs([0, 1, 2, 3, 4, 5]) == [[0, 0xFF_FFFF, 0]])
        #expect(runs([6, 7, 0, 1, 2, 3]) == [[24, 0xFF, 0], [0, 0xFFFF, 8]])
        #expect(runs([7, 6, 3, 4, 5]) == [[28, 0xF, 0], [24, 0xF, 4], [12, 0xFFF, 8]])
        #expect(runs([9]) == [[36, 0xF, 0]])
        #expect(runs([]) == [])
        // A pattern of no cells (the library allows one: a single weight) reads on the packed board as on the generic one.
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: [TuplePattern(cells: []), TuplePattern(cells: [3, 2])])
        var rng = Xoshiro256StarStar(seed: 9)
        for _ in 0..<50 {
            let board = Self.randomPackedBoard(&rng)
            var fast: [Int] = []
            network.forEachFeature(of: Bitboard(board)!) { fast.append($0) }
            #expect(fast.sorted() == network.featureIndices(of: board).sorted())
        }
        #expect(runs(Array(0..<16)) == [[0, -1, 0]])
        // The 8 × 6-tuple network: 15 runs for its 48 cells.
        #expect((TuplePattern.named("8x6") ?? []).reduce(0) { $0 + NTupleNetwork.PackedRun.runs(of: $1.cells).count } == 15)
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

    @Test func namedNetworksAreTheirPapersCells() throws {
        #expect(TuplePattern.named("4x6") == TuplePattern.defaults(rows: 4, cols: 4).patterns)
        let eight = try #require(TuplePattern.named("8x6"))
        #expect(eight.count == 8 && eight.allSatisfy { $0.cells.count == 6 && Set($0.cells).count == 6 && $0.cells.allSatisfy { (0..<16).contains($0) } })
        #expect(eight[7].cells == [0, 1, 4, 8, 9, 10] && Set(eight).count == 8)
        #expect(TuplePattern.named("5x6") == Array(eight.prefix(5)))
        #expect(TuplePattern.named("9x6") == nil)
        for name in TuplePattern.networkNames { #expect(TuplePattern.named(name) != nil) }
        #expect(NTupleNetwork(rows: 4, cols: 4, patterns: TuplePattern.named("4x6")).reading == .defaultTuples)
        #expect(NTupleNetwork(rows: 4, cols: 4, patterns: eight).reading == .packedRuns)
    }

    @Test(
        arguments: [
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

    // MARK: Stages

    /// A board of `rows`×`cols` with the tile of exponent `largest` in the last cell and 2s elsewhere.
    static func board(rows: Int, cols: Int, largest: UInt8) throws -> Board {
        var board = try Board(rows: rows, cols: cols)
        for cell in 0..<(rows * cols - 1) { board[cell] = 1 }
        board[rows * cols - 1] = largest
        return board
    }

    /// Stage 0's weights 1, stage 1's 10, stage 2's 100: a board's value says which stage it read.
    @Test(arguments: [(4, 14 as UInt8, 15 as UInt8), (3, 4, 6)])
    func aBoardReadsTheTablesOfItsLargestTilesStage(size: Int, first: UInt8, second: UInt8) throws {
        let network = NTupleNetwork(rows: size, cols: size, patterns: [TuplePattern(cells: [0, 1])], stageThresholds: [first, second])
        #expect(network.stageCount == 3 && network.weights.count == 3 * network.stageSize)
        for stage in 0..<3 {
            for index in 0..<network.stageSize { network.weights[stage * network.stageSize + index] = [1, 10, 100][stage] }
        }
        let features = Float(network.featureCount)
        let cases: [(UInt8, Float)] = [(first - 1, 1), (first, 10), (second - 1, 10), (second, 100)]
        for (largest, weight) in cases {
            let board = try Self.board(rows: size, cols: size, largest: largest)
            #expect(network.stage(maxExponent: largest) == (weight == 1 ? 0 : weight == 10 ? 1 : 2))
            #expect(network.value(of: board) == features * weight, "largest 2^\(largest)")
            if let packed = Bitboard(board) { #expect(network.value(of: packed) == features * weight) }
        }
        // An update touches its own stage's tables only.
        let stageOne = try Self.board(rows: size, cols: size, largest: first)
        // Twins share weights, so some move more than once: at least 1 each.
        #expect(network.updateAndValue(stageOne, by: 1) >= features * 11)
        #expect(network.value(of: try Self.board(rows: size, cols: size, largest: first - 1)) == features)
        #expect(network.value(of: try Self.board(rows: size, cols: size, largest: second)) == features * 100)
    }

    /// Promotion copies the stage before, in order, once; a later call copies nothing.
    @Test func promotionCopiesThePreviousStageOnce() {
        let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1])], stageThresholds: [3, 5])
        let size = network.stageSize
        for index in 0..<size { network.weights[index] = Float(index) }
        #expect(network.promoted == [false, false])
        #expect(network.promote(toStage: 2))
        #expect(network.promoted == [true, true])
        #expect((0..<size).allSatisfy { network.weights[size + $0] == Float($0) && network.weights[2 * size + $0] == Float($0) })
        network.weights[0] = -7
        #expect(!network.promote(toStage: 1) && !network.promote(toStage: 2) && !network.promote(toStage: 0))
        #expect(network.weights[size] == 0 && network.weights[2 * size] == 0)
    }

    /// A learner's game that reaches a stage promotes it; one thread gives the same weights every time.
    @Test func trainingPromotesTheStagesItReachesDeterministically() throws {
        func trained() throws -> NTupleNetwork {
            let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1, 2])], stageThresholds: [4, 7])
            let learner = TDLearner(network: network, rules: try Rules(rows: 3, cols: 3))
            var rng = Xoshiro256StarStar(seed: 3)
            for _ in 0..<50 { learner.trainGame(using: &rng) }
            return network
        }
        let first = try trained(), second = try trained()
        #expect(first.promoted == [true, true])
        let weights = { (network: NTupleNetwork) in network.weights.values }
        #expect(weights(first) == weights(second))
        // Stage 2 learned after its copy: it is neither zero nor stage 1.
        let size = first.stageSize
        #expect((0..<size).contains { first.weights[2 * size + $0] != first.weights[size + $0] })
    }

    @Test(
        arguments: [
            ([14, 15], 4, nil),
            ([15, 16], 4, "stage threshold 2^16 must be from 2^2 (the tile 4) to 2^15 on a 4x4 board"),
            ([1], 3, "stage threshold 2^1 must be from 2^2 (the tile 4) to 2^50 on a 3x3 board"),
            ([5, 5], 3, "stage thresholds must ascend: 2^5 after 2^5"),
            ([2, 3, 4, 5, 6, 7, 8, 9], 5, "8 stage thresholds; at most 7"),
        ] as [([UInt8], Int, String?)])
    func stageThresholdsAreChecked(thresholds: [UInt8], size: Int, problem: String?) {
        #expect(NTupleNetwork.stageProblem(thresholds, rows: size, cols: size) == problem)
    }
}
