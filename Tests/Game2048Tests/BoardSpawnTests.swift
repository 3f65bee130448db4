import Testing
@testable import Game2048

struct BoardSpawnTests {
    @Test(arguments: [0.0, 0.1, 0.5, 1.0])
    func spawnDrawsTheValueThenTheKthEmptyCell(probability: Double) {
        let threshold = bernoulliThreshold(probability: probability)
        var rng = Xoshiro256StarStar(seed: 50)
        var boards = Xoshiro256StarStar(seed: 51)
        var failures: [String] = []
        for size in allSizes {
            for _ in 0..<60 {
                let before = variedBoard(rows: size.rows, cols: size.cols, using: &boards)
                var replay = rng
                let expected = Reference.spawn(on: before, fourThreshold: threshold, using: &replay)
                var after = before
                let spawn = after.spawnRandomTile(fourThreshold: threshold, using: &rng)
                var expectedBoard = before
                if let expected { expectedBoard[expected.cell] = expected.exponent }
                if spawn != expected || after != expectedBoard || rng != replay {
                    failures.append("\(size) \(before.exponents): \(String(describing: spawn)) vs \(String(describing: expected))")
                }
                if let spawn, before[spawn.cell] != 0 || !(1...2).contains(spawn.exponent) {
                    failures.append("\(size) \(before.exponents): spawn on \(spawn)")
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test func spawnOnFullBoardReturnsNilAndDrawsNothing() throws {
        var b = try Board(rows: 3, cols: 3, exponents: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let before = b
        var rng = Xoshiro256StarStar(seed: 52)
        let untouched = rng
        #expect(b.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &rng) == nil)
        #expect(rng == untouched)
        #expect(b == before)
    }

    @Test func spawnFillsTheOnlyEmptyCell() throws {
        var b = try Board(rows: 8, cols: 8, exponents: Array(repeating: 3, count: 63) + [0])
        var rng = Xoshiro256StarStar(seed: 53)
        let spawn = try #require(b.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &rng))
        #expect(spawn.cell == 63)
        #expect(b.emptyCount == 0)
    }

    @Test(arguments: [(0.1, 0.08...0.12), (0.5, 0.47...0.53), (0.9, 0.88...0.92)])
    func fourAppearsWithTheConfiguredFrequency(probability: Double, bounds: ClosedRange<Double>) throws {
        let threshold = bernoulliThreshold(probability: probability)
        var rng = Xoshiro256StarStar(seed: 54)
        let empty = try Board(rows: 4, cols: 4)
        var fours = 0
        let trials = 20_000
        for _ in 0..<trials {
            var b = empty
            if try #require(b.spawnRandomTile(fourThreshold: threshold, using: &rng)).exponent == 2 { fours += 1 }
        }
        #expect(bounds.contains(Double(fours) / Double(trials)))
    }

    @Test(arguments: [(0.0, UInt8(1)), (1.0, UInt8(2))])
    func certainProbabilitiesAlwaysGiveTheSameTile(probability: Double, exponent: UInt8) throws {
        let threshold = bernoulliThreshold(probability: probability)
        var rng = Xoshiro256StarStar(seed: 55)
        for _ in 0..<5_000 {
            var b = try Board(rows: 2, cols: 2)
            #expect(b.spawnRandomTile(fourThreshold: threshold, using: &rng)?.exponent == exponent)
        }
    }

    @Test func spawnCellIsRoughlyUniformOverEmptyCells() throws {
        // Three empty cells (1, 2, 3); each should get about a third of 30 000 spawns.
        let b = try Board(rows: 2, cols: 2, exponents: [5, 0, 0, 0])
        var rng = Xoshiro256StarStar(seed: 56)
        var counts = [0, 0, 0, 0]
        for _ in 0..<30_000 {
            var copy = b
            counts[try #require(copy.spawnRandomTile(fourThreshold: 0, using: &rng)).cell] += 1
        }
        #expect(counts[0] == 0)
        for cell in 1...3 { #expect((9_500...10_500).contains(counts[cell]), "cell \(cell): \(counts[cell])") }
    }

    @Test(arguments: [0.0, 0.1, 0.25, 1.0])
    func chanceOutcomesListEveryEmptyCellWithItsProbability(p: Double) throws {
        let b = try Board(rows: 2, cols: 3, values: [2, 0, 4, 0, 0, 8])
        let outcomes = b.chanceOutcomes(spawnFourProbability: p)
        var expected: [ChanceOutcome] = []
        for cell in [1, 3, 4] {
            if p < 1 { expected.append(ChanceOutcome(spawn: Spawn(cell: cell, exponent: 1), probability: (1 - p) / 3)) }
            if p > 0 { expected.append(ChanceOutcome(spawn: Spawn(cell: cell, exponent: 2), probability: p / 3)) }
        }
        #expect(outcomes == expected)
        #expect(abs(outcomes.reduce(0) { $0 + $1.probability } - 1) < 1e-12)
    }

    @Test func chanceOutcomesSumToOneOnRandomBoards() {
        var rng = Xoshiro256StarStar(seed: 57)
        for size in allSizes {
            let b = randomBoard(rows: size.rows, cols: size.cols, emptyShare: 0.5, using: &rng)
            let outcomes = b.chanceOutcomes(spawnFourProbability: 0.1)
            if b.emptyCount == 0 {
                #expect(outcomes.isEmpty)
                continue
            }
            #expect(outcomes.count == 2 * b.emptyCount)
            #expect(abs(outcomes.reduce(0) { $0 + $1.probability } - 1) < 1e-12)
            #expect(outcomes.allSatisfy { b[$0.spawn.cell] == 0 })
        }
    }

    @Test func chanceOutcomesOfFullBoardAreEmpty() throws {
        #expect(try Board(rows: 2, cols: 2, exponents: [1, 2, 3, 4]).chanceOutcomes(spawnFourProbability: 0.1).isEmpty)
    }

    @Test func emptyCellsAndCellOfEmptyAgreeWithANaiveScan() {
        var rng = Xoshiro256StarStar(seed: 58)
        var failures: [String] = []
        for size in allSizes {
            for _ in 0..<40 {
                let b = variedBoard(rows: size.rows, cols: size.cols, using: &rng)
                let naive = b.exponents.indices.filter { b.exponents[$0] == 0 }
                if b.emptyCells != naive { failures.append("emptyCells \(size) \(b.exponents)") }
                for (k, cell) in naive.enumerated() where b.withCells({ Board.cellOfEmpty(k, cells: $0, cellCount: b.cellCount) }) != cell {
                    failures.append("cellOfEmpty \(size) \(b.exponents) k=\(k)")
                }
            }
        }
        expectNoFailures(failures)
    }
}
