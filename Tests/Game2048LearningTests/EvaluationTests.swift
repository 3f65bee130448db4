import Game2048
import Testing

@testable import Game2048Learning

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
}
