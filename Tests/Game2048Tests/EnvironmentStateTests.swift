import Testing

@testable import Game2048

/// A restored state continues exactly as the saved one did, on every board size and representation, and a
/// state that contradicts the rules or itself is refused with nothing changed.
struct EnvironmentStateTests {
    /// Plays `actions` (the legal move at `choice % count`), returning every step.
    static func play(_ env: inout Environment, _ choices: [Int]) throws -> [Step] {
        var steps: [Step] = []
        for choice in choices where !env.isOver {
            let legal = env.actionMask.directions
            steps.append(try env.step(legal[choice % legal.count]))
        }
        return steps
    }

    @Test(arguments: [(2, 2), (3, 3), (4, 4), (3, 5), (6, 6)])
    func aRestoredStateReplaysTheSameFuture(rows: Int, cols: Int) throws {
        let rules = try Rules(rows: rows, cols: cols)
        var rng = Xoshiro256StarStar(seed: UInt64(rows * 10 + cols))
        for seed in UInt64(0)..<20 {
            var env = Environment(rules: rules)
            env.reset(seed: seed)
            _ = try Self.play(&env, (0..<Int(rng.next() % 40)).map { _ in Int(rng.next() % 4) })
            let saved = env.state
            let choices = (0..<60).map { _ in Int(rng.next() % 4) }
            let first = try Self.play(&env, choices)
            let end = env.state
            // Restored in place, and in a fresh environment with the same rules.
            try env.restore(saved)
            #expect(env.state == saved)
            #expect(try Self.play(&env, choices) == first)
            var other = Environment(rules: rules, seed: 99)
            try other.restore(saved)
            #expect(try Self.play(&other, choices) == first)
            #expect(other.state == end && env.state == end)
        }
    }

    /// Past 32 768 a 4×4 environment leaves the packed board: a restored state picks the same representation.
    @Test func aStateWithA32768TileRestoresOnTheGenericBoard() throws {
        var values = [Int](repeating: 0, count: 16)
        values[0] = 32_768
        values[1] = 2
        let board = try Board(rows: 4, cols: 4, values: values)
        var env = Environment(rules: Rules())
        try env.restore(
            EnvironmentState(board: board, score: 10, steps: 3, phase: .running, generator: Xoshiro256StarStar(seed: 1)))
        guard !env.isPacked else { Issue.record("expected the generic board past 32768"); return }
        #expect(env.score == 10 && env.steps == 3 && env.info.maxTile == 32_768)
    }

    @Test func stateErrorsNameWhatIsWrongAndChangeNothing() throws {
        var env = Environment(rules: try Rules(winTile: 64, maxSteps: 5))
        env.reset(seed: 3)
        let before = env.state
        let full = try Board(rows: 4, cols: 4, values: [2, 4, 2, 4, 4, 2, 4, 2, 2, 4, 2, 4, 4, 2, 4, 2])
        let won = try Board(rows: 4, cols: 4, values: [64, 2] + [Int](repeating: 0, count: 14))
        func refused(_ state: EnvironmentState) -> String? {
            do throws(StateError) { try env.restore(state) } catch { return error.description }
            return nil
        }
        var state = before
        state.phase = .needsReset
        #expect(refused(state) == #"phase must be "running" or "over": restore a state saved after a reset"#)
        state = before
        state.board = full
        #expect(refused(state) == #"phase is "running", but the board has no legal move (an over episode says "over")"#)
        state.phase = .over
        #expect(refused(state) == nil)
        env = Environment(rules: try Rules(winTile: 64, maxSteps: 5))
        env.reset(seed: 3)
        state = before
        state.board = won
        #expect(refused(state) == #"phase is "running", but the board holds the win tile (an over episode says "over")"#)
        state = before
        state.steps = 5
        #expect(refused(state) == #"phase is "running", but steps 5 reached the step limit 5 (an over episode says "over")"#)
        state = before
        state.score = -1
        #expect(refused(state) == "score must be 0 or more, got -1")
        state = before
        state.board = try Board(rows: 3, cols: 3)
        #expect(refused(state) == "board must be 4x4, got 3x3")
        #expect(env.state == before)
    }

    /// A score of 2^63 - 1 was restored, the next merge wrapped it negative, and the environment's own state was
    /// then refused (so a pickled environment could not be unpickled). A state's score is now at most what no play
    /// from its board can carry past 2^63 - 1, and every state play reaches from there is restored again.
    @Test(arguments: [(2, 2), (4, 4), (8, 8)])
    func aScoreIsAtMostWhatNoPlayCanOverflow(rows: Int, cols: Int) throws {
        let rules = try Rules(rows: rows, cols: cols)
        var env = Environment(rules: rules)
        env.reset(seed: 5)
        var state = env.state
        state.score = .max
        let ceiling = EnvironmentState.scoreCeiling(of: state.board, rules: rules)
        #expect(ceiling < .max && ceiling > .max / 2)
        do throws(StateError) {
            try env.restore(state)
            Issue.record("a score of 2^63 - 1 was restored")
        } catch {
            #expect(
                error.description
                    == "score must be at most \(ceiling) on this board (play from it could add more than the rest up to 2^63 - 1), got 9223372036854775807")
        }
        state.score = ceiling
        try env.restore(state)
        var rng = Xoshiro256StarStar(seed: 1)
        var copy = Environment(rules: rules)
        // The first 300 steps at most: enough merges to try the ceiling, few enough for 8x8 in a debug build.
        for _ in 0..<300 where !env.isOver {
            let mask = env.actionMask
            _ = try env.step(mask.direction(at: rng.uniform(below: mask.count)))
            #expect(env.score >= ceiling)
            try copy.restore(env.state)
        }
    }

    @Test func generatorWordsRoundTripAndRefuseTheZeroState() {
        var rng = Xoshiro256StarStar(seed: 42)
        _ = rng.next()
        var copy = Xoshiro256StarStar(words: rng.words)
        #expect(copy == rng && copy?.next() == rng.next())
        #expect(Xoshiro256StarStar(words: [0, 0, 0, 0]) == nil)
        #expect(Xoshiro256StarStar(words: [1, 2, 3]) == nil)
    }

    /// A vector restores each lane; the lanes then step as single environments in those states do.
    @Test(arguments: [(4, 4), (3, 4)])
    func aVectorRestoresEachEnvironment(rows: Int, cols: Int) throws {
        let rules = try Rules(rows: rows, cols: cols)
        var vector = VectorEnvironment(rules: rules, count: 6)
        vector.reset(seed: 5)
        var rng = Xoshiro256StarStar(seed: 8)
        for _ in 0..<30 { try vector.step((0..<6).map { _ in Direction(rawValue: Int(rng.next() % 4))! }) }
        let saved = vector.states
        let actions = (0..<50).map { _ in (0..<6).map { _ in Direction(rawValue: Int(rng.next() % 4))! } }
        var first: [[UInt8]] = []
        for step in actions {
            try vector.step(step)
            first.append(vector.observations)
        }
        try vector.restore(saved)
        #expect(vector.states == saved)
        #expect(vector.observations == saved.flatMap(\.board.exponents))
        var second: [[UInt8]] = []
        for step in actions {
            try vector.step(step)
            second.append(vector.observations)
        }
        #expect(first == second)
        // The lanes are single environments: a lane's state restored alone gives its lane's future.
        var single = Environment(rules: rules)
        try single.restore(saved[2])
        #expect(single.state == saved[2])
    }

    @Test func aVectorRefusesABadStateByIndexAndKeepsItsStates() throws {
        var vector = VectorEnvironment(rules: Rules(), count: 3)
        vector.reset(seed: 1)
        let before = vector.states
        var states = before
        states[2].score = -4
        #expect(throws: VectorStateError(index: 2, error: .negative(field: "score", value: -4))) { try vector.restore(states) }
        #expect(vector.states == before)
    }
}
