import Testing
@testable import Game2048

/// The environment's transition restated with ``Board`` alone: `moved`, then
/// `spawnRandomTile` with the same generator, then the mask of the new board.
struct ReferenceGame {
    let rules: Rules
    let fourThreshold: UInt64
    var rng: Xoshiro256StarStar
    var board: Board
    var score: Int64 = 0
    var steps = 0

    /// A new episode seeded like ``Environment/reset(seed:)``: `initialTiles` spawns on an empty board.
    init(rules: Rules, seed: UInt64) {
        self.rules = rules
        fourThreshold = bernoulliThreshold(probability: rules.spawnFourProbability)
        rng = Xoshiro256StarStar(seed: seed)
        board = Board(rules: rules)
        for _ in 0..<rules.initialTiles { board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng) }
    }

    /// A new episode from a given board, like ``Environment/reset(seed:board:)``.
    init(rules: Rules, seed: UInt64, board: Board) {
        self.rules = rules
        fourThreshold = bernoulliThreshold(probability: rules.spawnFourProbability)
        rng = Xoshiro256StarStar(seed: seed)
        self.board = board
    }

    func info(afterstate: Board?, spawn: Spawn?, invalid: Bool) -> StepInfo {
        StepInfo(
            actionMask: board.legalMoves, score: score, maxTile: board.maxTile, steps: steps,
            afterstate: afterstate, spawn: spawn, invalid: invalid, won: won)
    }

    var won: Bool { rules.winExponent.map { board.maxExponent >= $0 } ?? false }

    /// One step under the `.noop` policy.
    mutating func step(_ direction: Direction) -> Step {
        let outcome = board.moved(direction)
        steps += 1
        let truncated = rules.maxSteps.map { steps >= $0 } ?? false
        guard outcome.changed else {
            return Step(
                observation: board, reward: 0, terminated: false, truncated: truncated,
                info: info(afterstate: board, spawn: nil, invalid: true))
        }
        board = outcome.afterstate
        let spawn = board.spawnRandomTile(fourThreshold: fourThreshold, using: &rng)
        score += outcome.reward
        return Step(
            observation: board, reward: outcome.reward, terminated: board.legalMoves.isEmpty || won,
            truncated: truncated, info: info(afterstate: outcome.afterstate, spawn: spawn, invalid: false))
    }
}

struct EnvironmentTests {
    /// The contract lists `render(colored:)`, which once was only on `Board`: the environment renders its board.
    @Test func environmentRendersItsCurrentBoard() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 3))
        let board = try Board(rows: 2, cols: 3, exponents: [1, 0, 7, 0, 2, 0])
        _ = try env.reset(seed: 1, board: board)
        #expect(env.render() == board.render(colored: false))
        #expect(env.render(colored: true) == board.render(colored: true))
        #expect(env.render() != env.render(colored: true))
        #expect(env.render().contains("128"))
    }

    static let variedRules: [Rules] = [
        Rules(),
        try! Rules(rows: 3, cols: 5),
        try! Rules(rows: 2, cols: 2, spawnFourProbability: 0.5, initialTiles: 1),
        try! Rules(rows: 8, cols: 8, spawnFourProbability: 0, initialTiles: 5),
        try! Rules(initialTiles: 16),
    ]

    // MARK: Reset

    @Test(arguments: variedRules)
    func resetPlacesInitialTiles(rules: Rules) {
        var env = Environment(rules: rules)
        #expect(env.currentPhase == .needsReset)
        for seed in UInt64(0)..<20 {
            let start = env.reset(seed: seed)
            #expect(tileCount(start.observation) == rules.initialTiles)
            #expect(start.observation.exponents.allSatisfy { $0 <= 2 })
            #expect(start.observation.rows == rules.rows && start.observation.cols == rules.cols)
            #expect(env.board == start.observation)
            #expect(
                start.info
                    == StepInfo(
                        actionMask: start.observation.legalMoves, score: 0, maxTile: start.observation.maxTile, steps: 0,
                        afterstate: nil, spawn: nil, invalid: false, won: false))
            #expect(env.currentPhase == (start.observation.legalMoves.isEmpty ? .over : .running))
        }
    }

    @Test(arguments: variedRules)
    func resetSpawnsWithTheSeededGenerator(rules: Rules) {
        for seed: UInt64 in [0, 1, 42, .max] {
            var env = Environment(rules: rules)
            #expect(env.reset(seed: seed).observation == ReferenceGame(rules: rules, seed: seed).board)
        }
    }

    @Test func resetWithoutSeedContinuesTheStream() {
        // Gymnasium's check_reset_seed_determinism: seeded reset, then unseeded resets, twice over.
        var a = Environment(), b = Environment()
        let firstA = a.reset(seed: 123), firstB = b.reset(seed: 123)
        let secondA = a.reset(), secondB = b.reset()
        let thirdA = a.reset(), thirdB = b.reset()
        #expect(firstA == firstB)
        #expect(secondA == secondB)
        #expect(thirdA == thirdB)
        // The unseeded resets continue one stream: the same draws as spawning on fresh boards by hand.
        var rng = Xoshiro256StarStar(seed: 123)
        var boards: [Board] = []
        for _ in 0..<3 {
            var board = Board(rules: Rules())
            for _ in 0..<2 { board.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &rng) }
            boards.append(board)
        }
        #expect([firstA.observation, secondA.observation, thirdA.observation] == boards)
        #expect(secondA.observation != firstA.observation)
    }

    @Test func resetWithoutSeedContinuesAfterSteps() throws {
        var a = Environment(), b = Environment()
        a.reset(seed: 5)
        b.reset(seed: 5)
        for action in [Direction.left, .up, .right, .down, .left] {
            #expect(try a.step(action) == b.step(action))
        }
        #expect(a.reset() == b.reset())
    }

    @Test func initializerSeedIsUsedUntilAResetPassesOne() {
        var seeded = Environment(seed: 5), reseeded = Environment(seed: 99)
        #expect(seeded.reset() == reseeded.reset(seed: 5))
    }

    @Test func resetFromBoardKeepsTheBoardAndRejectsOtherSizes() throws {
        var env = Environment()
        let start = board(4, 4, [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2048])
        let reset = try env.reset(seed: 1, board: start)
        #expect(reset.observation == start)
        #expect(reset.info.maxTile == 2048)
        #expect(reset.info.actionMask == start.legalMoves)
        #expect(env.board == start)
        #expect(throws: RulesError.boardSize(rows: 2, cols: 3, expectedRows: 4, expectedCols: 4)) { try env.reset(board: board(2, 3, [0, 0, 0, 0, 0, 0])) }
        #expect(env.board == start)
    }

    // MARK: Determinism and the fast path

    static func randomTrajectory(rules: Rules, seed: UInt64, actionSeed: UInt64, steps: Int) throws -> [Step] {
        var env = Environment(rules: rules)
        env.reset(seed: seed)
        var actions = Xoshiro256StarStar(seed: actionSeed)
        var trajectory: [Step] = []
        while !env.isOver && trajectory.count < steps {
            trajectory.append(try env.step(actions.direction()))
        }
        return trajectory
    }

    @Test func sameSeedAndActionsGiveTheSameTrajectory() throws {
        let rules = try Rules(rows: 4, cols: 5)
        let first = try Self.randomTrajectory(rules: rules, seed: 77, actionSeed: 1, steps: 300)
        let second = try Self.randomTrajectory(rules: rules, seed: 77, actionSeed: 1, steps: 300)
        #expect(first.count > 50)
        #expect(first == second)
        let otherSeed = try Self.randomTrajectory(rules: rules, seed: 78, actionSeed: 1, steps: 300)
        #expect(first != otherSeed)
    }

    /// Plays `env` and the reference loop with the same random actions (illegal
    /// ones included) and records every step that differs.
    static func compareWithReference(
        _ env: inout Environment, _ reference: inout ReferenceGame, actionSeed: UInt64, maxSteps: Int
    ) throws -> (steps: Int, failures: [String]) {
        var actions = Xoshiro256StarStar(seed: actionSeed)
        var failures: [String] = []
        var count = 0
        while !env.isOver && count < maxSteps {
            let action = actions.direction()
            let step = try env.step(action)
            let expected = reference.step(action)
            if step != expected { failures.append("step \(count) \(action): \(step) vs \(expected)") }
            if step.terminated || step.truncated { break }
            count += 1
        }
        if env.board != reference.board || env.score != reference.score || env.steps != reference.steps {
            failures.append("final state differs")
        }
        return (count, failures)
    }

    @Test(arguments: 0..<4)
    func fastPathEqualsGenericPathOnSeededEpisodes(part: Int) throws {
        var failures: [String] = []
        var total = 0
        for game in 0..<25 {
            let seed = UInt64(part * 1000 + game)
            var env = Environment()
            env.reset(seed: seed)
            var reference = ReferenceGame(rules: Rules(), seed: seed)
            let result = try Self.compareWithReference(&env, &reference, actionSeed: seed &+ 5000, maxSteps: 10_000)
            failures += result.failures.map { "seed \(seed) \($0)" }
            total += result.steps
        }
        #expect(total > 25 * 50)
        expectNoFailures(failures)
    }

    @Test(arguments: [
        try! Rules(rows: 2, cols: 2),
        try! Rules(rows: 3, cols: 5, spawnFourProbability: 0.3),
        try! Rules(rows: 8, cols: 8, maxSteps: 400),
        try! Rules(rows: 5, cols: 2, initialTiles: 3, winTile: 64),
        try! Rules(maxSteps: 60),
    ])
    func genericSizesFollowTheReference(rules: Rules) throws {
        var failures: [String] = []
        for seed in UInt64(0)..<10 {
            var env = Environment(rules: rules)
            env.reset(seed: seed)
            var reference = ReferenceGame(rules: rules, seed: seed)
            failures += try Self.compareWithReference(&env, &reference, actionSeed: seed + 99, maxSteps: 10_000).failures
        }
        expectNoFailures(failures)
    }

    /// Boards near the fast path's limit: 16 384s and 32 768s, so that episodes
    /// leave the bitboard mid-game.
    @Test func fastPathLeavesTheBitboardWithoutChangingTheTrajectory() throws {
        var failures: [String] = []
        var rng = Xoshiro256StarStar(seed: 90)
        var switched = 0
        for seed in UInt64(0)..<40 {
            var start = randomBoard(rows: 4, cols: 4, exponents: 1...6, emptyShare: 0.5, using: &rng)
            // Two adjacent 16 384s in a row: about every other episode merges them.
            let pair = rng.uniform(below: 4) * 4 + rng.uniform(below: 3)
            start[pair] = 14
            start[pair + 1] = 14
            if seed % 2 == 0 { start[(pair + 8) % 16] = 13 }
            var env = Environment()
            try env.reset(seed: seed, board: start)
            guard !env.isOver else { continue }
            var reference = ReferenceGame(rules: Rules(), seed: seed, board: start)
            failures += try Self.compareWithReference(&env, &reference, actionSeed: seed, maxSteps: 10_000).failures
            if env.board.maxExponent >= 15 { switched += 1 }
        }
        #expect(switched > 5)
        expectNoFailures(failures)
    }

    // MARK: The mask and the spawn

    @Test func maskIsThatOfTheObservationAfterTheSpawn() throws {
        // Regression (jumanji): the afterstate [4 8 / . 16] allows down and left, but
        // the spawned 2 fills the gap and leaves no legal move.
        var env = Environment(rules: try Rules(rows: 2, cols: 2, spawnFourProbability: 0))
        try env.reset(seed: 1, board: board(2, 2, [2, 8, 2, 16]))
        let step = try env.step(.up)
        #expect(step.info.afterstate == board(2, 2, [4, 8, 0, 16]))
        #expect(step.info.afterstate?.legalMoves == [.down, .left])
        #expect(step.observation == board(2, 2, [4, 8, 2, 16]))
        #expect(step.info.actionMask == [])
        #expect(env.actionMask == [])
        #expect(step.terminated)
    }

    @Test func maskMatchesTheObservationOnEveryStep() throws {
        for rules in [Rules(), try Rules(rows: 3, cols: 3)] {
            for seed in UInt64(0)..<10 {
                for step in try Self.randomTrajectory(rules: rules, seed: seed, actionSeed: seed, steps: 2_000) {
                    #expect(step.info.actionMask == step.observation.legalMoves)
                    #expect(step.info.actionMask == Reference.legalMoves(step.observation))
                }
            }
        }
    }

    @Test func spawnLandsOnAnEmptyCellOfTheAfterstate() throws {
        // Regression: the spawn is drawn from the empty cells after the move, never from a count kept before it.
        var freedCellsUsed = 0
        for rules in [Rules(), try Rules(rows: 3, cols: 4)] {
            for seed in UInt64(0)..<10 {
                var env = Environment(rules: rules)
                var before = env.reset(seed: seed).observation
                var actions = Xoshiro256StarStar(seed: seed)
                for _ in 0..<5_000 where !env.isOver {
                    let step = try env.step(actions.direction())
                    if let spawn = step.info.spawn {
                        let afterstate = try #require(step.info.afterstate)
                        #expect(afterstate[spawn.cell] == 0)
                        var expected = afterstate
                        expected[spawn.cell] = spawn.exponent
                        #expect(step.observation == expected)
                        if before[spawn.cell] != 0 { freedCellsUsed += 1 }
                    } else {
                        #expect(step.info.invalid)
                    }
                    before = step.observation
                }
            }
        }
        #expect(freedCellsUsed > 0)
    }

    // MARK: Illegal actions

    /// A 4×4 board (the packed path) and a 3×5 board (the generic path) on which left and up are illegal.
    static let illegalCases: [(Rules, Board)] = [
        (Rules(), board(4, 4, [2, 4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
        (try! Rules(rows: 3, cols: 5), board(3, 5, [2, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
    ]

    @Test(arguments: illegalCases)
    func illegalMoveLeavesBoardAndRNGUntouched(rules: Rules, start: Board) throws {
        var env = Environment(rules: rules)
        try env.reset(seed: 8, board: start)
        var twin = env
        let step = try env.step(.left)
        #expect(step.observation == start)
        #expect(step.reward == 0)
        #expect(!step.terminated && !step.truncated)
        #expect(step.info.invalid)
        #expect(step.info.spawn == nil)
        #expect(step.info.afterstate == start)
        #expect(step.info.steps == 1)
        #expect(step.info.actionMask == start.legalMoves)
        #expect(env.steps == 1)
        #expect(env.rng == twin.rng)
        #expect(env.board == twin.board)
        #expect(env.currentPhase == .running)
        // The next legal step is the one the twin, which never tried the illegal move, takes.
        var next = try env.step(.right)
        let twinNext = try twin.step(.right)
        #expect(next.info.steps == 2)
        next.info.steps = 1
        #expect(next == twinNext)
    }

    @Test(arguments: [Int64(7), 0])
    func terminatePolicyEndsTheEpisodeWithMinusPenalty(penalty: Int64) throws {
        var env = Environment(rules: try Rules(invalidAction: .terminate(penalty: penalty)))
        let start = Self.illegalCases[0].1
        try env.reset(seed: 2, board: start)
        let rng = env.rng
        let step = try env.step(.up)
        #expect(step.reward == -penalty)
        #expect(step.terminated)
        #expect(!step.truncated)
        #expect(step.info.invalid)
        #expect(step.observation == start)
        #expect(step.info.spawn == nil)
        #expect(env.isOver)
        #expect(env.rng == rng)
    }

    @Test func rejectPolicyThrowsAndChangesNothing() throws {
        var env = Environment(rules: try Rules(invalidAction: .reject))
        let start = Self.illegalCases[0].1
        try env.reset(seed: 2, board: start)
        let twin = env
        #expect(throws: StepError.illegalAction(.left)) { try env.step(.left) }
        #expect(throws: StepError.illegalAction(.up)) { try env.step(action: 0) }
        #expect(env.steps == 0)
        #expect(env.board == start)
        #expect(env.rng == twin.rng)
        #expect(env.currentPhase == .running)
        var copy = twin
        #expect(try env.step(.down) == copy.step(.down))
    }

    // MARK: End conditions

    @Test func maxStepsTruncates() throws {
        var env = Environment(rules: try Rules(maxSteps: 3))
        try env.reset(seed: 4, board: Self.illegalCases[0].1)
        let first = try env.step(.left)  // illegal: still counts
        #expect(first.info.invalid && !first.truncated)
        let second = try env.step(.right)
        #expect(!second.truncated && !second.terminated)
        let third = try env.step(.down)
        #expect(third.truncated)
        #expect(!third.terminated)
        #expect(third.info.steps == 3)
        #expect(env.isOver)
        #expect(env.currentPhase == .over)
    }

    @Test func truncationIsReportedEvenWhenTheSameStepTerminates() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 2, spawnFourProbability: 0, maxSteps: 1))
        try env.reset(seed: 1, board: board(2, 2, [2, 8, 2, 16]))
        let step = try env.step(.up)
        #expect(step.terminated)
        #expect(step.truncated)
    }

    @Test func winTileTerminatesAndSetsWon() throws {
        var env = Environment(rules: try Rules(winTile: 8))
        try env.reset(seed: 3, board: board(4, 4, [4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
        #expect(!env.info.won)
        let step = try env.step(.left)
        #expect(step.reward == 8)
        #expect(step.terminated)
        #expect(step.info.won)
        #expect(!step.info.actionMask.isEmpty)
        #expect(env.isOver)
        // A board that already holds the win tile is over at once.
        let again = try env.reset(seed: 3, board: board(4, 4, [8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]))
        #expect(again.info.won)
        #expect(env.isOver)
    }

    @Test func spawnedFourCanWin() throws {
        // With fours certain and a win tile of 4, the first reset already holds a 4.
        var env = Environment(rules: try Rules(spawnFourProbability: 1, winTile: 4))
        let start = env.reset(seed: 6)
        #expect(start.info.won)
        #expect(start.info.maxTile == 4)
        #expect(env.isOver)
        // And a spawned 4 after a move counts too.
        var stepper = Environment(rules: try Rules(spawnFourProbability: 1, winTile: 4))
        try stepper.reset(seed: 6, board: board(4, 4, [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
        let step = try stepper.step(.right)
        #expect(step.info.spawn?.exponent == 2)
        #expect(step.info.won)
        #expect(step.info.maxTile == 4)
        #expect(step.terminated)
    }

    @Test func terminatedWhenNoLegalMoveRemains() throws {
        // Only column 0 has a pair; moving up merges it and the spawned 2 fills the last gap.
        var env = Environment(rules: try Rules(spawnFourProbability: 0))
        let start = board(
            4, 4,
            [
                64, 4, 32, 4,
                64, 32, 4, 32,
                8, 4, 32, 4,
                16, 32, 4, 32,
            ])
        let reset = try env.reset(seed: 1, board: start)
        #expect(reset.info.actionMask == [.up, .down])
        let step = try env.step(.up)
        #expect(
            step.observation
                == board(
                    4, 4,
                    [
                        128, 4, 32, 4,
                        8, 32, 4, 32,
                        16, 4, 32, 4,
                        2, 32, 4, 32,
                    ]))
        #expect(step.reward == 128)
        #expect(step.terminated)
        #expect(!step.truncated)
        #expect(step.info.actionMask.isEmpty)
        #expect(step.info.spawn == Spawn(cell: 12, exponent: 1))
        #expect(env.isOver)
        #expect(env.score == 128)
    }

    @Test func fullBoardWithoutMovesIsOverAtReset() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 2))
        let reset = try env.reset(board: board(2, 2, [2, 4, 4, 2]))
        #expect(reset.info.actionMask.isEmpty)
        #expect(env.isOver)
    }

    // MARK: Large tiles

    @Test func merging32768sThroughTheEnvironmentGives65536() throws {
        var env = Environment()
        let start = board(
            4, 4,
            [
                32768, 32768, 0, 0,
                0, 0, 0, 0,
                0, 0, 2, 0,
                0, 0, 0, 0,
            ])
        try env.reset(seed: 1, board: start)
        #expect(env.info.maxTile == 32768)
        let step = try env.step(.left)
        #expect(step.reward == 65536)
        #expect(step.observation[0] == 16)
        #expect(step.info.afterstate?[0] == 16)
        #expect(step.info.maxTile == 65536)
        #expect(step.info.score == 65536)
        #expect(env.board[0] == 16)
    }

    @Test func environmentSwitchesToTheGenericBoardWhenA32768Appears() throws {
        var env = Environment()
        try env.reset(
            seed: 2,
            board: board(
                4, 4,
                [
                    16384, 16384, 0, 0,
                    16384, 16384, 0, 0,
                    0, 0, 0, 0,
                    0, 0, 0, 0,
                ]))
        guard env.isPacked else { Issue.record("expected the packed fast path"); return }
        let left = try env.step(.left)
        #expect(left.reward == 65536)
        #expect(left.info.maxTile == 32768)
        guard !env.isPacked else { Issue.record("expected the generic board after a 32768"); return }
        let up = try env.step(.up)
        #expect(up.reward == 65536)
        #expect(up.observation[0] == 16)
        #expect(up.info.maxTile == 65536)
        #expect(env.score == 131072)
    }

    // MARK: Lookahead

    @Test func afterstatesAgreeWithMovedAndChangeNothing() throws {
        for rules in [Rules(), try Rules(rows: 3, cols: 5)] {
            var env = Environment(rules: rules)
            env.reset(seed: 12)
            var actions = Xoshiro256StarStar(seed: 12)
            for _ in 0..<5_000 where !env.isOver {
                let before = env
                let board = env.board
                let expected = Direction.allCases.map { d in
                    let outcome = board.moved(d)
                    return Afterstate(direction: d, legal: outcome.changed, reward: outcome.reward, board: outcome.afterstate)
                }
                #expect(env.afterstates() == expected)
                for d in Direction.allCases {
                    #expect(env.afterstate(d) == expected[d.rawValue])
                    #expect(env.movements(d) == board.movements(d))
                }
                #expect(env.rng == before.rng)
                #expect(env.board == before.board)
                #expect(env.steps == before.steps)
                #expect(env.actionMask == before.actionMask)
                _ = try env.step(actions.direction())
            }
        }
    }

    // MARK: Bookkeeping

    @Test func scoreAndStepsAccumulate() throws {
        var env = Environment()
        env.reset(seed: 31)
        var actions = Xoshiro256StarStar(seed: 31)
        var total: Int64 = 0, count = 0
        for _ in 0..<5_000 where !env.isOver {
            let step = try env.step(actions.direction())
            total += step.reward
            count += 1
            #expect(step.info.score == total)
            #expect(step.info.steps == count)
            #expect(step.info.maxTile == step.observation.maxTile)
        }
        #expect(env.isOver)
        #expect(env.score == total)
        #expect(env.steps == count)
        env.reset()
        #expect(env.score == 0)
        #expect(env.steps == 0)
    }

    @Test(arguments: Direction.allCases)
    func stepByIndexEqualsStepByDirection(direction: Direction) throws {
        var a = Environment(), b = Environment()
        a.reset(seed: 40)
        b.reset(seed: 40)
        #expect(try a.step(action: direction.rawValue) == b.step(direction))
    }

    @Test func infoBeforeResetIsEmpty() {
        let env = Environment()
        #expect(env.currentPhase == .needsReset)
        #expect(!env.isOver)
        #expect(env.info == StepInfo(actionMask: [], score: 0, maxTile: 0, steps: 0, afterstate: nil, spawn: nil, invalid: false, won: false))
        #expect(env.board == Board(rules: Rules()))
    }

    // MARK: Programming errors

    @Test func stepBeforeResetIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var env = Environment()
            _ = try? env.step(.left)
        }
    }

    @Test func stepAfterTheEpisodeEndedIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var env = Environment(rules: try! Rules(maxSteps: 1))
            env.reset(seed: 1)
            _ = try? env.step(.left)
            _ = try? env.step(.left)
        }
    }

    @Test func actionIndexOutOfRangeIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var env = Environment()
            env.reset(seed: 1)
            _ = try? env.step(action: 4)
        }
    }
}
