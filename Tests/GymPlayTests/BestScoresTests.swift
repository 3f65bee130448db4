import Testing
@testable import GymPlay

struct BestScoresTests {
    @Test func recordKeepsOnlyImprovementsPerSize() {
        var best = BestScores(directory: "/unused")
        let results = [
            best.record(100, rows: 4, cols: 4),
            best.record(50, rows: 4, cols: 4),
            best.record(100, rows: 4, cols: 4),
            best.record(30, rows: 3, cols: 5),
        ]
        #expect(results == [true, false, false, true])
        #expect(best[rows: 4, cols: 4] == 100)
        #expect(best[rows: 3, cols: 5] == 30)
        #expect(best[rows: 5, cols: 3] == 0)
        #expect(best.scores == ["4x4": 100, "3x5": 30])
    }
}
