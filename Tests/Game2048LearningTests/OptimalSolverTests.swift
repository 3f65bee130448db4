import Game2048
import Testing

@testable import Game2048Learning

/// The exact solver: its values agree with play, with symmetry and with hand-made boards.
struct OptimalSolverTests {
    @Test func aPackedMoveIsTheBoardsMove() throws {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
            let rules = try Rules(rows: rows, cols: cols)
            let grid = PackedGrid(rules: rules)
            var rng = Xoshiro256StarStar(seed: UInt64(rows * 10 + cols))
            for _ in 0..<2_000 {
                let exponents = (0..<rules.cellCount).map { _ in UInt8(rng.next() % 6) }
                let board = try Board(rows: rows, cols: cols, exponents: exponents)
                let key = try #require(PackedGrid.key(of: board))
                #expect(grid.board(key) == board)
                for direction in Direction.allCases {
                    let packed = grid.move(key, direction)
                    let outcome = board.moved(direction)
                    #expect(grid.board(packed.afterstate) == outcome.afterstate)
                    let legal = outcome.changed && outcome.highestMerge <= rules.largestExponent  // the ceiling, as the environment
                    #expect(Int64(packed.reward) == outcome.reward && packed.legal == legal)
                    #expect(PackedGrid.age(packed.afterstate) == PackedGrid.age(key))
                }
            }
        }
    }

    /// A board from which no tile can merge again, by hand: its value is 0; one merge away, the merge's reward.
    @Test func handMadeBoardsHaveTheirExactValues() throws {
        let solution = try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2))
        let stuck = try Board(rows: 2, cols: 2, values: [2, 4, 4, 2])
        #expect(solution.value(of: stuck) == 0 && solution.optimalMove(on: stuck) == nil)
        // 2 2 / 4 8: left or right merges the 2s (reward 4); the value is at least that reward.
        let board = try Board(rows: 2, cols: 2, values: [2, 2, 4, 8])
        let values = solution.actionValues(on: board)
        #expect(values[0] == nil && values[2] == nil)
        #expect(try #require(values[1]) >= 4 && #require(values[3]) >= 4)
        #expect(solution.value(of: board) == max(values[1]!, values[3]!))
    }

    @Test func mirroredBoardsHaveTheSameOptimalScore() throws {
        let wide = try OptimalSolver.solve(rules: Rules(rows: 2, cols: 3))
        let tall = try OptimalSolver.solve(rules: Rules(rows: 3, cols: 2))
        #expect(abs(wide.expectedScore - tall.expectedScore) < 1e-9 * wide.expectedScore)
        #expect(wide.afterstateCount == tall.afterstateCount)
    }

    /// The optimal policy, played: its mean score is the solver's expected score, within 3 standard errors.
    @Test func playingTheOptimalPolicyScoresItsValue() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let report = Evaluation.run(rules: rules, games: 20_000, seed: 7, threads: 2) { _ in OptimalPlayer(solution: solution) }
        #expect(abs(report.meanScore - solution.expectedScore) < 3 * report.standardError)
        // And no other player does better: the greedy one scores less.
        let greedy = Evaluation.run(rules: rules, games: 5_000, seed: 7, threads: 2) { GreedyPlayer(seed: UInt64($0)) }
        #expect(greedy.meanScore < solution.expectedScore)
    }

    @Test func rulesItDoesNotModelAreRefused() throws {
        #expect(throws: OptimalSolver.Refusal.tooLarge(rows: 4, cols: 4)) { try OptimalSolver.solve(rules: Rules()) }
        #expect(throws: OptimalSolver.Refusal.unsupportedRule("a win tile (win_tile)")) {
            try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2, winTile: 64))
        }
    }
}

/// Exact evaluation of a policy: the optimal one scores the solution, others score what playing them gives.
struct PolicyEvaluationTests {
    @Test func theOptimalPolicyScoresTheSolutionAndNeverErrs() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let exact = solution.evaluate(Solution.choice(of: OptimalPlayer(solution: solution), rules: rules))
        #expect(abs(exact.expectedScore - solution.expectedScore) < 1e-9 * solution.expectedScore)
        #expect(exact.expectedSuboptimalMoves == 0 && exact.expectedMoves > 10 && exact.fractionOfOptimal > 0.999_999)
    }

    /// Random legal and greedy (uniform among the best rewards) are stochastic: their exact value is what a
    /// Monte-Carlo playout of the players finds, within 3 standard errors.
    @Test func stochasticPoliciesScoreWhatPlayingThemGives() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let random = solution.evaluate(Solution.randomChoice(rules: rules))
        let greedy = solution.evaluate(Solution.greedyChoice(rules: rules))
        let playedRandom = Evaluation.run(rules: rules, games: 20_000, seed: 3, threads: 2) { RandomPlayer(seed: UInt64($0)) }
        let playedGreedy = Evaluation.run(rules: rules, games: 20_000, seed: 3, threads: 2) { GreedyPlayer(seed: UInt64($0)) }
        #expect(abs(random.expectedScore - playedRandom.meanScore) < 3 * playedRandom.standardError)
        #expect(abs(greedy.expectedScore - playedGreedy.meanScore) < 3 * playedGreedy.standardError)
        #expect(random.expectedScore < greedy.expectedScore && greedy.expectedScore < solution.expectedScore)
        #expect(random.suboptimalShare > 0 && random.suboptimalShare < 1)
    }
}
