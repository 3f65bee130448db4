import Game2048

/// A policy's choice on a board: the probability of each action (up, right, down, left), summing to 1 over legal
/// actions; all zero when no action is legal.
public typealias PolicyChoice = (Board) -> [Double]

/// What an exact evaluation of a policy found (``Solution/evaluate(_:)``): no sampling, no noise.
public struct PolicyEvaluation: Sendable, Hashable {
    /// The policy's expected score of a game, from the starting boards.
    public var expectedScore: Double
    /// The optimal expected score (the solution's).
    public var optimalScore: Double
    /// The expected number of moves of a game under the policy.
    public var expectedMoves: Double
    /// The expected number of those moves that are not optimal (an action worth less than the best by more than
    /// a millionth of it).
    public var expectedSuboptimalMoves: Double

    /// The policy's expected score as a fraction of the optimal one.
    public var fractionOfOptimal: Double { optimalScore > 0 ? expectedScore / optimalScore : 1 }
    /// The share of the moves of a game, in expectation, that are not optimal.
    public var suboptimalShare: Double { expectedMoves > 0 ? expectedSuboptimalMoves / expectedMoves : 0 }
}

extension Solution {
    /// The exact expected score of `policy`, by the solver's own dynamic programming with the policy's choice in
    /// place of the best move, and how often, in expectation, its move is not optimal (a forward pass that carries
    /// each board's chance of being reached).
    ///
    /// - Complexity: one call of `policy` per reachable state and pass; on 2×4, about 10^8.
    public func evaluate(_ policy: PolicyChoice) -> PolicyEvaluation {
        let p = rules.spawnFourProbability
        let cells = rules.cellCount
        // The choice on each state, asked once per state and pass.
        func choice(_ key: UInt64) -> [Double] { policy(grid.board(key)) }
        // Backward: the policy's value of every afterstate, by the solver's own pass.
        func policyValue(_ key: UInt64, _ values: [[Double]]) -> Double {
            let weights = choice(key)
            var total = 0.0
            for direction in Direction.allCases where weights[direction.rawValue] > 0 {
                let move = grid.move(key, direction)
                guard move.legal, let (age, index) = locate(move.afterstate) else { continue }
                total += weights[direction.rawValue] * (Double(move.reward) + values[age][index])
            }
            return total
        }
        let values = OptimalSolver.value(grid: grid, layers: layers.map(\.keys), p: p, progress: nil) { state, _, values in
            policyValue(state, values)
        }
        // Forward: each afterstate's chance of being reached, the moves made and the suboptimal ones.
        var reach = layers.map { [Double](repeating: 0, count: $0.keys.count) }
        var moves = 0.0, suboptimal = 0.0
        func play(_ key: UInt64, chance: Double) {
            let weights = choice(key)
            let optimal = actionValues(ofKey: key)
            let best = optimal.compactMap { $0 }.max() ?? 0
            for direction in Direction.allCases where weights[direction.rawValue] > 0 {
                let move = grid.move(key, direction)
                guard move.legal, let (age, index) = locate(move.afterstate) else { continue }
                let share = chance * weights[direction.rawValue]
                reach[age][index] += share
                moves += share
                if let value = optimal[direction.rawValue], value < best - 1e-6 * max(1, best) { suboptimal += share }
            }
        }
        let starts = OptimalSolver.startingBoards(rules: rules)
        var score = 0.0
        for start in starts {
            score += start.probability * policyValue(start.key, values)
            play(start.key, chance: start.probability)
        }
        for age in layers.indices {
            for (index, afterstate) in layers[age].keys.enumerated() where reach[age][index] > 0 {
                let chance = reach[age][index]
                let empty = Double(PackedGrid.emptyCount(afterstate, cells: cells))
                PackedGrid.forEachSpawn(on: afterstate, cells: cells, fourProbability: p) { state, _, weight in
                    play(state, chance: chance * weight / empty)
                }
            }
        }
        return PolicyEvaluation(
            expectedScore: score, optimalScore: expectedScore, expectedMoves: moves, expectedSuboptimalMoves: suboptimal)
    }

    /// The layer and index of a reachable afterstate.
    func locate(_ key: UInt64) -> (Int, Int)? {
        let age = PackedGrid.age(key)
        guard age < layers.count, let index = Solution.index(of: key, in: layers[age].keys) else { return nil }
        return (age, index)
    }

    /// A deterministic player's choice (probability 1 on its move): an n-tuple network's search, the heuristic
    /// expectimax, the optimal player. A player that breaks ties at random is not one of these: give its
    /// distribution (``uniformChoice(among:)``).
    public static func choice(of player: some Player, rules: Rules) -> PolicyChoice {
        var player = player
        return { board in
            var weights = [0.0, 0.0, 0.0, 0.0]
            if let move = player.action(on: board, rules: rules) { weights[move.rawValue] = 1 }
            return weights
        }
    }

    /// The random player's choice: every legal move alike (`RandomPlayer`, exactly).
    public static func randomChoice(rules: Rules) -> PolicyChoice {
        uniformChoice { legalMoves(on: $0, rules: rules) }
    }

    /// The greedy player's choice: the legal moves of the largest reward alike (`GreedyPlayer` breaks ties at
    /// random, so this is its exact distribution).
    public static func greedyChoice(rules: Rules) -> PolicyChoice {
        uniformChoice { board in
            let moves = legalMoves(on: board, rules: rules)
            let best = moves.map { board.moved($0).reward }.max()
            return moves.filter { board.moved($0).reward == best }
        }
    }

    /// The moves the environment takes on `board`: those that change it and merge no tile past the ceiling.
    static func legalMoves(on board: Board, rules: Rules) -> [Direction] {
        Direction.allCases.filter { direction in
            let outcome = board.moved(direction)
            return outcome.changed && outcome.highestMerge <= rules.largestExponent
        }
    }

    /// A uniform choice among the actions `actions` gives (the random player: every legal move; the greedy one:
    /// the legal moves of the largest reward).
    public static func uniformChoice(among actions: @escaping (Board) -> [Direction]) -> PolicyChoice {
        { board in
            let chosen = actions(board)
            var weights = [0.0, 0.0, 0.0, 0.0]
            for direction in chosen { weights[direction.rawValue] = 1 / Double(chosen.count) }
            return weights
        }
    }
}
