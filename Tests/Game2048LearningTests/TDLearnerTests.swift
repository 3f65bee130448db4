import Game2048
import Testing
@testable import Game2048Learning

struct TDLearnerTests {
    /// TD(0) written out plainly on `Board`s with a dictionary of weights: the oracle. A win tile ends
    /// the game (the board that holds it is terminal: its afterstate learns toward 0) and the step limit
    /// cuts it (its last afterstate is not updated), as the environment's episodes end.
    static func referenceGame(
        rules: Rules, patterns: [TuplePattern]?, seed: UInt64, schedule: TDLearner.Schedule
    ) -> (weights: [Int: Float], score: Int64, moves: Int, won: Bool) {
        let shape = NTupleNetwork(rows: rules.rows, cols: rules.cols, patterns: patterns)
        var weights: [Int: Float] = [:]
        let step = Float(0.1) / Float(shape.featureCount)
        func value(_ board: Board) -> Float { shape.featureIndices(of: board).reduce(0) { $0 + weights[$1, default: 0] } }
        func update(_ board: Board, _ delta: Float) { for i in shape.featureIndices(of: board) { weights[i, default: 0] += delta } }
        var rng = Xoshiro256StarStar(seed: seed)
        let fours = bernoulliThreshold(probability: rules.spawnFourProbability)
        var board = Board(rules: rules)
        for _ in 0..<rules.initialTiles { board.spawnRandomTile(fourThreshold: fours, using: &rng) }
        var previous: Board? = nil
        var score: Int64 = 0
        var path: [(Board, Float)] = []
        var moves = 0, truncated = false
        let won = { (board: Board) in rules.winExponent.map { board.maxExponent >= $0 } ?? false }
        while !won(board) {
            var best: MoveOutcome<Board>? = nil, bestValue = -Float.infinity
            for d in Direction.allCases {
                let o = board.moved(d)
                if o.changed && Float(o.reward) + value(o.afterstate) > bestValue { (best, bestValue) = (o, Float(o.reward) + value(o.afterstate)) }
            }
            if schedule == .forward, let previous { update(previous, step * ((best == nil ? 0 : bestValue) - value(previous))) }
            guard let best else { break }
            path.append((best.afterstate, Float(best.reward)))
            score += best.reward
            moves += 1
            previous = best.afterstate
            board = best.afterstate
            if won(board) { break }
            if moves == rules.maxSteps { truncated = true; break }
            board.spawnRandomTile(fourThreshold: fours, using: &rng)
            if won(board) { break }
        }
        if schedule == .forward, !truncated, let previous, won(board) { update(previous, step * (0 - value(previous))) }
        if schedule == .backward {
            // Last afterstate first; each target uses the value just updated after it.
            var target: Float = 0
            if truncated, let (afterstate, reward) = path.popLast() { target = reward + value(afterstate) }
            for (afterstate, reward) in path.reversed() {
                update(afterstate, step * (target - value(afterstate)))
                target = reward + value(afterstate)
            }
        }
        return (weights, score, moves, won(board))
    }

    @Test(arguments: [(2, 3, TDLearner.Schedule.forward), (3, 3, .forward), (4, 4, .forward), (3, 3, .backward), (4, 4, .backward)])
    func trainingGameMatchesAPlainTDOracle(rows: Int, cols: Int, schedule: TDLearner.Schedule) throws {
        let rules = try Rules(rows: rows, cols: cols)
        // Small custom patterns on 4×4 keep the oracle's dictionary small; they still use the bitboard path.
        let patterns = rows == 4 ? [TuplePattern(cells: [0, 1, 2]), TuplePattern(cells: [1, 5, 6])] : nil
        let fresh = NTupleNetwork(rows: rows, cols: cols, patterns: patterns)
        let single = TDLearner(network: fresh, rules: rules, alpha: 0.1, schedule: schedule)
        var rng = Xoshiro256StarStar(seed: 7)
        let result = single.trainGame(using: &rng)
        let oracle = Self.referenceGame(rules: rules, patterns: patterns, seed: 7, schedule: schedule)
        #expect(result.score == oracle.score)
        for (index, weight) in oracle.weights { #expect(abs(fresh.weights[index] - weight) <= 1e-3 * max(1, abs(weight)), "weight \(index)") }
        let touched = (0..<fresh.weights.count).count { fresh.weights[$0] != 0 }
        #expect(touched <= oracle.weights.count)
        #expect(touched > 0)
    }

    /// The learner once ignored the rules' win tile and step limit: it now ends and cuts games as the
    /// environment does, on both board representations and both schedules, weight for weight with the oracle.
    @Test(
        arguments: [
            (3, 3, 64, nil, TDLearner.Schedule.forward), (3, 3, 64, nil, .backward), (4, 4, 128, nil, .forward), (4, 4, 128, nil, .backward),
            (3, 3, nil, 20, .forward), (3, 3, nil, 20, .backward), (4, 4, nil, 30, .forward), (4, 4, nil, 30, .backward),
            (2, 3, 4, nil, .forward), (4, 4, 4, nil, .backward),
        ] as [(Int, Int, Int?, Int?, TDLearner.Schedule)])
    func trainingHonoursTheWinTileAndTheStepLimit(rows: Int, cols: Int, winTile: Int?, maxSteps: Int?, schedule: TDLearner.Schedule) throws {
        let rules = try Rules(rows: rows, cols: cols, winTile: winTile, maxSteps: maxSteps)
        let patterns = rows == 4 ? [TuplePattern(cells: [0, 1, 2]), TuplePattern(cells: [1, 5, 6])] : nil
        // On 4×4 with forward updates the oracle's sums, in another order, can flip a near-tie between
        // two moves in some games; seed 7 is one where they agree move for move (as in the test above).
        for seed in rows == 4 && schedule == .forward ? [7] : [UInt64(1), 2, 3, 4] {
            let fresh = NTupleNetwork(rows: rows, cols: cols, patterns: patterns)
            var rng = Xoshiro256StarStar(seed: seed)
            let result = TDLearner(network: fresh, rules: rules, alpha: 0.1, schedule: schedule).trainGame(using: &rng)
            let oracle = Self.referenceGame(rules: rules, patterns: patterns, seed: seed, schedule: schedule)
            #expect(result.score == oracle.score && result.moves == oracle.moves, "seed \(seed)")
            if let winTile { #expect(result.maxTile <= winTile && (oracle.won ? result.maxTile == winTile : true)) }
            if let maxSteps { #expect(result.moves == maxSteps) }
            for (index, weight) in oracle.weights { #expect(abs(fresh.weights[index] - weight) <= 1e-3 * max(1, abs(weight)), "weight \(index)") }
            #expect((0..<fresh.weights.count).count { fresh.weights[$0] != 0 } <= oracle.weights.count)
        }
    }

    @Test func sameSeedSameTraining() throws {
        func train() -> [Float] {
            let network = NTupleNetwork(rows: 3, cols: 3)
            let loop = TrainingLoop(learner: TDLearner(network: network, rules: try! Rules(rows: 3, cols: 3)), gamesBefore: 0)
            loop.run(TrainingPlan(games: 300, threads: 1, seed: 11)) { _, _ in true }
            return (0..<network.weights.count).map { network.weights[$0] }
        }
        #expect(train() == train())
    }

    @Test func shortTrainingOnThreeByThreeBeatsRandomPlayByAClearMargin() throws {
        let rules = try Rules(rows: 3, cols: 3)
        let network = NTupleNetwork(rows: 3, cols: 3)
        let loop = TrainingLoop(learner: TDLearner(network: network, rules: rules), gamesBefore: 0)
        #expect(loop.run(TrainingPlan(games: 2_000, threads: 1, seed: 1)) { _, _ in true } == 2_000)
        let learned = Evaluation.run(rules: rules, games: 300, seed: 5, threads: 2) { _ in SearchPlayer(network: network, depth: 0) }
        let random = Evaluation.run(rules: rules, games: 300, seed: 5, threads: 2) { RandomPlayer(seed: UInt64($0)) }
        #expect(learned.meanScore > 3 * random.meanScore, "learned \(learned.meanScore) vs random \(random.meanScore)")
    }

    @Test func threadsShareOneNetworkAndStopAtTheGameLimit() throws {
        let network = NTupleNetwork(rows: 3, cols: 3)
        let loop = TrainingLoop(learner: TDLearner(network: network, rules: try Rules(rows: 3, cols: 3)), gamesBefore: 100)
        let played = loop.run(TrainingPlan(games: 700, threads: 2, seed: 3)) { _, total in total <= 700 }
        #expect(played == 600)
    }

    @Test func onGameCanStopARunEarly() throws {
        let loop = TrainingLoop(learner: TDLearner(network: NTupleNetwork(rows: 2, cols: 2), rules: try Rules(rows: 2, cols: 2)), gamesBefore: 0)
        #expect(loop.run(TrainingPlan(threads: 1, seed: 1)) { _, total in total < 50 } == 50)
    }

    /// The one training loop plays the same games on a 4×4 ``Board`` as on the packed ``Bitboard``, and learns the
    /// same weights, with either schedule and with stages (the loop was once written twice, once per board).
    @Test(arguments: [(TDLearner.Schedule.forward, false), (.backward, false), (.forward, true)])
    func packedAndGenericBoardsTrainAlike(schedule: TDLearner.Schedule, staged: Bool) throws {
        func run<B: LearnableBoard>(_ type: B.Type) throws -> ([GameResult], [Float]) {
            let network = NTupleNetwork(
                rows: 4, cols: 4, patterns: [TuplePattern(cells: [0, 1, 2]), TuplePattern(cells: [1, 5, 6])],
                initialValue: 10, stageThresholds: staged ? [7] : [])
            let learner = TDLearner(network: network, rules: try Rules(rows: 4, cols: 4), schedule: schedule)
            var rng = Xoshiro256StarStar(seed: 21)
            let results = (0..<30).map { _ in learner.trainGame(on: type, using: &rng) }
            return (results, (0..<network.weights.count).map { network.weights[$0] })
        }
        let packed = try run(Bitboard.self), generic = try run(Board.self)
        #expect(packed.0 == generic.0)
        #expect(packed.1 == generic.1)
    }
}
