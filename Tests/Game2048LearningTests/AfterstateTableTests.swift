import Game2048
import GymSystem
import Testing
import TestSupport

@testable import Game2048Network
@testable import Game2048Search
@testable import Game2048Solver
@testable import Game2048Training

/// The afterstate table a small board's network carries, and its learner: one value per class of mirror images,
/// read by every player of the network, learned by the solver's equations, kept by the weights file.
struct AfterstateTableTests {
    /// A network of random weights on `rows` × `cols` carrying an empty table (none without `table`).
    /// Two patterns (one of them with a cell twice, as the format allows), exponents capped at 2^11.
    static func network(rows: Int, cols: Int, seed: UInt64, stages: [UInt8] = [], table: Bool = true) -> NTupleNetwork {
        let patterns = [TuplePattern(cells: [0, 1, 2, cols]), TuplePattern(cells: [rows * cols - 1, 1, 1])]
        let network = NTupleNetwork(
            rows: rows, cols: cols, patterns: patterns, valueCount: 12, stageThresholds: stages,
            afterstates: table ? AfterstateTable(rows: rows, cols: cols) : nil)
        var rng = Xoshiro256StarStar(seed: seed)
        for index in 0..<network.weights.count { network.weights[index] = Float(Int32(truncatingIfNeeded: rng.next() >> 40)) / 4096 }
        return network
    }

    static func randomBoard(rows: Int, cols: Int, largest: Int, using rng: inout Xoshiro256StarStar) -> Board {
        var board: Board
        repeat {
            board = try! Board(rows: rows, cols: cols, exponents: (0..<rows * cols).map { _ in UInt8(rng.uniform(below: largest + 1)) })
        } while board.emptyCount == rows * cols
        return board
    }

    /// A table that learns from games grows by doubling; a doubling past what the process may still map stopped
    /// it (the runtime cannot report a failed allocation), losing a run of hours. A table asks its memory check
    /// before it grows; when the doubling would not fit, it keeps the afterstates it has, refuses new ones (as past
    /// ``AfterstateTable/maxCount``), says why, and still answers every key it holds.
    @Test func aTableThatCannotDoubleKeepsWhatItHasAndRefusesNewKeys() throws {
        let table = AfterstateTable(rows: 3, cols: 3)
        let startBytes = table.memoryBytes
        // Room for one doubling (its slots, and a save of the doubled table), not two.
        let room = startBytes + 7 * (4 * startBytes / 16) / 10 * AfterstateTable.savingBytesPerAfterstate
        table.memoryCheck = { bytes in bytes <= room ? nil : .addressSpace(available: room) }
        var rng = Xoshiro256StarStar(seed: 11)
        var kept: [UInt64: Float] = [:]
        var refused = 0
        for index in 0..<20_000 {
            let board = Self.randomBoard(rows: 3, cols: 3, largest: 9, using: &rng)
            let key = table.canonical(PackedGrid.key(of: board)!)
            if table.set(canonical: key, to: Float(index)) { kept[key] = Float(index) } else { refused += 1 }
        }
        #expect(table.memoryBytes == 2 * startBytes && refused > 0 && table.count == kept.count)
        #expect(table.growthRefused == .addressSpace(available: room))
        for (key, value) in kept { #expect(table.value(ofCanonical: key) == value) }
        // A key it holds is still updated.
        let (held, _) = kept.first!
        #expect(table.set(canonical: held, to: -1) && table.value(ofCanonical: held) == -1)
    }

    @Test func aTableHoldsOneValuePerClassOfMirrorImages() throws {
        for (rows, cols) in [(2, 2), (2, 3), (3, 3), (2, 4), (4, 2)] {
            let table = AfterstateTable(rows: rows, cols: cols)
            var rng = Xoshiro256StarStar(seed: UInt64(rows * 10 + cols))
            var expected: [UInt64: Float] = [:]
            // Enough to grow the table several times.
            for index in 0..<5_000 {
                let board = Self.randomBoard(rows: rows, cols: cols, largest: 9, using: &rng)
                let key = table.canonical(try #require(PackedGrid.key(of: board)))
                table.set(canonical: key, to: Float(index))
                expected[key] = Float(index)
            }
            #expect(table.count == expected.count)
            let grid = PackedGrid(rules: try Rules(rows: rows, cols: cols))
            for (key, value) in expected.prefix(500) {
                let board = grid.board(key)
                for mirrored in OptimalSolverTests.symmetricBoards(board) { #expect(table.value(of: mirrored) == value) }
            }
            #expect(table.sortedEntries.map(\.key) == expected.keys.sorted())
            let absent = Self.randomBoard(rows: rows, cols: cols, largest: 14, using: &rng)
            #expect(expected[table.canonical(PackedGrid.key(of: absent)!)] != nil || table.value(of: absent) == nil)
        }
    }

    @Test func thePackedReaderSumsAsTheBoardReadingDoes() throws {
        for (rows, cols, stages) in [(2, 3, [UInt8]()), (3, 3, []), (2, 4, [6, 8]), (3, 2, [5])] {
            let network = Self.network(rows: rows, cols: cols, seed: UInt64(rows * cols), stages: stages)
            let reader = PackedTupleReader(network)
            var rng = Xoshiro256StarStar(seed: 7)
            for _ in 0..<3_000 {
                // Exponents past the cap too: the cap is part of the index.
                let board = Self.randomBoard(rows: rows, cols: cols, largest: 15, using: &rng)
                let key = try #require(PackedGrid.key(of: board))
                #expect(reader.value(of: key).bitPattern == CellTupleValue(network).featureSum(of: board).bitPattern)
            }
        }
    }

    @Test func aBoardInTheTableTakesItsValueEverywhereElseTheTuplesSum() throws {
        let network = Self.network(rows: 2, cols: 3, seed: 3)
        let table = try #require(network.afterstates)
        var rng = Xoshiro256StarStar(seed: 4)
        let board = Self.randomBoard(rows: 2, cols: 3, largest: 6, using: &rng)
        let sum = network.value(of: board)
        table.set(canonical: table.canonical(PackedGrid.key(of: board)!), to: 1234.5)
        for mirrored in OptimalSolverTests.symmetricBoards(board) {
            #expect(network.value(of: mirrored) == 1234.5)
            #expect(TrainedPlayer(network: network, metadata: TrainingMetadata()).value(of: mirrored) == 1234.5)
        }
        #expect(CellTupleValue(network).featureSum(of: board) == sum)
        let other = Self.randomBoard(rows: 2, cols: 3, largest: 6, using: &rng)
        if table.value(of: other) == nil { #expect(network.value(of: other) == CellTupleValue(network).featureSum(of: other)) }
    }

    /// By hand, on a 2×2 board with no weights: the afterstate 2 4 / · · after each spawn.
    /// A 2 below the 2 (chance 0.9 · ½): up or down merges the 2s, worth 4. A 4 there (0.1 · ½): no merge, 0.
    /// A 2 below the 4 (0.9 · ½): no merge, 0. A 4 there (0.1 · ½): up or down merges the 4s, worth 8.
    /// So 0.45 · 4 + 0.05 · 8 = 2.2.
    @Test func anAfterstateIsWorthItsSpawnsBestMovesOnAverage() throws {
        let rules = try Rules(rows: 2, cols: 2)
        let network = NTupleNetwork(rows: 2, cols: 2, afterstates: AfterstateTable(rows: 2, cols: 2))
        let learner = AfterstateLearner(network: network, rules: rules)
        let afterstate: UInt64 = 1 | 2 << 4
        #expect(abs(learner.expectedValue(of: afterstate) - 2.2) < 1e-6)
        // A stored value replaces the network's (zero): 2 · / · · is worth 100, so a move that makes it is worth 100 more.
        network.afterstates!.set(canonical: 1, to: 100)
        #expect(learner.bestMove(on: 1 << 12)?.worth == 100)
        let stuck: UInt64 = 1 | 2 << 4 | 2 << 8 | 1 << 12  // 2 4 / 4 2: no move left
        #expect(learner.bestMove(on: stuck) == nil)
        // The win tile ends the game: a board that holds it is worth nothing more.
        let winning = AfterstateLearner(
            network: NTupleNetwork(rows: 2, cols: 2, afterstates: AfterstateTable(rows: 2, cols: 2)),
            rules: try Rules(rows: 2, cols: 2, winTile: 8))
        #expect(winning.bestMove(on: 3 | 1 << 4) == nil)
        #expect(learner.bestMove(on: 3 | 1 << 4) != nil)
    }

    /// The learner gathers an afterstate's spawns and moves before reading their values; the oracle is the
    /// definition read one board at a time (the mean over the spawns of ``AfterstateLearner/bestMove(on:)``'s
    /// worth, 0 where no move is left), which must agree to the bit: with some boards in the table and the others
    /// the network's, with a win tile, with stages, and with no 4s.
    @Test func theGatheredExpectedValueIsTheDefinitionToTheBit() throws {
        let cases: [(rows: Int, cols: Int, winTile: Int?, four: Double, stages: [UInt8])] = [
            (2, 2, nil, 0.1, []), (2, 3, 64, 0.1, []), (3, 3, nil, 0.1, [7]), (2, 4, nil, 0, []), (3, 2, 128, 0.5, []),
        ]
        for (rows, cols, winTile, four, stages) in cases {
            let rules = try Rules(rows: rows, cols: cols, spawnFourProbability: four, winTile: winTile)
            let network = Self.network(rows: rows, cols: cols, seed: UInt64(rows * cols), stages: stages)
            let table = try #require(network.afterstates)
            let learner = AfterstateLearner(network: network, rules: rules)
            var rng = Xoshiro256StarStar(seed: UInt64(rows * 100 + cols))
            for _ in 0..<1_000 {
                let board = Self.randomBoard(rows: rows, cols: cols, largest: 7, using: &rng)
                table.set(canonical: table.canonical(PackedGrid.key(of: board)!), to: Float(rng.uniform(below: 5_000)))
            }
            var checked = 0
            while checked < 2_000 {
                let board = Self.randomBoard(rows: rows, cols: cols, largest: 7, using: &rng)
                guard board.emptyCount > 0 else { continue }
                let key = try #require(PackedGrid.key(of: board))
                let fourChance = Float(four), twoChance = 1 - fourChance
                var total: Float = 0
                for cell in 0..<rows * cols where (key >> (4 * UInt64(cell))) & 0xF == 0 {
                    if twoChance > 0 { total += twoChance * (learner.bestMove(on: key | 1 << (4 * UInt64(cell)))?.worth ?? 0) }
                    if fourChance > 0 { total += fourChance * (learner.bestMove(on: key | 2 << (4 * UInt64(cell)))?.worth ?? 0) }
                }
                let expected = total / Float(board.emptyCount)
                #expect(learner.expectedValue(of: key).bitPattern == expected.bitPattern, "\(rows)x\(cols): \(board)")
                checked += 1
            }
        }
    }
    /// Tables learned from the same network and seed are the same; the player of the learned network is the
    /// learner's greedy policy, and it is optimal on 2×2, beyond the network it started from (2×3, with more
    /// games: docs/SOLVER.md).
    @Test func theLearnedTableIsDeterministicAndPlaysNearOptimally() throws {
        let rules = try Rules(rows: 2, cols: 2)
        let solution = try OptimalSolver.solve(rules: rules)
        // As `g2048 train` does: the network first (optimistic TD), then the table over it.
        func network() -> NTupleNetwork {
            let network = NTupleNetwork(rows: 2, cols: 2, initialValue: 40, afterstates: AfterstateTable(rows: 2, cols: 2))
            let learner = TDLearner(network: network, rules: rules, alpha: 0.1)
            var rng = Xoshiro256StarStar(seed: 3)
            for _ in 0..<200 { learner.trainGame(using: &rng) }
            return network
        }
        func fraction(_ network: NTupleNetwork) throws -> Double {
            try solution.evaluate(Solution.moves(of: SearchPlayer(network: network, depth: 0), rules: rules)).fractionOfOptimal
        }
        let first = network(), second = network()
        let alone = try fraction(first)
        for network in [first, second] {
            AfterstateLearner(network: network, rules: rules).run(TrainingPlan(games: 500, seed: 9), gamesBefore: 0) { _, _ in true }
        }
        let (a, b) = (first.afterstates!.sortedEntries, second.afterstates!.sortedEntries)
        #expect(a.count > 30 && a.map { $0.key } == b.map { $0.key } && a.map { $0.value.bitPattern } == b.map { $0.value.bitPattern })
        let withTable = try fraction(first)
        #expect(withTable > 0.9999 && withTable > alone + 0.01, "the network reaches \(alone) of optimal play, with its table \(withTable)")
    }

    @Test func aWeightsFileKeepsTheTable() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.bin")
        let network = Self.network(rows: 2, cols: 3, seed: 5)
        try WeightsFile.save(network, metadata: WeightsFileTests.metadata, to: path)
        #expect(try #require(readBytes(path))[8] < 5, "a network without a table is written as before")
        let learner = AfterstateLearner(network: network, rules: try Rules(rows: 2, cols: 3))
        learner.run(TrainingPlan(games: 50, seed: 1), gamesBefore: 0) { _, _ in true }
        try WeightsFile.save(network, metadata: WeightsFileTests.metadata, to: path)
        let bytes = try #require(readBytes(path))
        #expect(bytes[8] == 5)
        #expect(bytes.count == WeightsFile.fileSize(of: network, metadata: WeightsFileTests.metadata))
        let (loaded, _) = try WeightsFile.load(from: path)
        let saved = network.afterstates!.sortedEntries
        let read = try #require(loaded.afterstates).sortedEntries
        #expect(saved.count > 100 && saved.map(\.key) == read.map(\.key) && saved.map(\.value) == read.map(\.value))
        // Saved again, the same bytes.
        try WeightsFile.save(loaded, metadata: WeightsFileTests.metadata, to: path)
        #expect(readBytes(path) == bytes)
    }

    /// A table a save never writes, with a valid checksum: each refused, naming the entry and what is wrong.
    @Test func forgedTablesAreRefusedByEntry() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("f.bin")
        let network = Self.network(rows: 2, cols: 3, seed: 6)
        let table = try #require(network.afterstates)
        for key: UInt64 in [0x21, 0x121, 0x1021] { table.set(canonical: table.canonical(key), to: 10) }
        try WeightsFile.save(network, metadata: WeightsFileTests.metadata, to: path)
        let bytes = try #require(readBytes(path))
        let tableStart = bytes.count - 8 - 3 * 12
        let keys = table.sortedEntries.map(\.key)
        func forged(entry: Int, key: UInt64? = nil, value: Float? = nil) -> [UInt8] {
            var copy = bytes
            let at = tableStart + 12 * entry
            if let key { withUnsafeBytes(of: key.littleEndian) { copy.replaceSubrange(at..<(at + 8), with: $0) } }
            if let value { withUnsafeBytes(of: value.bitPattern.littleEndian) { copy.replaceSubrange((at + 8)..<(at + 12), with: $0) } }
            return WeightsFileTests.resealed(copy)
        }
        let cases: [([UInt8], String)] = [
            (forged(entry: 1, key: keys[0]), "afterstate 1 of the table: key \(keys[0]) is not above the one before"),
            (forged(entry: 2, key: keys[1]), "afterstate 2 of the table: key \(keys[1]) is not above the one before (\(keys[1]))"),
            (forged(entry: 0, key: 0), "afterstate 0 of the table: key 0 is an empty board"),
            (forged(entry: 2, key: 0x1_000_000), "key 16777216 is a tile beyond the board's 6 cells"),
            (forged(entry: 2, key: 0xF00_000), "is a tile above the ceiling"),
            (forged(entry: 2, key: 0x100_000), "key 1048576 is not the smallest of its mirror images"),
            (forged(entry: 1, value: .nan), "afterstate 1 of the table: the value is nan"),
            (forged(entry: 1, value: 1e31), "afterstate 1 of the table: the value is 1e+31"),
        ]
        for (file, message) in cases {
            writeBytes(file, to: path)
            #expect(throws: WeightsFileError.self) { try WeightsFile.load(from: path) }
            do {
                _ = try WeightsFile.load(from: path)
            } catch {
                #expect(error.description.hasPrefix(path + ": ") && error.description.contains(message), "\(error.description)")
            }
        }
        // Cut inside the table, resealed: the header's count says how long the file is.
        writeBytes(WeightsFileTests.resealed(Array(bytes.dropLast(5))), to: path)
        #expect(throws: WeightsFileError.self) { try WeightsFile.load(from: path) }
    }
}
