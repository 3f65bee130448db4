import Game2048
import Synchronization
import Testing
@testable import Game2048Network
@testable import Game2048Search
@testable import Game2048Training

struct PlayerTests {
    static let rules = Rules()

    @Test func playersPickOnlyLegalMovesAndNilWhenStuck() throws {
        let stuck = try Board(rows: 4, cols: 4, values: [2, 4, 2, 4, 4, 2, 4, 2, 2, 4, 2, 4, 4, 2, 4, 2])
        var players: [any Player] = [
            RandomPlayer(seed: 1), GreedyPlayer(seed: 1), MonteCarloPlayer(seed: 1, rollouts: 3, depth: 5),
            SearchPlayer(heuristicDepth: 1), SearchPlayer(network: NTupleNetwork(rows: 4, cols: 4), depth: 0),
        ]
        var rng = Xoshiro256StarStar(seed: 2)
        for index in players.indices {
            #expect(players[index].action(on: stuck, rules: Self.rules) == nil)
            for _ in 0..<20 {
                var board = try! Board(rows: 4, cols: 4)
                for cell in 0..<16 where rng.uniform(below: 2) == 0 { board[cell] = UInt8(1 + rng.uniform(below: 5)) }
                guard !board.legalMoves.isEmpty else { continue }
                let chosen = players[index].action(on: board, rules: Self.rules)
                let action = try #require(chosen)
                #expect(board.legalMoves.contains(action))
            }
        }
    }

    @Test func greedyTakesTheBiggestMerge() throws {
        var player = GreedyPlayer(seed: 1)
        // Left/right merge the 8s (16); up/down merge nothing.
        let board = try Board(rows: 2, cols: 2, values: [8, 8, 2, 4])
        let action = player.action(on: board, rules: Self.rules)
        #expect(action == .left || action == .right)
    }

    @Test func evaluationIsTheSameOnAnyNumberOfThreads() throws {
        let one = try Evaluation.run(rules: Self.rules, games: 40, seed: 3, threads: 1) { RandomPlayer(seed: UInt64($0)) }
        let two = try Evaluation.run(rules: Self.rules, games: 40, seed: 3, threads: 2) { RandomPlayer(seed: UInt64($0)) }
        #expect(one.games == two.games)
        #expect(one.games.count == 40)
    }

    /// `eval --agent greedy --rows 8` played one 76 M-move game for 81 s without a progress line:
    /// progress now also comes every `movesPerReport` moves within a game, and the counts add up.
    @Test(arguments: [1, 2])
    func progressComesWithinLongGamesAndAddsUp(threads: Int) throws {
        let reports = Mutex<[EvaluationProgress]>([])
        let record: @Sendable (EvaluationProgress) -> Void = { progress in reports.withLock { $0.append(progress) } }
        let report = try Evaluation.run(
            rules: try! Rules(rows: 5, cols: 5), games: 3, seed: 2, threads: threads, makePlayer: { RandomPlayer(seed: UInt64($0)) },
            movesPerReport: 64, progress: record)
        let seen = reports.withLock { $0 }
        let total = report.games.reduce(0) { $0 + $1.moves }
        #expect(report.games.allSatisfy { $0.moves > 200 })
        // Reports before any game ended, and at least one a batch of 64 moves.
        #expect(seen.contains { $0.games == 0 && $0.moves >= 64 })
        #expect(seen.count >= total / 64)
        #expect(seen.map(\.moves).max() == total)
        #expect(Set(seen.map(\.games)) == [0, 1, 2, 3])
    }

    /// Search players keep per-game caches; threads must still give one game per seed, whatever the schedule.
    @Test func searchEvaluationIsTheSameOnAnyNumberOfThreads() throws {
        let rules = try! Rules(rows: 3, cols: 3)
        let network = NTupleNetwork(rows: 3, cols: 3)
        let learner = TDLearner(network: network, rules: rules, alpha: 0.1)
        var rng = Xoshiro256StarStar(seed: 5)
        for _ in 0..<100 { learner.trainGame(using: &rng) }
        for depth in [1, 2] {
            let one = try Evaluation.run(rules: rules, games: 4, seed: 4, threads: 1) { _ in
                SearchPlayer(network: network, depth: depth, nodeBudget: 500)
            }
            let two = try Evaluation.run(rules: rules, games: 4, seed: 4, threads: 2) { _ in
                SearchPlayer(network: network, depth: depth, nodeBudget: 500)
            }
            #expect(one.games == two.games, "depth \(depth)")
            #expect(one.games.allSatisfy { $0.moves > 0 })
        }
    }

    /// The packed 4×4 search keeps a transposition table per player: games must not depend on the threads either.
    @Test(arguments: [1, 2])
    func packedSearchEvaluationIsTheSameOnAnyNumberOfThreads(depth: Int) throws {
        let network = EvaluationPackedTests.network
        let make: @Sendable (Int) -> any Player = { _ in SearchPlayer(network: network, depth: depth, nodeBudget: 2_000) }
        let one = try Evaluation.run(rules: Self.rules, games: 3, seed: 4, threads: 1, makePlayer: make)
        let two = try Evaluation.run(rules: Self.rules, games: 3, seed: 4, threads: 2, makePlayer: make)
        #expect(one.games == two.games)
        #expect(one.games.allSatisfy { $0.moves > 0 })
    }

    @Test func reportStatisticsMatchHandComputations() {
        let report = EvaluationReport(
            player: "x",
            games: [
                GameResult(score: 100, maxTile: 2048, moves: 10), GameResult(score: 300, maxTile: 1024, moves: 30),
                GameResult(score: 200, maxTile: 4096, moves: 20), GameResult(score: 400, maxTile: 8192, moves: 40),
            ], seconds: 2)
        #expect(report.meanScore == 250)
        #expect(report.medianScore == 250)
        #expect(report.maxScore == 400)
        // Sample standard deviation of 100…400 is √(50 000 / 3); divided by √4.
        #expect(abs(report.standardError - (50_000.0 / 3).squareRoot() / 2) < 1e-9)
        #expect(report.reachRate(2048) == 0.75)
        #expect(report.reachRate(8192) == 0.25)
        #expect(report.movesPerSecond == 50)
        // The reported tiles end at the largest one reached: 8192 and the four below it.
        #expect(report.milestones == [512, 1024, 2048, 4096, 8192])
        let small = EvaluationReport(player: "x", games: [GameResult(score: 20, maxTile: 16, moves: 9)], seconds: 1)
        #expect(small.milestones == [2, 4, 8, 16, 32])
    }

    @Test func searchBeatsRandomOnFourByFour() throws {
        let search = try Evaluation.run(rules: Self.rules, games: 6, seed: 9, threads: 2) { _ in SearchPlayer(heuristicDepth: 1) }
        let random = try Evaluation.run(rules: Self.rules, games: 6, seed: 9, threads: 2) { RandomPlayer(seed: UInt64($0)) }
        #expect(search.meanScore > 2 * random.meanScore)
    }
}
