import Testing

@testable import Game2048

/// The vector environment against its oracle, `count` single ``Environment``s driven by hand with
/// the same seeds and actions, over every autoreset mode, the packed 4×4 path, its switch to the
/// generic board at 2^15, and generic sizes; and the caller's buffers against the owned ones.
struct VectorEnvironmentDifferentialTests {
    /// What one environment reported, from the vector or from a single environment.
    struct Report: Equatable {
        var observation: Board
        var reward: Int64
        var terminated: Bool
        var truncated: Bool
        var info: StepInfo
        var finalObservation: Board?
        var finalInfo: StepInfo?
    }

    static let cases: [(Rules, Board?)] = [
        (Rules(), nil),
        (try! Rules(maxSteps: 40, invalidAction: .terminate(penalty: 7)), nil),
        (try! Rules(rows: 2, cols: 2), nil),
        (try! Rules(rows: 3, cols: 5, spawnFourProbability: 0.5, winTile: 64), nil),
        (try! Rules(rows: 8, cols: 8, initialTiles: 5, maxSteps: 30), nil),
        // Two 16 384 tiles: their merge makes 2^15, where a lane leaves the packed board.
        (Rules(), try! Board(rows: 4, cols: 4, values: [16384, 16384, 2, 4, 8, 16, 32, 64, 2, 4, 8, 16, 0, 0, 0, 0])),
    ]

    @Test(arguments: [AutoresetMode.nextStep, .sameStep, .disabled], 0..<6)
    func everyColumnEqualsSingleEnvironments(mode: AutoresetMode, caseIndex: Int) throws {
        try checkEveryColumn(mode: mode, caseIndex: caseIndex, count: 7, steps: 400)
    }

    /// More lanes than one block of the packed step's stages (`VectorEnvironment.block`), and a
    /// last block cut short: lanes at a block's edges play as single environments too.
    @Test(arguments: [AutoresetMode.nextStep, .sameStep], [0, 1, 5])
    func lanesAcrossBlocksEqualSingleEnvironments(mode: AutoresetMode, caseIndex: Int) throws {
        try checkEveryColumn(mode: mode, caseIndex: caseIndex, count: 2 * VectorEnvironment.block + 11, steps: 150)
    }

    /// The Swift stages of the 4×4 board work, where the processor would take the AVX-512 kernel by default.
    @Test(arguments: [AutoresetMode.nextStep, .sameStep], [0, 1, 5])
    func lanesMovedInStagesEqualSingleEnvironments(mode: AutoresetMode, caseIndex: Int) throws {
        try checkEveryColumn(mode: mode, caseIndex: caseIndex, count: VectorEnvironment.block + 11, steps: 150, together: false)
    }

    func checkEveryColumn(mode: AutoresetMode, caseIndex: Int, count: Int, steps: Int, together: Bool? = nil) throws {
        let (rules, board) = Self.cases[caseIndex]
        var envs = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        if let together { envs.movesLanesTogether = together }
        let seeds = VectorEnvironment.seeds(from: 99, count: count)
        var singles = seeds.map { _ in Environment(rules: rules) }
        if let board {
            try envs.reset(seed: 99, board: board)
            for i in 0..<count { try singles[i].reset(seed: seeds[i], board: board) }
        } else {
            envs.reset(seed: 99)
            for i in 0..<count { singles[i].reset(seed: seeds[i]) }
        }
        var agent = Xoshiro256StarStar(seed: UInt64(caseIndex))
        var endings = 0, invalid = 0, generic = 0
        for t in 0..<steps {
            if mode == .disabled {
                for i in envs.finishedIndices {
                    envs.reset(index: i)
                    let start = singles[i].reset()
                    #expect(
                        Self.report(envs, i)
                            == Report(
                                observation: start.observation, reward: 0, terminated: singles[i].isOver, truncated: false,
                                info: start.info, finalObservation: nil, finalInfo: nil))
                }
            }
            // Mostly legal moves, some illegal ones.
            let actions = (0..<count).map { i in
                let mask = envs.actionMask(at: i)
                return mask.isEmpty || agent.uniform(below: 5) == 0 ? agent.direction() : mask.direction(at: agent.uniform(below: mask.count))
            }
            try envs.step(actions)
            for i in 0..<count {
                var expected: Report
                if singles[i].isOver {
                    let start = singles[i].reset()
                    expected = Report(
                        observation: start.observation, reward: 0, terminated: singles[i].isOver, truncated: false,
                        info: start.info, finalObservation: nil, finalInfo: nil)
                } else {
                    let step = try singles[i].step(actions[i])
                    if step.info.invalid { invalid += 1 }
                    if !singles[i].isPacked { generic += 1 }
                    expected = Report(
                        observation: step.observation, reward: step.reward, terminated: step.terminated,
                        truncated: step.truncated, info: step.info, finalObservation: nil, finalInfo: nil)
                    if (step.terminated || step.truncated) && mode == .sameStep {
                        endings += 1
                        let start = singles[i].reset()
                        expected.observation = start.observation
                        expected.info = start.info
                        expected.finalObservation = step.observation
                        expected.finalInfo = step.info
                    } else if step.terminated || step.truncated {
                        endings += 1
                    }
                }
                #expect(Self.report(envs, i) == expected, "step \(t), environment \(i)")
                #expect(envs.environment(at: i).rng == singles[i].rng, "step \(t), environment \(i)")
            }
        }
        // On 8×8 with 30-step episodes every move is legal nearly always.
        #expect(endings > 3 && (invalid > 20 || rules.cellCount == 64))
        if board != nil { #expect(generic > 100) }
    }

    static func report(_ envs: VectorEnvironment, _ i: Int) -> Report {
        Report(
            observation: envs.observation(at: i), reward: envs.rewards[i], terminated: envs.terminations[i],
            truncated: envs.truncations[i], info: envs.info(at: i), finalObservation: envs.finalObservation(at: i),
            finalInfo: envs.finalInfo(at: i))
    }

    /// The caller's buffers, with some columns left out, receive exactly what the owned ones hold.
    @Test(arguments: [AutoresetMode.nextStep, .sameStep], [Rules(), try! Rules(rows: 3, cols: 3)])
    func callerBuffersReceiveWhatTheOwnedBuffersHold(mode: AutoresetMode, rules: Rules) throws {
        let count = 16, cells = rules.cellCount
        var owned = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        var lent = VectorEnvironment(rules: rules, count: count, autoresetMode: mode)
        var observations = [UInt8](repeating: 0xEE, count: count * cells), finalObservations = observations
        var rewards = [Int64](repeating: -1, count: count), scores = rewards, finalScores = rewards
        var terminations = [Bool](repeating: true, count: count), truncations = terminations, finals = terminations
        var masks = [UInt8](repeating: 0xEE, count: count), legal = [UInt8](repeating: 0xEE, count: count * 4)
        func buffers(_ body: (VectorStepBuffers) throws -> Void) rethrows {
            try observations.withUnsafeMutableBufferPointer { o in
                try finalObservations.withUnsafeMutableBufferPointer { fo in
                    try rewards.withUnsafeMutableBufferPointer { r in
                        try scores.withUnsafeMutableBufferPointer { s in
                            try finalScores.withUnsafeMutableBufferPointer { fs in
                                try terminations.withUnsafeMutableBufferPointer { te in
                                    try truncations.withUnsafeMutableBufferPointer { tr in
                                        try finals.withUnsafeMutableBufferPointer { f in
                                            try masks.withUnsafeMutableBufferPointer { m in
                                                try legal.withUnsafeMutableBufferPointer { l in
                                                    try body(
                                                        VectorStepBuffers(
                                                            observations: o.baseAddress!, rewards: r.baseAddress!,
                                                            terminations: te.baseAddress!, truncations: tr.baseAddress!,
                                                            info: VectorInfoBuffers(
                                                                actionMasks: m.baseAddress, scores: s.baseAddress, legalActions: l.baseAddress),
                                                            finals: f.baseAddress, finalObservations: fo.baseAddress,
                                                            finalInfo: VectorInfoBuffers(scores: fs.baseAddress)))
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        owned.reset(seed: 3)
        try buffers { try lent.reset(seeds: VectorEnvironment.seeds(from: 3, count: count), board: nil, into: $0) }
        var agent = Xoshiro256StarStar(seed: 4)
        var sawFinal = false
        for _ in 0..<300 {
            sawFinal = sawFinal || owned.finals.contains(true)
            #expect(observations == owned.observations && rewards == owned.rewards)
            #expect(terminations == owned.terminations && truncations == owned.truncations)
            #expect(masks == owned.infoColumns.actionMasks && scores == owned.infoColumns.scores)
            #expect(legal == owned.infoColumns.actionMasks.flatMap { mask in (0..<4).map { (mask >> $0) & 1 } })
            #expect(finals == owned.finals && finalObservations == owned.finalObservationExponents)
            #expect(finalScores == owned.finalInfoColumns.scores || mode == .nextStep)
            let codes = (0..<count).map { _ in UInt8(agent.uniform(below: 4)) }
            try owned.step(codes.map { Direction(rawValue: Int($0))! })
            try buffers { out in try codes.withUnsafeBufferPointer { try lent.step($0, into: out) } }
        }
        #expect(sawFinal || mode == .nextStep)
    }

    @Test func aCopySteppedLeavesTheOriginalUnchanged() throws {
        var envs = VectorEnvironment(rules: Rules(), count: 3)
        envs.reset(seed: 1)
        let before = envs
        var copy = envs
        try copy.step([.left, .up, .right])
        #expect(String(reflecting: envs) == String(reflecting: before))
        #expect(envs.environment(at: 0).board == before.environment(at: 0).board)
        #expect(copy.infos.map(\.steps) != envs.infos.map(\.steps))
    }

    /// The step loop reads actions as bytes: a direction's storage must be its raw value.
    @Test func aDirectionIsStoredAsItsRawValue() {
        #expect(MemoryLayout<Direction>.size == 1)
        for direction in Direction.allCases {
            #expect(unsafeBitCast(direction, to: UInt8.self) == UInt8(direction.rawValue))
            #expect(Direction(unchecked: UInt8(direction.rawValue)) == direction)
        }
    }
}
