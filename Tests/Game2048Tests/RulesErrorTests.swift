import Testing
@testable import Game2048

struct RulesErrorTests {
    static let messages: [(RulesError, String, String)] = [
        (.rows(99), "rows", "rows must be an integer from 2 to 8, got 99"),
        (.cols(1), "cols", "cols must be an integer from 2 to 8, got 1"),
        (.spawnFourProbability(1.5), "spawnFourProbability", "spawnFourProbability must be a number from 0.0 to 1.0, got 1.5"),
        (.initialTiles(17, cells: 16), "initialTiles", "initialTiles must be an integer from 1 to 16, got 17"),
        (.winTile(3), "winTile", "winTile must be a power of two from 4 to 2^50, got 3"),
        (.maxSteps(0), "maxSteps", "maxSteps must be at least 1, got 0"),
        (.penalty(-5), "penalty", "penalty must be 0 or more, got -5"),
        (.boardShape(expected: 16, got: 15), "board", "board must have 16 cells, got 15"),
        (.boardSize(rows: 2, cols: 8, expectedRows: 4, expectedCols: 4), "board", "board must be 4x4, got 2x8"),
        (.tileValue(3, cell: 2), "board", "board cell 2 must be 0 or a power of two from 2 to 2^50, got 3"),
        (.tileExponent(62, cell: 0), "board", "board cell 0 must hold an exponent from 0 to 50, got 62"),
    ]

    @Test(arguments: messages)
    func descriptionIsFieldThenRule(error: RulesError, field: String, description: String) {
        #expect(error.field.rawValue == field)
        #expect(error.description == description)
        #expect(error.description == "\(error.field.rawValue) \(error.rule)")
        #expect("\(error)" == description)
    }

    @Test func thrownErrorPrintsTheIssueExample() {
        do {
            _ = try Rules(rows: 99)
            Issue.record("rows 99 accepted")
        } catch {
            #expect(error.description == "rows must be an integer from 2 to 8, got 99")
        }
    }
}
