import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Search

/// An evaluation's figures: exact on any scores and moves a game result can hold.
struct EvaluationTests {
    /// Two games at the largest score and move count: their sums pass 2^63, which once trapped (a C caller's
    /// `g2048_evaluation_report` stopped the process); the mean, the median and the speed are still exact.
    @Test func figuresOfTheLargestResultsDoNotOverflow() {
        let game = GameResult(score: .max, maxTile: 2, moves: .max)
        let report = EvaluationReport(player: "p", games: [game, game, GameResult(score: .max - 1, maxTile: 4, moves: 1)], seconds: 2)
        #expect(report.meanScore == Double(Int64.max) && report.medianScore == Double(Int64.max))
        #expect(report.maxScore == .max && report.standardError < 1)
        #expect(report.movesPerSecond == (2 * Double(Int.max) + 1) / 2)
        let even = EvaluationReport(player: "p", games: [game, game], seconds: 1)
        #expect(even.medianScore == Double(Int64.max) && even.meanScore == Double(Int64.max))
    }

    /// A player that gives no move on its third board (where moves are legal): the evaluation ended such games
    /// there and scored them; it now stops with the first such game in game order, and its board.
    @Test func aPlayerWithoutAMoveStopsTheEvaluation() throws {
        struct Quitter: Player {
            var moves = 0
            let name = "quitter"
            mutating func action(on board: Board, rules: Rules) -> Direction? {
                moves += 1
                return moves < 3 ? board.legalMoves.directions.first : nil
            }
        }
        let rules = try Rules(rows: 3, cols: 3)
        for threads in [1, 2] {
            let error = #expect(throws: PlayerStall.self) { try Evaluation.run(rules: rules, games: 8, seed: 1, threads: threads) { _ in Quitter() } }
            #expect(error?.game == 0 && error?.player == "quitter" && error?.board.legalMoves.isEmpty == false)
            #expect(error?.description.hasPrefix("game 1: the quitter player gave no move on a board with legal moves: [[") == true)
        }
    }
}
