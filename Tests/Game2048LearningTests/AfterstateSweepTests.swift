import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Search
@testable import Game2048Solver
@testable import Game2048Training

/// The table's sweep: every afterstate a game reaches, with the solver's value, so that the network's greedy player
/// is the optimal player; a stopped sweep keeps exactly its oldest layers.
struct AfterstateSweepTests {
    /// A network of random weights carrying a table, over which no sweep can lean on the tuples: where the table
    /// misses a board, the player follows noise.
    static func network(_ rules: Rules, seed: UInt64) -> NTupleNetwork {
        AfterstateTableTests.network(rows: rules.rows, cols: rules.cols, seed: seed)
    }

    /// Rules that change what is reachable or what it is worth: the board, the chance of a 4, the starting tiles,
    /// a win tile.
    static let rulesCases: [Rules] = [
        try! Rules(rows: 2, cols: 2), try! Rules(rows: 2, cols: 3), try! Rules(rows: 3, cols: 2),
        try! Rules(rows: 2, cols: 3, spawnFourProbability: 0.5), try! Rules(rows: 2, cols: 3, initialTiles: 1),
        try! Rules(rows: 2, cols: 3, winTile: 64), try! Rules(rows: 2, cols: 2, spawnFourProbability: 0),
    ]

    @Test(arguments: rulesCases)
    func theSweptTableHoldsEverySolvedValue(rules: Rules) throws {
        let solution = try OptimalSolver.solve(rules: rules)
        let network = Self.network(rules, seed: 1)
        let table = try #require(network.afterstates)
        let outcome = AfterstateSweep.run(table: table, rules: rules, threads: 2, stop: TrainingStop())
        #expect(outcome == AfterstateSweep.Outcome(afterstates: solution.afterstateCount, complete: true))
        let expected = solution.layers.flatMap { zip($0.keys, $0.values).map { (key: $0, value: Float($1)) } }.sorted { $0.key < $1.key }
        let entries = table.sortedEntries
        #expect(entries.map(\.key) == expected.map(\.key))
        #expect(entries.map(\.value.bitPattern) == expected.map(\.value.bitPattern))
    }

    /// The network's greedy player, asked on every board it reaches: not one move short of optimal.
    @Test(arguments: rulesCases)
    func theSweptNetworksGreedyPlayerIsOptimal(rules: Rules) throws {
        let solution = try OptimalSolver.solve(rules: rules)
        let network = Self.network(rules, seed: 2)
        let before = try solution.evaluate(Solution.moves(of: SearchPlayer(network: network, depth: 0), rules: rules))
        AfterstateSweep.run(table: network.afterstates!, rules: rules, threads: 1, stop: TrainingStop())
        let after = try solution.evaluate(Solution.moves(of: SearchPlayer(network: network, depth: 0), rules: rules))
        #expect(before.fractionOfOptimal < 0.95, "the random network alone plays at \(before.fractionOfOptimal)")
        #expect(after.fractionOfOptimal > 1 - 1e-6 && after.suboptimalStates == 0, "\(after)")
    }

    /// Values learned from games before are replaced, and the tuples are not touched.
    @Test func aSweepReplacesWhatGamesTaughtTheTable() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let network = Self.network(rules, seed: 3)
        let weights = network.weights.bitPatterns
        let learner = AfterstateLearner(network: network, rules: rules)
        learner.run(TrainingPlan(games: 30, seed: 4), gamesBefore: 0) { _, _ in true }
        let learned = learner.table.sortedEntries
        AfterstateSweep.run(table: learner.table, rules: rules, threads: 1, stop: TrainingStop())
        let solution = try OptimalSolver.solve(rules: rules)
        let changed = learned.filter { learner.table.value(ofCanonical: $0.key) != $0.value }
        #expect(learned.count > 100 && changed.count > learned.count / 2)
        for entry in learned { #expect(learner.table.value(ofCanonical: entry.key) == Float(solution.afterstateValue(ofKey: entry.key)!)) }
        #expect(network.weights.bitPatterns == weights)
    }

    /// Stopped after `n` layers of the backward pass, the table holds the afterstates of the oldest ages, each with
    /// its exact value, and none of the younger ones; stopped while the boards are enumerated, it holds what it held.
    @Test func aStoppedSweepKeepsItsOldestLayers() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let ages = solution.layerSizes.count
        for layers in [1, 40, ages - 1] {
            let table = AfterstateTable(rows: 2, cols: 3)
            let stop = TrainingStop()
            let outcome = AfterstateSweep.run(table: table, rules: rules, threads: 1, stop: stop) { progress in
                if progress.pass == .value && progress.layers == layers { stop.request() }
            }
            let oldest = solution.layers[(ages - layers)...]
            #expect(outcome == AfterstateSweep.Outcome(afterstates: oldest.reduce(0) { $0 + $1.keys.count }, complete: false))
            #expect(table.sortedEntries.map(\.key) == oldest.flatMap(\.keys).sorted())
            for layer in oldest {
                for (key, value) in zip(layer.keys, layer.values) { #expect(table.value(ofCanonical: key) == Float(value)) }
            }
        }
        let table = AfterstateTable(rows: 2, cols: 3)
        table.set(canonical: 0x21, to: 5)
        let stop = TrainingStop()
        let outcome = AfterstateSweep.run(table: table, rules: rules, threads: 1, stop: stop) { progress in
            if progress.pass == .enumerate && progress.layers == 10 { stop.request() }
        }
        #expect(outcome == AfterstateSweep.Outcome(afterstates: 0, complete: false))
        #expect(table.sortedEntries.map(\.key) == [0x21] && table.value(ofCanonical: 0x21) == 5)
    }

    /// A table made room for keeps every value it held, and holds as many more without moving them again.
    @Test func reservingRoomKeepsTheValues() throws {
        let table = AfterstateTable(rows: 3, cols: 3)
        var rng = Xoshiro256StarStar(seed: 8)
        var expected: [UInt64: Float] = [:]
        for index in 0..<3_000 {
            let board = AfterstateTableTests.randomBoard(rows: 3, cols: 3, largest: 10, using: &rng)
            let key = table.canonical(try #require(PackedGrid.key(of: board)))
            table.set(canonical: key, to: Float(index))
            expected[key] = Float(index)
            if index == 1_000 { table.reserve(100_000) }
        }
        #expect(table.memoryBytes == AfterstateTable.memoryBytes(holding: 100_000))
        #expect(table.sortedEntries.map(\.key) == expected.keys.sorted())
        for (key, value) in expected { #expect(table.value(ofCanonical: key) == value) }
    }
}
