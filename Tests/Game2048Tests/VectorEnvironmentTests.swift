import Testing
@testable import Game2048

struct VectorEnvironmentTests {
    /// What one environment of the batch should report after a step.
    struct Expected: Equatable {
        var observation: Board
        var reward: Int64
        var terminated: Bool
        var truncated: Bool
        var info: StepInfo
        var finalObservation: Board?
    }

    static func reported(_ envs: VectorEnvironment, _ index: Int) -> Expected {
        Expected(
            observation: envs.observation(at: index), reward: envs.rewards[index],
            terminated: envs.terminations[index], truncated: envs.truncations[index],
            info: envs.infos[index], finalObservation: envs.finalObservations[index])
    }

    static func singles(rules: Rules, seed: UInt64, count: Int) -> [Environment] {
        VectorEnvironment.seeds(from: seed, count: count).map { s in
            var env = Environment(rules: rules)
            env.reset(seed: s)
            return env
        }
    }

    // MARK: Seeding

    @Test func seedsAreTheSplitMix64Outputs() {
        #expect(
            VectorEnvironment.seeds(from: 0, count: 4) == [
                0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC,
            ])
        var mixer = SplitMix64(seed: 42)
        let expected = (0..<100).map { _ in mixer.next() }
        #expect(VectorEnvironment.seeds(from: 42, count: 100) == expected)
        #expect(VectorEnvironment.seeds(from: 42, count: 0).isEmpty)
    }

    @Test(arguments: [Rules(), try! Rules(rows: 3, cols: 5)])
    func resetSeedsEnvironmentIWithTheIthSeed(rules: Rules) {
        var envs = VectorEnvironment(rules: rules, count: 8)
        envs.reset(seed: 11)
        let seeds = VectorEnvironment.seeds(from: 11, count: 8)
        for i in 0..<8 {
            var single = Environment(rules: rules)
            let start = single.reset(seed: seeds[i])
            #expect(
                Self.reported(envs, i)
                    == Expected(
                        observation: start.observation, reward: 0, terminated: false, truncated: false, info: start.info, finalObservation: nil))
            #expect(envs.environment(at: i).board == start.observation)
            #expect(envs.environment(at: i).rng == single.rng)
        }
        #expect(envs.observations.count == 8 * rules.cellCount)
    }

    @Test(arguments: [Rules(), try! Rules(rows: 3, cols: 5)])
    func perEnvironmentSeedsStartEachAsASingleResetWithThatSeedAndNilContinues(rules: Rules) throws {
        var envs = VectorEnvironment(rules: rules, count: 4)
        envs.reset(seed: 3)
        var continued = Self.singles(rules: rules, seed: 3, count: 4)
        let seeds: [UInt64?] = [7, nil, UInt64.max, 7]
        envs.reset(seeds: seeds)
        for i in 0..<4 {
            var single = Environment(rules: rules)
            let start = seeds[i].map { single.reset(seed: $0) } ?? continued[i].reset()
            #expect(
                Self.reported(envs, i)
                    == Expected(
                        observation: start.observation, reward: 0, terminated: false, truncated: false, info: start.info, finalObservation: nil))
            #expect(envs.environment(at: i).rng == (seeds[i] == nil ? continued[i].rng : single.rng))
        }
        // The same seeds with a board: each environment as a single reset to that board with its seed.
        let board = try Board(rows: rules.rows, cols: rules.cols, values: [2, 2] + Array(repeating: 0, count: rules.cellCount - 2))
        try envs.reset(seeds: [1, 2, 3, nil], board: board)
        for i in 0..<3 {
            var single = Environment(rules: rules)
            _ = try single.reset(seed: UInt64(i + 1), board: board)
            #expect(envs.environment(at: i).rng == single.rng)
            #expect(envs.observation(at: i) == board)
        }
        #expect(throws: RulesError.self) { try envs.reset(seeds: [1, 2, 3, 4], board: Board(rows: 2, cols: 2)) }
    }

    @Test func initializerSeedMatchesAResetWithThatSeed() {
        var fromInit = VectorEnvironment(count: 5, seed: 9)
        var fromReset = VectorEnvironment(count: 5)
        fromInit.reset()
        fromReset.reset(seed: 9)
        #expect(fromInit.observations == fromReset.observations)
        #expect(fromInit.infos == fromReset.infos)
    }

    @Test func unseededResetContinuesEachStream() {
        var envs = VectorEnvironment(count: 3)
        envs.reset(seed: 21)
        envs.reset()
        var singles = Self.singles(rules: Rules(), seed: 21, count: 3)
        for i in 0..<3 {
            #expect(envs.observation(at: i) == singles[i].reset().observation)
        }
    }

    @Test func resetToABoardStartsEveryEnvironmentFromIt() throws {
        let start = board(4, 4, [2, 2, 0, 0, 0, 4, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0])
        var envs = VectorEnvironment(count: 4)
        try envs.reset(seed: 3, board: start)
        let seeds = VectorEnvironment.seeds(from: 3, count: 4)
        var singles: [Environment] = []
        for i in 0..<4 {
            var single = Environment()
            let reset = try single.reset(seed: seeds[i], board: start)
            #expect(
                Self.reported(envs, i)
                    == Expected(
                        observation: start, reward: 0, terminated: false, truncated: false, info: reset.info, finalObservation: nil))
            singles.append(single)
        }
        try envs.step([.left, .left, .left, .left])
        for i in 0..<4 {
            let step = try singles[i].step(.left)
            #expect(envs.observation(at: i) == step.observation)
            #expect(envs.rewards[i] == 4)
        }
        let before = envs.observations
        #expect(throws: RulesError.boardSize(rows: 2, cols: 3, expectedRows: 4, expectedCols: 4)) {
            try envs.reset(board: board(2, 3, [2, 0, 0, 0, 0, 0]))
        }
        #expect(envs.observations == before)
    }

    // MARK: Autoreset

    /// Drives the batch and independent environments with the same random
    /// actions, applying the mode's autoreset rule to the independent ones by hand.
    @Test(
        arguments: [AutoresetMode.nextStep, .sameStep],
        [
            try! Rules(rows: 2, cols: 2),  // short episodes that terminate
            try! Rules(maxSteps: 15),  // truncation
            try! Rules(rows: 3, cols: 3, winTile: 32),
        ])
    func batchEqualsIndependentEnvironmentsWithTheModesAutoreset(mode: AutoresetMode, rules: Rules) throws {
        let count = 6
        var envs = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        envs.reset(seed: 5)
        var singles = Self.singles(rules: rules, seed: 5, count: count)
        var pendingReset = [Bool](repeating: false, count: count)
        var actionRNG = Xoshiro256StarStar(seed: 6)
        var endings = 0
        for t in 0..<300 {
            let actions = (0..<count).map { _ in actionRNG.direction() }
            try envs.step(actions)
            for i in 0..<count {
                var expected: Expected
                if pendingReset[i] {
                    let start = singles[i].reset()
                    expected = Expected(observation: start.observation, reward: 0, terminated: false, truncated: false, info: start.info, finalObservation: nil)
                    pendingReset[i] = false
                } else {
                    let step = try singles[i].step(actions[i])
                    expected = Expected(
                        observation: step.observation, reward: step.reward, terminated: step.terminated,
                        truncated: step.truncated, info: step.info, finalObservation: nil)
                    if step.terminated || step.truncated {
                        endings += 1
                        switch mode {
                        case .nextStep: pendingReset[i] = true
                        case .sameStep:
                            let start = singles[i].reset()
                            expected.observation = start.observation
                            expected.info = start.info
                            expected.finalObservation = step.observation
                        case .disabled: Issue.record("not a mode under test")
                        }
                    }
                }
                #expect(Self.reported(envs, i) == expected, "t \(t) env \(i)")
            }
        }
        #expect(endings > 10)
    }

    @Test func nextStepResetsOnTheStepAfterTheEndAndIgnoresTheAction() throws {
        let rules = try Rules(maxSteps: 2)
        var envs = VectorEnvironment(rules: rules, count: 2)
        envs.reset(seed: 3)
        var singles = Self.singles(rules: rules, seed: 3, count: 2)
        for _ in 0..<2 {
            try envs.step([.left, .down])
            for i in 0..<2 { _ = try singles[i].step(i == 0 ? .left : .down) }
        }
        #expect(envs.truncations == [true, true])
        #expect(envs.observation(at: 0) == singles[0].board)
        // The step after the end: any action, reset, reward 0, both flags false.
        var other = envs
        try envs.step([.left, .left])
        try other.step([.up, .right])
        #expect(envs.observations == other.observations)
        #expect(envs.infos == other.infos)
        for i in 0..<2 {
            let start = singles[i].reset()
            #expect(envs.observation(at: i) == start.observation)
            #expect(envs.rewards[i] == 0)
            #expect(!envs.terminations[i] && !envs.truncations[i])
            #expect(envs.infos[i] == start.info)
            #expect(envs.infos[i].steps == 0)
        }
        // And the episode goes on from the new board.
        try envs.step([.right, .up])
        #expect(envs.infos[0] == (try singles[0].step(.right)).info)
    }

    @Test func sameStepReportsTheFinalBoardAndTheNewFirstBoard() throws {
        let rules = try Rules(maxSteps: 2)
        var envs = VectorEnvironment(rules: rules, count: 3, autoresetMode: .sameStep)
        envs.reset(seed: 4)
        var singles = Self.singles(rules: rules, seed: 4, count: 3)
        try envs.step([.left, .left, .left])
        #expect(envs.finalObservations == [nil, nil, nil])
        #expect(envs.finalInfos == [nil, nil, nil])
        for i in 0..<3 { _ = try singles[i].step(.left) }
        try envs.step([.up, .up, .up])
        for i in 0..<3 {
            let last = try singles[i].step(.up)
            let start = singles[i].reset()
            #expect(envs.finalObservations[i] == last.observation)
            // The final step's info keeps what the new episode's info no longer has: its score and steps.
            #expect(envs.finalInfos[i] == last.info)
            #expect(envs.observation(at: i) == start.observation)
            #expect(envs.rewards[i] == last.reward)
            #expect(envs.truncations[i])
            #expect(envs.infos[i] == start.info)
        }
        try envs.step([.right, .right, .right])
        #expect(envs.finalObservations == [nil, nil, nil])
        #expect(envs.truncations == [false, false, false])
        #expect(envs.infos.allSatisfy { $0.steps == 1 })
    }

    @Test func disabledModeWaitsForResetIndex() throws {
        let rules = try Rules(maxSteps: 1)
        var envs = VectorEnvironment(rules: rules, count: 2, autoresetMode: .disabled)
        envs.reset(seed: 7)
        try envs.step([.down, .down])
        #expect(envs.truncations == [true, true])
        #expect(envs.environment(at: 0).isOver && envs.environment(at: 1).isOver)
        let finalBoard = envs.observation(at: 1)
        envs.reset(index: 0)
        var single = Self.singles(rules: rules, seed: 7, count: 1)[0]
        _ = try single.step(.down)
        #expect(envs.observation(at: 0) == single.reset().observation)
        #expect(envs.rewards[0] == 0 && !envs.truncations[0])
        #expect(envs.observation(at: 1) == finalBoard)
        #expect(envs.truncations[1])
        envs.reset(index: 1, seed: 77)
        var reseeded = Environment(rules: rules)
        #expect(envs.observation(at: 1) == reseeded.reset(seed: 77).observation)
        try envs.step([.left, .left])
        #expect(envs.infos.allSatisfy { $0.steps == 1 })
    }

    @Test func disabledModeRefusesToStepAFinishedEnvironmentAndChangesNothing() throws {
        var envs = VectorEnvironment(rules: try Rules(maxSteps: 1), count: 3, autoresetMode: .disabled)
        envs.reset(seed: 1)
        try envs.step([.down, .down, .down])
        envs.reset(index: 1)
        let before = (0..<3).map { Self.reported(envs, $0) }
        #expect(throws: VectorStepError.episodesOver(indices: [0, 2])) { try envs.step([.down, .down, .down]) }
        #expect((0..<3).map { Self.reported(envs, $0) } == before)
        #expect(envs.finishedIndices == [0, 2])
        #expect(
            VectorStepError.episodesOver(indices: [0, 2]).description
                == "environments 0, 2 ended; with autoreset_mode \"disabled\" call reset first")
        #expect(
            VectorStepError.episodesOver(indices: Array(0..<12)).description
                == "environments 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2 more ended; with autoreset_mode \"disabled\" call reset first")
    }

    // MARK: Episodes over at reset

    /// A 2×2 board with no legal move.
    static let deadBoard = try! Board(rows: 2, cols: 2, values: [2, 4, 4, 2])

    @Test(arguments: [AutoresetMode.nextStep, .sameStep])
    func anEpisodeOverAtResetIsReportedAndRestartedByTheNextStep(mode: AutoresetMode) throws {
        let rules = try Rules(rows: 2, cols: 2)
        var envs = VectorEnvironment(rules: rules, count: 2, autoresetMode: mode)
        try envs.reset(seed: 5, board: Self.deadBoard)
        #expect(envs.terminations == [true, true])
        #expect(envs.infos.allSatisfy { $0.actionMask.isEmpty })
        try envs.step([.up, .left])
        // The actions were ignored: each environment started a new episode, as a plain reset continues its stream.
        var singles = VectorEnvironment.seeds(from: 5, count: 2).map { seed in
            var env = Environment(rules: rules)
            _ = try! env.reset(seed: seed, board: Self.deadBoard)
            return env
        }
        for index in 0..<2 {
            let start = singles[index].reset()
            #expect(
                Self.reported(envs, index)
                    == Expected(
                        observation: start.observation, reward: 0, terminated: false, truncated: false,
                        info: start.info, finalObservation: nil))
        }
    }

    @Test func anEpisodeWonAtResetIsReportedAndTheNextStepResetsIt() throws {
        // Every spawn is a 4, the win tile: each episode is over as soon as it starts.
        let rules = try Rules(spawnFourProbability: 1, winTile: 4)
        var envs = VectorEnvironment(rules: rules, count: 2)
        envs.reset(seed: 3)
        #expect(envs.terminations == [true, true])
        #expect(envs.infos.allSatisfy { $0.won })
        try envs.step([.up, .up])
        #expect(envs.rewards == [0, 0])
        #expect(envs.infos.allSatisfy { $0.steps == 0 })
        #expect(envs.terminations == [true, true])
    }

    @Test func disabledModeRefusesToStepAnEpisodeOverAtReset() throws {
        var envs = VectorEnvironment(rules: try Rules(rows: 2, cols: 2), count: 2, autoresetMode: .disabled)
        try envs.reset(seed: 1, board: Self.deadBoard)
        #expect(throws: VectorStepError.episodesOver(indices: [0, 1])) { try envs.step([.up, .up]) }
    }

    @Test func rejectPolicyIgnoresTheActionOfAnEpisodeOverAtReset() throws {
        let rules = try Rules(rows: 2, cols: 2, winTile: 2048, invalidAction: .reject)
        var envs = VectorEnvironment(rules: rules, count: 2)
        try envs.reset(seed: 1, board: Self.deadBoard)
        try envs.step([.down, .down])
        #expect(envs.rewards == [0, 0])
        #expect(envs.terminations == [false, false])
        #expect(envs.infos.allSatisfy { $0.steps == 0 && !$0.actionMask.isEmpty })
    }

    // MARK: Illegal actions

    @Test func rejectThrowsBeforeAnyEnvironmentMoves() throws {
        let rules = try Rules(invalidAction: .reject)
        var envs = VectorEnvironment(rules: rules, count: 16)
        envs.reset(seed: 8)
        // The last environment with an illegal direction, so that a check made
        // while stepping would already have moved the others.
        let index = try #require((0..<16).last { envs.actionMasks[$0] != .all })
        let illegal = try #require(Direction.allCases.first { !envs.actionMasks[index].contains($0) })
        var actions = envs.actionMasks.map { $0.direction(at: 0) }
        actions[index] = illegal
        let before = envs
        #expect(throws: VectorStepError.illegalAction(index: index, direction: illegal)) { try envs.step(actions) }
        #expect(envs.observations == before.observations)
        #expect(envs.rewards == before.rewards)
        #expect(envs.infos == before.infos)
        for i in 0..<16 {
            #expect(envs.environment(at: i).board == before.environment(at: i).board)
            #expect(envs.environment(at: i).rng == before.environment(at: i).rng)
            #expect(envs.environment(at: i).steps == 0)
        }
        actions[index] = envs.actionMasks[index].direction(at: 0)
        try envs.step(actions)
        #expect(envs.infos.allSatisfy { $0.steps == 1 && !$0.invalid })
    }

    @Test func vectorStepErrorNamesTheEnvironment() {
        #expect(
            VectorStepError.illegalAction(index: 3, direction: .left).description
                == "environment 3: illegal action left: it does not change the board")
    }

    // MARK: Buffers

    @Test func observationsBufferHoldsEachEnvironmentsBoard() throws {
        let rules = try Rules(rows: 3, cols: 5)
        var envs = VectorEnvironment(rules: rules, count: 5)
        envs.reset(seed: 12)
        var actionRNG = Xoshiro256StarStar(seed: 13)
        for _ in 0..<50 {
            try envs.step((0..<5).map { _ in actionRNG.direction() })
            for i in 0..<5 {
                let board = envs.environment(at: i).board
                #expect(Array(envs.observations[(i * 15)..<((i + 1) * 15)]) == board.exponents)
                #expect(envs.observation(at: i) == board)
                #expect(envs.actionMasks[i] == board.legalMoves)
            }
        }
    }

    @Test func modesAndCounts() {
        let envs = VectorEnvironment(count: 3)
        #expect(envs.autoresetMode == .nextStep)
        #expect(envs.count == 3)
        #expect(AutoresetMode.allCases.map(\.rawValue) == ["next_step", "same_step", "disabled"])
        #expect(AutoresetMode(rawValue: "same_step") == .sameStep)
    }
}
