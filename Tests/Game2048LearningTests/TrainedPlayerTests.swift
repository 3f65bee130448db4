import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Search

/// A trained player moves as `g2048 eval`'s player does, and its report is `g2048 eval --json`'s.
struct TrainedPlayerTests {
    @Test(arguments: [0, 1])
    func movesAreTheSearchPlayersOnEveryBoardOfAGame(depth: Int) throws {
        let network = NTupleNetwork(rows: 3, cols: 3)
        var metadata = TrainingMetadata()
        metadata.downgradeLimit = 9
        var trained = TrainedPlayer(network: network, metadata: metadata)
        var reference = SearchPlayer(network: network, depth: depth, downgradeLimit: 9)
        var env = Environment(rules: try Rules(rows: 3, cols: 3))
        var rng = Xoshiro256StarStar(seed: 5)
        for seed in UInt64(0)..<5 {
            env.reset(seed: seed)
            while !env.isOver {
                let move = trained.move(on: env.board, depth: depth)
                #expect(move == reference.action(on: env.board, rules: trained.rules))
                let legal = env.actionMask.directions
                _ = try env.step(legal[Int(rng.next() % UInt64(legal.count))])
            }
        }
        #expect(trained.downgradeLimit == 9 && TrainedPlayer(network: network, metadata: TrainingMetadata()).downgradeLimit == TileDowngrade.defaultLimit)
    }

    @Test func theReportNamesAnyPlayerInValidJSON() {
        let report = EvaluationReport(
            player: #"a "quoted"\ name"#, games: [GameResult(score: 10, maxTile: 8, moves: 3)], seconds: 1)
        let json = report.json(board: "3x3")
        #expect(json.hasPrefix(#"{"player": "a \"quoted\"\\ name", "board": "3x3", "games": 1, "mean_score": 10.0"#))
    }
}
