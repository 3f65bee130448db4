import Game2048
import Synchronization
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

    /// A 4×4 network of two 4-tuples, read as packed runs (`PackedRunValue`) rather than the default's code.
    static let runsNetwork: NTupleNetwork = {
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [4, 5, 9, 8])])
        precondition(network.reading == .packedRuns)
        let learner = TDLearner(network: network, rules: Rules(), alpha: 0.1)
        var rng = Xoshiro256StarStar(seed: 12)
        for _ in 0..<200 { learner.trainGame(using: &rng) }
        return network
    }()

    /// `Evaluation.run` plays a thread's greedy games two at a time (`PackedGreedyPlayer`): each is still its
    /// seed's game, and the progress counts every move. A win tile of 4 ends some games before their first move.
    @Test(
        "two games a thread, interleaved: each seed's game, every move counted",
        arguments: rulesCases + [try! Rules(winTile: 4)], [1, 2, 3])
    func lanesPlayEachSeedsGame(rules: Rules, threads: Int) throws {
        for network in [Self.network, Self.runsNetwork] {
            let seeds = VectorEnvironment.seeds(from: 9, count: 41)
            let reference = seeds.map { Evaluation.playPacked(network: network, rules: rules, seed: $0) }
            let counted = Mutex(0)
            let report = try Evaluation.run(
                rules: rules, games: 41, seed: 9, threads: threads, makePlayer: { _ in SearchPlayer(network: network, depth: 0) },
                progressEveryMove: true, progress: { p in counted.withLock { $0 = max($0, p.moves) } })
            #expect(report.games == reference)
            #expect(counted.withLock { $0 } == reference.reduce(0) { $0 + $1.moves })
        }
    }

    /// Games whose players differ interleave only with games of the same greedy player: another network, another
    /// downgrading limit or another kind of player ends a run of lanes, and its game is played on its own path.
    @Test("a run of different players: each game on its own player's path", arguments: [1, 2])
    func lanesHandOverOtherPlayers(threads: Int) throws {
        let make: @Sendable (Int) -> any Player = { index in
            switch index % 7 {
            case 2: SearchPlayer(network: Self.network, depth: 0, downgradeLimit: 8)
            case 3: RandomPlayer(seed: UInt64(index))
            case 5: SearchPlayer(network: Self.runsNetwork, depth: 0)
            default: SearchPlayer(network: Self.network, depth: 0)
            }
        }
        let seeds = VectorEnvironment.seeds(from: 5, count: 30)
        let reference = try (0..<30).map { index in
            var player = make(index)
            return try Evaluation.playThroughEnvironment(rules: Rules(), seed: seeds[index], player: &player)
        }
        let report = try Evaluation.run(rules: Rules(), games: 30, seed: 5, threads: threads, makePlayer: make)
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
