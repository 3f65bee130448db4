import Game2048
import Testing
@testable import Game2048Network
@testable import Game2048Search
@testable import Game2048Training

/// The packed greedy evaluation against its oracle, the same player through ``Environment``.
struct EvaluationPackedTests {
    /// A default 4×4 network after a few hundred training games, so that moves have distinct values.
    static let network: NTupleNetwork = {
        let network = NTupleNetwork(rows: 4, cols: 4)
        let learner = TDLearner(network: network, rules: Rules(), alpha: 0.1)
        var rng = Xoshiro256StarStar(seed: 11)
        for _ in 0..<300 { learner.trainGame(using: &rng) }
        return network
    }()

    static let rulesCases: [Rules] = [
        Rules(),
        try! Rules(spawnFourProbability: 0.5, initialTiles: 3),
        try! Rules(winTile: 256),
        try! Rules(maxSteps: 37),
        try! Rules(invalidAction: .reject),
    ]

    @Test("the packed greedy game is the environment's game, seed by seed", arguments: rulesCases)
    func sameGames(rules: Rules) throws {
        var player = SearchPlayer(network: Self.network, depth: 0)
        let (network, limit) = try #require(Evaluation.packedGreedyNetwork(of: player, rules: rules))
        for seed in UInt64(0)..<40 {
            var moves = 0
            let fast = Evaluation.playPacked(network: network, rules: rules, seed: seed, downgradeLimit: limit) { moves += 1 }
            let reference = try Evaluation.playThroughEnvironment(rules: rules, seed: seed, player: &player)
            #expect(fast == reference, "seed \(seed)")
            #expect(moves == fast.moves)
        }
    }

    /// With tile-downgrading (limit 15) the packed loop values the move that makes the 32 768 tile downgraded,
    /// as the generic player does; without it, as it is.
    @Test(
        "past a 32 768 tile the game continues on the generic board, as the environment does",
        arguments: [TileDowngrade.defaultLimit, 14, nil] as [UInt8?])
    func continuation(downgradeLimit: UInt8?) throws {
        // Two 16 384 tiles side by side among small tiles: the greedy player merges them at once.
        let values = [16384, 16384, 2, 4, 8, 2, 4, 8, 2, 4, 8, 2, 0, 0, 0, 0]
        let start = try Board(rows: 4, cols: 4, values: values)
        var player = SearchPlayer(network: Self.network, depth: 0, downgradeLimit: downgradeLimit)
        for seed in UInt64(0)..<10 {
            let fast = Evaluation.playPacked(
                network: Self.network, rules: Rules(), seed: seed, start: Bitboard(start),
                downgradeLimit: downgradeLimit)
            let reference = try Evaluation.playThroughEnvironment(rules: Rules(), seed: seed, start: start, player: &player)
            #expect(fast == reference, "seed \(seed)")
            #expect(fast.maxTile >= 32768)
        }
    }

    @Test("Evaluation.run gives the environment's figures for a greedy network player")
    func runMatchesEnvironment() throws {
        let report = try Evaluation.run(rules: Rules(), games: 12, seed: 4, threads: 2) { _ in SearchPlayer(network: Self.network, depth: 0) }
        let seeds = VectorEnvironment.seeds(from: 4, count: 12)
        var player = SearchPlayer(network: Self.network, depth: 0)
        let reference = try seeds.map { try Evaluation.playThroughEnvironment(rules: Rules(), seed: $0, player: &player) }
        #expect(report.games == reference)
    }

    @Test("only a greedy network player on 4x4 within its node budget takes the packed path")
    func eligibility() throws {
        let square = NTupleNetwork(rows: 3, cols: 3)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(network: Self.network, depth: 0), rules: Rules()) != nil)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(network: Self.network, depth: 0, nodeBudget: nil), rules: Rules()) != nil)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(network: Self.network, depth: 1), rules: Rules()) == nil)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(network: Self.network, depth: 0, nodeBudget: 3), rules: Rules()) == nil)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(heuristicDepth: 0), rules: Rules()) == nil)
        #expect(Evaluation.packedGreedyNetwork(of: RandomPlayer(seed: 1), rules: Rules()) == nil)
        #expect(Evaluation.packedGreedyNetwork(of: SearchPlayer(network: square, depth: 0), rules: try Rules(rows: 3, cols: 3)) == nil)
    }
}
