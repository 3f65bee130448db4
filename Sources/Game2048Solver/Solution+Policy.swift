import Game2048
import Game2048Network
import Game2048Search

/// A policy's moves on a batch of boards, for an exact evaluation: for each board, the moves it plays, each
/// alike (one move for a deterministic player). Every board asked has a legal move.
public typealias PolicyMoves = ([Board]) -> [ActionMask]

/// What an exact evaluation of a policy found (``PolicyEvaluator``): no sampling, no noise.
public struct PolicyEvaluation: Sendable, Hashable {
    /// The policy's expected worth of a game (the score, or the chance of a win: the solution's objective), from
    /// the starting boards.
    public var expectedScore: Double
    /// The optimal expected worth (the solution's).
    public var optimalScore: Double
    /// The expected number of moves of a game under the policy.
    public var expectedMoves: Double
    /// The expected number of those moves that are not optimal (an action worth less than the best by more than
    /// a millionth of it).
    public var expectedSuboptimalMoves: Double
    /// The states the policy reaches (one of each class of symmetric ones for a symmetric policy) where it has a
    /// move to choose.
    public var reachableStates: Int
    /// Those of them where it plays a move that is not optimal (one of its moves, for a policy that draws).
    public var suboptimalStates: Int

    /// The policy's expected worth as a fraction of the optimal one.
    public var fractionOfOptimal: Double { optimalScore > 0 ? expectedScore / optimalScore : 1 }
    /// The share of the moves of a game, in expectation, that are not optimal.
    public var suboptimalShare: Double { expectedMoves > 0 ? expectedSuboptimalMoves / expectedMoves : 0 }
    /// The share of the reachable states where the policy's move is not optimal.
    public var suboptimalStateShare: Double { reachableStates > 0 ? Double(suboptimalStates) / Double(reachableStates) : 0 }
}

/// A policy's move that the exact evaluation cannot follow.
public struct PolicyMoveError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
}

/// The exact evaluation of a policy on a solved board, a loop its caller drives: ``nextBoards()`` gives the
/// boards of the next age the policy reaches, ``answer(_:)`` takes its moves on them, and once no board is left
/// ``result(progress:)`` values every board the policy reaches by the solver's backward pass, with the policy's moves in
/// place of the best, and compares each move with the solution's best.
///
///     var evaluator = PolicyEvaluator(solution: solution)
///     while let boards = evaluator.nextBoards() {
///         try evaluator.answer(boards.map { ActionMask(myPolicy($0)) })
///     }
///     evaluator.result().fractionOfOptimal
///
/// Only the boards the policy reaches are enumerated. A policy that treats symmetric boards alike (the random
/// and the greedy players do) can be evaluated `symmetric`, on one board of each class, much faster; a
/// policy that does not would be misjudged so.
public struct PolicyEvaluator {
    public let solution: Solution
    let game: SolverGame
    var enumerator: LayerEnumerator
    /// The states of the layer asked, and the positions among them of those with a move.
    var states: [UInt64] = []
    var asked: [Int] = []
    var reachable = 0
    var suboptimal = 0
    let threads: Int
    /// The legal moves of each board ``nextBoards()`` gave last.
    public private(set) var legalMoves: [ActionMask] = []

    /// An evaluation on `solution`'s board and rules.
    public init(solution: Solution, symmetric: Bool = false, threads: Int = 1) {
        self.solution = solution
        self.threads = max(1, threads)
        game = SolverGame(rules: solution.rules, objective: solution.objective, symmetric: symmetric)
        enumerator = LayerEnumerator(game: game, threads: self.threads)
    }

    /// The next boards the policy must move on (all of one age, at least one), or `nil` when every board it
    /// reaches has its move.
    public mutating func nextBoards() -> [Board]? {
        nextKeys().map { keys in keys.map(game.grid.board) }
    }

    /// ``nextBoards()`` as keys.
    mutating func nextKeys() -> [UInt64]? {
        precondition(asked.isEmpty, "nextBoards() twice without answer(_:)")
        let game = self.game
        while let states = enumerator.nextStates() {
            let legal = Array(parallelChunks(count: states.count, threads: threads) { range in range.map { game.legalMoves(states[$0]) } }.joined())
            let live = legal.indices.filter { legal[$0] != 0 }
            if live.isEmpty {
                enumerator.follow(legal)
                continue
            }
            self.states = states
            asked = live
            legalMoves = live.map { ActionMask(rawValue: legal[$0]) }
            return live.map { states[$0] }
        }
        return nil
    }

    /// The policy's moves on the boards ``nextBoards()`` gave, in order.
    ///
    /// - Throws: ``PolicyMoveError`` for a count that is not the boards', or no move or an illegal one on a board
    ///   (the first such board).
    public mutating func answer(_ moves: [ActionMask]) throws(PolicyMoveError) {
        precondition(!asked.isEmpty, "answer(_:) before nextBoards()")
        guard moves.count == asked.count else {
            throw PolicyMoveError(description: "the policy gave \(moves.count) moves for \(asked.count) boards")
        }
        let legal = self.legalMoves
        if let position = moves.indices.first(where: { moves[$0].rawValue == 0 || moves[$0].rawValue & ~legal[$0].rawValue != 0 }) {
            let key = states[asked[position]]
            let board = "board \(position) of the batch (exponents \(game.grid.board(key).exponents.map(String.init).joined(separator: ",")))"
            throw PolicyMoveError(
                description: moves[position].rawValue == 0
                    ? "the policy gave no move for \(board)" : "the policy gave \(moves[position]) for \(board), where it is not legal")
        }
        let age = enumerator.age
        let index = KeyIndex(age < solution.layers.count ? solution.layers[age].keys : [])
        let values = age < solution.layers.count ? solution.layers[age].values : []
        let (states, asked, game, solutionGame) = (self.states, self.asked, self.game, solution.game)
        let worse = parallelChunks(count: asked.count, threads: threads) { range in
            range.map { position in
                PolicyEvaluator.suboptimalMoves(
                    of: states[asked[position]], among: moves[position].rawValue, legal: legal[position].rawValue, game: game,
                    canonical: solutionGame.symmetry, index: index, values: values)
            }
        }
        var flags = [UInt8](repeating: 0, count: states.count)
        for (position, worseMoves) in worse.joined().enumerated() {
            flags[asked[position]] = moves[position].rawValue | worseMoves << 4
            if worseMoves != 0 { suboptimal += 1 }
        }
        reachable += asked.count
        self.asked = []
        enumerator.follow(flags)
    }

    /// Which of `chosen` (among `legal`) on `key` are worth less than its best move by more than a millionth, by
    /// the solution's afterstate `values` of the key's age (found through `index` by their `canonical` form).
    static func suboptimalMoves(
        of key: UInt64, among chosen: UInt8, legal: UInt8, game: SolverGame, canonical: PackedSymmetry, index: KeyIndex, values: [Double]
    ) -> UInt8 {
        var worth = SIMD4<Double>(repeating: -.infinity)
        for direction in Direction.allCases where legal & (1 << UInt8(direction.rawValue)) != 0 {
            let move = game.grid.move(key, direction)
            if let position = index.position(of: canonical.canonical(move.afterstate)) {
                worth[direction.rawValue] = game.reward(move.reward) + values[position]
            }
        }
        let best = worth.max()
        guard best.isFinite else { return 0 }
        var worse: UInt8 = 0
        for direction in Direction.allCases where chosen & (1 << UInt8(direction.rawValue)) != 0 {
            let value = worth[direction.rawValue]
            if value.isFinite, value < best - 1e-6 * max(1, best) { worse |= 1 << UInt8(direction.rawValue) }
        }
        return worse
    }

    /// How far the evaluation has come: in the forward pass (``OptimalSolver/Progress/Pass/enumerate``), the
    /// layers (ages) whose boards have their moves, of the solution's, and the afterstates the policy reached.
    public var progress: OptimalSolver.Progress {
        OptimalSolver.Progress(
            pass: .enumerate, layers: enumerator.age, totalLayers: solution.layers.count,
            afterstates: enumerator.layers.afterstateCount, estimatedAfterstates: 0)
    }

    /// The evaluation, once ``nextBoards()`` gave `nil`: by a backward pass over every board the policy reaches,
    /// reported after each layer to `progress` (``OptimalSolver/Progress/Pass/value``).
    public func result(progress: ((OptimalSolver.Progress) -> Void)? = nil) -> PolicyEvaluation {
        precondition(asked.isEmpty && enumerator.isDone, "result() before every board has its move")
        let layers = enumerator.layers
        let totals = BackwardPass.run(
            game: game, layers: layers, valuation: PolicyValuation(game: game), threads: threads
        ) { done in
            progress?(
                OptimalSolver.Progress(
                    pass: .value, layers: done, totalLayers: layers.states.count, afterstates: layers.afterstateCount,
                    estimatedAfterstates: 0))
        }.start
        return PolicyEvaluation(
            expectedScore: totals.score, optimalScore: solution.expectedScore, expectedMoves: totals.moves,
            expectedSuboptimalMoves: totals.suboptimal, reachableStates: reachable, suboptimalStates: suboptimal)
    }
}

/// A policy's expected worth, moves and moves that are not optimal, to come from a board.
struct PolicyTotals: Sendable {
    var score = 0.0
    var moves = 0.0
    var suboptimal = 0.0
}

/// A state is worth the mean over the policy's moves (bits 0–3 of its flags) of the move's reward plus its
/// afterstate's worth; a move is one move, and not optimal when bits 4–7 say so.
struct PolicyValuation: LayerValuation {
    let game: SolverGame
    var zero: PolicyTotals { PolicyTotals() }

    @inline(__always)
    func adding(_ value: PolicyTotals, weight: Double, to total: PolicyTotals) -> PolicyTotals {
        PolicyTotals(
            score: total.score + weight * value.score, moves: total.moves + weight * value.moves,
            suboptimal: total.suboptimal + weight * value.suboptimal)
    }

    func stateValue(_ key: UInt64, flags: UInt8, afterstateValue: (UInt64) -> PolicyTotals) -> PolicyTotals {
        let chosen = flags & 0xF
        guard chosen != 0 else { return PolicyTotals(score: game.terminalValue(key)) }
        let share = 1 / Double(chosen.nonzeroBitCount)
        var total = PolicyTotals()
        for direction in Direction.allCases where chosen & (1 << UInt8(direction.rawValue)) != 0 {
            let move = game.grid.move(key, direction)
            let after = afterstateValue(move.afterstate)
            let worse = flags >> 4 & (1 << UInt8(direction.rawValue)) != 0 ? 1.0 : 0
            total.score += share * (game.reward(move.reward) + after.score)
            total.moves += share * (1 + after.moves)
            total.suboptimal += share * (worse + after.suboptimal)
        }
        return total
    }
}

extension Solution {
    /// The exact evaluation of `policy` (``PolicyEvaluator``), which is asked a batch of boards at a time;
    /// `progress` hears after each batch answered, then after each layer valued.
    public func evaluate(
        symmetric: Bool = false, threads: Int = 1, _ policy: PolicyMoves, progress: ((OptimalSolver.Progress) -> Void)? = nil
    ) throws(PolicyMoveError) -> PolicyEvaluation {
        var evaluator = PolicyEvaluator(solution: self, symmetric: symmetric, threads: threads)
        while let boards = evaluator.nextBoards() {
            try evaluator.answer(policy(boards))
            progress?(evaluator.progress)
        }
        return evaluator.result(progress: progress)
    }

    /// A player's moves, one per board (an n-tuple network's search, the heuristic expectimax, the optimal
    /// player). A player that breaks ties at random is not one of these: give its distribution
    /// (``randomMoves(rules:)``, ``greedyMoves(rules:)``).
    public static func moves(of player: some Player, rules: Rules) -> PolicyMoves {
        var player = player
        return { boards in boards.map { board in player.action(on: board, rules: rules).map(ActionMask.init) ?? [] } }
    }

    /// ``moves(of:rules:)`` on `threads` threads, each with its own player from `makePlayer`: for a player whose
    /// move is a function of the board alone (each of the built-in ones: a search starts each decision afresh),
    /// the same moves, sooner.
    public static func moves(threads: Int, rules: Rules, of makePlayer: @escaping @Sendable () -> any Player) -> PolicyMoves {
        { boards in
            Array(
                parallelChunks(count: boards.count, threads: threads, minimum: 256) { range in
                    var player = makePlayer()
                    return range.map { player.action(on: boards[$0], rules: rules).map(ActionMask.init) ?? [] }
                }.joined())
        }
    }

    /// The random player's moves: every legal move alike (`RandomPlayer`, exactly). Symmetric.
    public static func randomMoves(rules: Rules) -> PolicyMoves {
        { boards in boards.map { legalMoves(on: $0, rules: rules) } }
    }

    /// The greedy player's moves: the legal moves of the largest reward alike (`GreedyPlayer` breaks ties at
    /// random, so this is its exact distribution). Symmetric.
    public static func greedyMoves(rules: Rules) -> PolicyMoves {
        { boards in
            boards.map { board in
                let legal = legalMoves(on: board, rules: rules)
                let rewards = Direction.allCases.map { legal.contains($0) ? board.moved($0).reward : -1 }
                let best = rewards.max() ?? -1
                return ActionMask(rawValue: Direction.allCases.reduce(0) { $0 | (rewards[$1.rawValue] == best ? 1 << UInt8($1.rawValue) : 0) })
            }
        }
    }

    /// The moves the environment takes on `board`: those that change it and merge no tile past the ceiling.
    static func legalMoves(on board: Board, rules: Rules) -> ActionMask {
        ActionMask(
            rawValue: Direction.allCases.reduce(0) { mask, direction in
                let outcome = board.moved(direction)
                return outcome.changed && outcome.highestMerge <= rules.largestExponent ? mask | 1 << UInt8(direction.rawValue) : mask
            })
    }
}
