import Game2048
import Testing
@testable import Game2048Network
@testable import Game2048Search

struct ExpectimaxTests {
    /// The 2×2 position [2 2 / 4 .] worked by hand (see the test body) with a zero network.
    static let position = try! Board(rows: 2, cols: 2, values: [2, 2, 4, 0])

    @Test func depthZeroIsGreedyOverAfterstates() {
        var search = Expectimax(evaluator: .network(NTupleNetwork(rows: 2, cols: 2)), depth: 0)
        let values = search.actionValues(on: Self.position, spawnFourProbability: 0.1)
        #expect(values.map(\.0) == [.right, .down, .left])
        #expect(values.map(\.1) == [4, 0, 4])
    }

    @Test func depthOneMatchesTheHandComputation() {
        // left/right: merge the 2s (4), leaving [4 . / 4 .] or its mirror: whatever spawns,
        // the next move merges the 4s (8), so each is worth 4 + 8 = 12.
        // down: [2 . / 4 2], reward 0; a 2 on the empty cell allows a merge of 4, a 4 fills
        // the board with no move left (0): 0.9 · 4 + 0.1 · 0 = 3.6. Up is illegal.
        var search = Expectimax(evaluator: .network(NTupleNetwork(rows: 2, cols: 2)), depth: 1)
        let values = search.actionValues(on: Self.position, spawnFourProbability: 0.1)
        #expect(values.map(\.0) == [.right, .down, .left])
        #expect(values.map(\.1)[0] == 12)
        #expect(abs(values.map(\.1)[1] - 3.6) < 1e-5)
        #expect(values.map(\.1)[2] == 12)
        #expect(search.bestAction(on: Self.position, spawnFourProbability: 0.1) == .right)
    }

    @Test func searchAvoidsTheMoveThatLoses() throws {
        // Moving right leaves a full, locked board after either spawn; left keeps the game going.
        let board = try Board(rows: 2, cols: 3, values: [0, 2, 4, 8, 16, 32])
        var greedy = Expectimax(evaluator: .heuristic, depth: 1)
        let choice = greedy.bestAction(on: board, spawnFourProbability: 0.1)
        #expect(choice == .left)
    }

    @Test func noLegalMoveMeansNoAction() throws {
        var search = Expectimax(evaluator: .heuristic, depth: 2)
        #expect(search.bestAction(on: try Board(rows: 2, cols: 2, values: [2, 4, 4, 2]), spawnFourProbability: 0.1) == nil)
    }

    @Test func transpositionCacheKeepsResultsAndSavesWork() throws {
        let board = try Board(rows: 3, cols: 3, values: [2, 0, 4, 0, 2, 0, 8, 0, 2])
        var search = Expectimax(evaluator: .heuristic, depth: 2)
        let first = search.actionValues(on: board, spawnFourProbability: 0.1)
        let again = search.actionValues(on: board, spawnFourProbability: 0.1)
        #expect(first.map(\.1) == again.map(\.1))
        _ = search.bestAction(on: board, spawnFourProbability: 0.1)
        let cached = search.nodes
        #expect(cached > 0)
    }
}

extension ExpectimaxTests {
    static let midGame = try! Board(rows: 4, cols: 4, values: [2, 4, 8, 16, 0, 2, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0])

    /// `eval --depth 4` once ran for minutes per game: a node budget now bounds every decision.
    @Test(arguments: [1, 50, 5_000, 40_000])
    func aNodeBudgetBoundsEveryDecision(budget: Int) {
        var search = Expectimax(evaluator: .heuristic, depth: 4, nodeBudget: budget)
        let action = search.bestAction(on: Self.midGame, spawnFourProbability: 0.1)
        #expect(action != nil)
        #expect(search.nodes <= budget + 1)
        #expect(search.searchedDepth < 4)
    }

    @Test func aBudgetThatFitsGivesTheFullSearchsMove() {
        var unlimited = Expectimax(evaluator: .heuristic, depth: 2)
        var budgeted = Expectimax(evaluator: .heuristic, depth: 2, nodeBudget: 10_000_000)
        for board in [Self.midGame, Self.position] {
            #expect(budgeted.bestAction(on: board, spawnFourProbability: 0.1) == unlimited.bestAction(on: board, spawnFourProbability: 0.1))
            #expect(budgeted.searchedDepth == 2)
        }
    }

    @Test func aBudgetedSearchIsDeterministic() {
        var first = Expectimax(evaluator: .heuristic, depth: 3, nodeBudget: 20_000)
        var second = Expectimax(evaluator: .heuristic, depth: 3, nodeBudget: 20_000)
        let a = first.bestAction(on: Self.midGame, spawnFourProbability: 0.1)
        let b = second.bestAction(on: Self.midGame, spawnFourProbability: 0.1)
        #expect(a == b && first.nodes == second.nodes && first.searchedDepth == second.searchedDepth)
    }

    @Test func outOfRangeSettingsAreClampedNotTrapped() {
        var search = Expectimax(evaluator: .heuristic, depth: -3, nodeBudget: -5)
        #expect(search.depth == 0 && search.nodeBudget == 1)
        #expect(search.bestAction(on: Self.midGame, spawnFourProbability: 0.1) != nil)
    }
}
