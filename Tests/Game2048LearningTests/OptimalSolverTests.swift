import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Search
@testable import Game2048Solver

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

    /// The symmetries a board's shape allows, by hand: each maps cell (r, c) somewhere; canonical is the least.
    static func symmetricBoards(_ board: Board) -> [Board] {
        let rows = board.rows, cols = board.cols
        var maps: [(Int, Int) -> (Int, Int)] = [
            { ($0, $1) }, { ($0, cols - 1 - $1) }, { (rows - 1 - $0, $1) }, { (rows - 1 - $0, cols - 1 - $1) },
        ]
        if rows == cols { maps += [{ ($1, $0) }, { ($1, rows - 1 - $0) }, { (cols - 1 - $1, $0) }, { (cols - 1 - $1, rows - 1 - $0) }] }
        return maps.map { map in
            var exponents = [UInt8](repeating: 0, count: rows * cols)
            for r in 0..<rows {
                for c in 0..<cols {
                    let (r2, c2) = map(r, c)
                    exponents[r2 * cols + c2] = board.exponents[r * cols + c]
                }
            }
            return try! Board(rows: rows, cols: cols, exponents: exponents)
        }
    }

    @Test func theCanonicalBoardIsTheLeastOfItsSymmetricBoards() throws {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)] {
            let symmetry = PackedSymmetry(rows: rows, cols: cols)
            #expect(symmetry.order == (rows == cols ? 8 : 4))
            var rng = Xoshiro256StarStar(seed: UInt64(rows * 10 + cols))
            for _ in 0..<1_000 {
                let board = try Board(rows: rows, cols: cols, exponents: (0..<rows * cols).map { _ in UInt8(rng.next() % 12) })
                let keys = Self.symmetricBoards(board).map { PackedGrid.key(of: $0)! }
                let key = keys[0]
                #expect(symmetry.canonical(key) == keys.min()!)
                #expect(Set(keys.map(symmetry.canonical)).count == 1)
                #expect(PackedSymmetry.identity(rows: rows, cols: cols).canonical(key) == key)
            }
        }
    }

    /// The reduced solve (one board of each class) and the full one give every afterstate the same value.
    @Test func reducingBySymmetryChangesNoValue() throws {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2)] {
            let rules = try Rules(rows: rows, cols: cols)
            let reduced = try OptimalSolver.solve(rules: rules)
            let full = SolverGame(rules: rules, objective: .score, symmetric: false)
            var enumerator = LayerEnumerator(game: full, threads: 1)
            while enumerator.nextStates() != nil { enumerator.followLegalMoves() }
            let values = BackwardPass.run(game: full, layers: enumerator.layers, valuation: OptimalValuation(game: full), threads: 1)
            #expect(abs(values.start - reduced.expectedScore) < 1e-9 * reduced.expectedScore)
            #expect(enumerator.layers.afterstateCount > 3 * reduced.afterstateCount)
            for (age, keys) in enumerator.layers.afterstates.enumerated() {
                for (index, key) in keys.enumerated() {
                    let value = try #require(reduced.afterstateValue(ofKey: key))
                    #expect(abs(value - values.afterstates[age][index]) <= 1e-9 * max(1, value))
                }
            }
        }
    }

    @Test func threadsChangeNoBit() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let one = try OptimalSolver.solve(rules: rules, threads: 1)
        let two = try OptimalSolver.solve(rules: rules, threads: 2)
        let four = try OptimalSolver.solve(rules: rules, threads: 4)
        #expect(one.layers == two.layers && one.layers == four.layers)
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
        // Symmetric boards are worth the same, action for mirrored action.
        for mirrored in OptimalSolverTests.symmetricBoards(board) { #expect(solution.value(of: mirrored) == solution.value(of: board)) }
        // A lone tile has legal moves, but no game's board holds fewer than two tiles: no value, not a value of 0.
        let lone = try Board(rows: 2, cols: 2, values: [2, 0, 0, 0])
        #expect(solution.value(of: lone) == nil && solution.optimalMove(on: lone) == nil)
        #expect(solution.actionValues(on: lone).allSatisfy { $0 == nil })
        #expect(solution.value(of: try Board(rows: 2, cols: 3)) == nil)
    }

    /// Every board of random games (random legal moves, the environment's spawns) is one the solution says a
    /// game reaches, worth its best action's value (0 at the end): 150 games each on 2x3 and 2x2.
    @Test func everyBoardOfAGameIsReachableAndValued() throws {
        for (rows, cols) in [(2, 3), (2, 2)] {
            let rules = try Rules(rows: rows, cols: cols)
            let solution = try OptimalSolver.solve(rules: rules, threads: 1)
            var agent = Xoshiro256StarStar(seed: 11)
            for game in 0..<150 {
                var env = Environment(rules: rules)
                var mask = env.reset(seed: UInt64(game)).info.actionMask
                while true {
                    let value = try #require(solution.value(of: env.board), "a game's board \(env.board.values) has no value")
                    #expect(value == solution.actionValues(on: env.board).compactMap { $0 }.max() ?? 0)
                    if env.isOver { break }
                    mask = try env.step(mask.direction(at: agent.uniform(below: mask.count))).info.actionMask
                }
            }
        }
    }

    /// Which boards a game reaches, by an oracle of its own: every board of 2x2 with tiles up to 64 (7^4 of
    /// them) has a value exactly when a breadth-first search from the starting boards, by `Board.moved` and every
    /// spawn, meets it; a board it does not meet has no action value and no optimal move.
    @Test func theBoardsWithAValueAreTheBoardsAGameReaches() throws {
        let rules = try Rules(rows: 2, cols: 2)
        let solution = try OptimalSolver.solve(rules: rules, threads: 1)
        func spawns(_ board: Board) -> [Board] {
            board.emptyCells.flatMap { cell in
                [UInt8(1), 2].map { exponent in
                    var next = board
                    next[cell] = exponent
                    return next
                }
            }
        }
        var reached = Set(try spawns(Board(rows: 2, cols: 2)).flatMap(spawns))
        var frontier = Array(reached)
        while let board = frontier.popLast() {
            for direction in Direction.allCases {
                let move = board.moved(direction)
                guard move.changed else { continue }
                for next in spawns(move.afterstate) where reached.insert(next).inserted { frontier.append(next) }
            }
        }
        var valued = 0
        for code in 0..<(7 * 7 * 7 * 7) {
            let exponents = (0..<4).map { UInt8(code / [1, 7, 49, 343][$0] % 7) }
            let board = try Board(rows: 2, cols: 2, exponents: exponents)
            #expect((solution.value(of: board) != nil) == reached.contains(board), "\(board.values)")
            if solution.value(of: board) != nil { valued += 1 }
            // A board no game reaches has no action value and no optimal move either, though some of its moves
            // lead to afterstates a game does reach.
            if solution.value(of: board) == nil {
                #expect(solution.actionValues(on: board) == [nil, nil, nil, nil] && solution.optimalMove(on: board) == nil, "\(board.values)")
            }
        }
        #expect(valued == reached.filter { $0.maxExponent < 7 }.count && valued > 100)
    }

    /// A win tile ends the game: a board holding it is worth nothing more, and the move that makes it is worth
    /// its reward; for the win objective, the chance of the tile. With 8 on 2x2 the win is certain; with 32,
    /// 8.3 %, which the win-seeking optimal player reaches when played.
    @Test func aWinTileEndsTheGame() throws {
        let eight = try Rules(rows: 2, cols: 2, winTile: 8)
        let score8 = try OptimalSolver.solve(rules: eight)
        let win8 = try OptimalSolver.solve(rules: eight, objective: .win)
        let won = try Board(rows: 2, cols: 2, values: [8, 2, 0, 0])
        #expect(score8.value(of: won) == 0 && win8.value(of: won) == 1 && score8.actionValues(on: won) == [nil, nil, nil, nil])
        // 4 4 / 2 0: right or left makes the 8 (reward 8, then the game ends); up moves nothing; down moves the
        // second 4 down, and the game goes on.
        let board = try Board(rows: 2, cols: 2, values: [4, 4, 2, 0])
        let scores = score8.actionValues(on: board), wins = win8.actionValues(on: board)
        #expect(scores[0] == nil && scores[1] == 8 && scores[3] == 8 && scores[2] != nil)
        #expect(wins[1] == 1 && wins[3] == 1 && win8.value(of: board) == 1 && abs(win8.expectedScore - 1) < 1e-12)
        let rules = try Rules(rows: 2, cols: 2, winTile: 32)
        let score = try OptimalSolver.solve(rules: rules)
        let win = try OptimalSolver.solve(rules: rules, objective: .win)
        #expect(win.expectedScore > 0.05 && win.expectedScore < 0.2)
        // Played: the win-seeking optimal player reaches 32 as often as the solution says, within 3 standard errors.
        let report = try Evaluation.run(rules: rules, games: 20_000, seed: 5, threads: 2) { _ in OptimalPlayer(solution: win) }
        let rate = report.reachRate(32)
        let error = (win.expectedScore * (1 - win.expectedScore) / 20_000).squareRoot()
        #expect(abs(rate - win.expectedScore) < 3 * error)
        let played = try Evaluation.run(rules: rules, games: 20_000, seed: 5, threads: 2) { _ in OptimalPlayer(solution: score) }
        #expect(abs(played.meanScore - score.expectedScore) < 3 * played.standardError)
    }

    /// The chances of reaching 8, 16 and 32 on 2x2 under the play that maximizes each, as published by John Lees-Miller
    /// ("The Mathematics of 2048: Optimal Play with Markov Decision Processes", 2018), rounded as he gave them:
    /// certain, 0.96 and 0.08.
    @Test func theWinChancesOf2x2AreThePublishedOnes() throws {
        for (tile, published) in [(8, 1.0), (16, 0.96), (32, 0.08)] {
            let solution = try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2, winTile: tile), objective: .win)
            #expect(abs(solution.expectedScore - published) < 0.005, "reach \(tile): \(solution.expectedScore)")
        }
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
        let report = try Evaluation.run(rules: rules, games: 20_000, seed: 7, threads: 2) { _ in OptimalPlayer(solution: solution) }
        #expect(abs(report.meanScore - solution.expectedScore) < 3 * report.standardError)
        // And no other player does better: the greedy one scores less.
        let greedy = try Evaluation.run(rules: rules, games: 5_000, seed: 7, threads: 2) { GreedyPlayer(seed: UInt64($0)) }
        #expect(greedy.meanScore < solution.expectedScore)
    }

    @Test func rulesItDoesNotModelAreRefused() throws {
        let wide = try Rules(rows: 2, cols: 5)
        do throws(OptimalSolver.Refusal) {
            _ = try OptimalSolver.solve(rules: wide)
            Issue.record("2x5 was solved")
        } catch {
            guard case .tooLarge(2, 5, let afterstates, let bytes) = error else { throw error }
            #expect(afterstates > 1e8 && bytes == afterstates * OptimalSolver.bytesPerAfterstate)
            #expect(error.description.contains("2x5 has an estimated 1.2e+09 afterstates"))
        }
        #expect(throws: OptimalSolver.Refusal.unsupportedRule("it plays each game to its end: a step limit (max_steps)")) {
            try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2, maxSteps: 10))
        }
        #expect(throws: OptimalSolver.Refusal.winWithoutWinTile) { try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2), objective: .win) }
    }

    /// Every rules option off its default is either one the solver models or a rule it refuses: a rules option
    /// added to the table is refused until the solver models it.
    @Test func everyRulesOptionIsModelledOrRefused() throws {
        let classic = RulesSettings(try Rules(rows: 2, cols: 2))
        for option in RulesOption.all {
            var settings = classic
            let other: OptionValue =
                switch (option.constraint, option.value(in: classic)) {
                case (.integer(let range, _), .integer(let value)): .integer(value == range.lowerBound ? value + 1 : range.lowerBound)
                case (.integer(let range, _), _): .integer(max(range.lowerBound, 8))
                case (.number(let range), .number(let value)): .number(value == range.lowerBound ? range.upperBound : range.lowerBound)
                case (.boolean, .boolean(let value)): .boolean(!value)
                case (.choice(let names), let value): .string(names.first { OptionValue.string($0) != value }!)
                default: option.value(in: classic)
                }
            guard option.assign(other, to: &settings), let rules = try? settings.rules() else { continue }
            #expect(
                SolverGame.modelledOptions.contains(option.name) || SolverGame.unsupportedRule(in: rules) != nil,
                "\(option.name) \(other) is neither modelled nor refused")
        }
    }
}

/// Exact evaluation of a policy: the optimal one scores the solution, others score what playing them gives.
struct PolicyEvaluationTests {
    @Test func theOptimalPolicyScoresTheSolutionAndNeverErrs() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let exact = try solution.evaluate(Solution.moves(of: OptimalPlayer(solution: solution), rules: rules))
        #expect(abs(exact.expectedScore - solution.expectedScore) < 1e-9 * solution.expectedScore)
        #expect(exact.expectedSuboptimalMoves == 0 && exact.expectedMoves > 10 && exact.fractionOfOptimal > 0.999_999)
        #expect(exact.suboptimalStates == 0 && exact.reachableStates > 100)
    }

    /// Random legal and greedy (uniform among the best rewards) are stochastic: their exact value is what a
    /// Monte-Carlo playout of the players finds, within 3 standard errors; reduced by symmetry or not, the same.
    @Test func stochasticPoliciesScoreWhatPlayingThemGives() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        let random = try solution.evaluate(symmetric: true, Solution.randomMoves(rules: rules))
        let greedy = try solution.evaluate(symmetric: true, Solution.greedyMoves(rules: rules))
        let fullRandom = try solution.evaluate(Solution.randomMoves(rules: rules))
        let fullGreedy = try solution.evaluate(threads: 2, Solution.greedyMoves(rules: rules))
        for (reduced, full) in [(random, fullRandom), (greedy, fullGreedy)] {
            #expect(abs(reduced.expectedScore - full.expectedScore) < 1e-9 * full.expectedScore)
            #expect(abs(reduced.expectedMoves - full.expectedMoves) < 1e-9 * full.expectedMoves)
            #expect(abs(reduced.expectedSuboptimalMoves - full.expectedSuboptimalMoves) < 1e-9 * full.expectedMoves)
            #expect(reduced.reachableStates < full.reachableStates)
        }
        let playedRandom = try Evaluation.run(rules: rules, games: 20_000, seed: 3, threads: 2) { RandomPlayer(seed: UInt64($0)) }
        let playedGreedy = try Evaluation.run(rules: rules, games: 20_000, seed: 3, threads: 2) { GreedyPlayer(seed: UInt64($0)) }
        #expect(abs(random.expectedScore - playedRandom.meanScore) < 3 * playedRandom.standardError)
        #expect(abs(greedy.expectedScore - playedGreedy.meanScore) < 3 * playedGreedy.standardError)
        let meanMoves = Double(playedRandom.games.reduce(0) { $0 + $1.moves }) / 20_000
        #expect(abs(random.expectedMoves - meanMoves) < 0.02 * random.expectedMoves)
        #expect(random.expectedScore < greedy.expectedScore && greedy.expectedScore < solution.expectedScore)
        #expect(random.suboptimalShare > 0 && random.suboptimalShare < 1)
        #expect(random.suboptimalStateShare > 0 && random.suboptimalStateShare < 1)
    }

    /// A deterministic policy reaches fewer boards than the optimal solution holds, and only those are asked.
    @Test func onlyTheBoardsAPolicyReachesAreAsked() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let solution = try OptimalSolver.solve(rules: rules)
        var asked = 0
        var evaluator = PolicyEvaluator(solution: solution)
        while let boards = evaluator.nextBoards() {
            asked += boards.count
            #expect(Set(boards.map { PackedGrid.age(PackedGrid.key(of: $0)!) }).count == 1)  // one age a batch
            try evaluator.answer(boards.map { board in ActionMask(Solution.legalMoves(on: board, rules: rules).directions.first!) })
        }
        let result = evaluator.result()
        #expect(result.reachableStates == asked && asked > 0)
        #expect(result.expectedScore > 0 && result.expectedScore < solution.expectedScore)
    }

    @Test func movesItCannotFollowAreRefused() throws {
        let rules = try Rules(rows: 2, cols: 2)
        let solution = try OptimalSolver.solve(rules: rules)
        var evaluator = PolicyEvaluator(solution: solution)
        let next = evaluator.nextBoards()
        let boards = try #require(next)
        #expect(throws: PolicyMoveError.self) { try evaluator.answer([]) }
        let legal = boards.map { Solution.legalMoves(on: $0, rules: rules) }
        let index = try #require(legal.firstIndex { $0 != .all })
        var illegal = legal
        illegal[index] = ActionMask(rawValue: ~legal[index].rawValue)
        do throws(PolicyMoveError) {
            try evaluator.answer(illegal)
            Issue.record("an illegal move was followed")
        } catch {
            #expect(error.description.hasPrefix("the policy gave \(illegal[index]) for board \(index) of the batch (exponents "))
            #expect(error.description.hasSuffix("), where it is not legal"))
        }
        #expect(throws: PolicyMoveError.self) { try evaluator.answer(boards.map { _ in [] }) }
    }
}
