import Testing
@testable import Game2048

/// `Rules.largestExponent`: the ceiling that keeps every observation inside the observation space.
struct LargestTileTests {
    @Test(arguments: [(2, 2, 5), (2, 3, 7), (3, 3, 10), (4, 4, 17), (6, 6, 37), (7, 7, 50), (7, 8, 50), (8, 8, 50)])
    func ceilingIsOneMoreThanTheCellCountUpTo50(rows: Int, cols: Int, largest: UInt8) throws {
        #expect(try Rules(rows: rows, cols: cols).largestExponent == largest)
    }

    @Test func resetRefusesATileAboveTheCeilingAndChangesNothing() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 2))
        env.reset(seed: 1)
        let before = (env.board, env.score, env.steps, env.actionMask)
        let board = try Board(rows: 2, cols: 2, values: [2, 0, 0, 64])
        #expect(throws: RulesError.tileAboveLargest(exponent: 6, cell: 3, largest: 5)) {
            try env.reset(seed: 9, board: board)
        }
        #expect((env.board, env.score, env.steps, env.actionMask) == before)
        #expect(
            "\(RulesError.tileAboveLargest(exponent: 6, cell: 3, largest: 5))"
                == "board cell 3 must hold at most 32 (2^5, the largest tile this board size can make), got 2^6")
        // The same board is fine where the ceiling is higher.
        var wide = Environment(rules: try Rules(rows: 2, cols: 3))
        let wideBoard = try Board(rows: 2, cols: 3, values: [2, 0, 0, 64, 0, 0])
        #expect(throws: Never.self) { try wide.reset(board: wideBoard) }
    }

    @Test func twoCeilingTilesDoNotMerge() throws {
        // 32 is the ceiling on 2×2: left and right would merge the pair into 64.
        var env = Environment(rules: try Rules(rows: 2, cols: 2))
        let start = try env.reset(seed: 1, board: try Board(rows: 2, cols: 2, values: [32, 32, 0, 0]))
        #expect(start.info.actionMask == [.down])
        #expect(!env.afterstate(.left).legal)
        #expect(env.afterstate(.left).board == start.observation)
        #expect(env.afterstate(.down).legal)
        let step = try env.step(.left)
        #expect(step.info.invalid && step.reward == 0 && step.observation == start.observation)
        let down = try env.step(.down)
        #expect(!down.info.invalid && down.observation.maxExponent == 5)
    }

    @Test func aBoardOfCeilingPairsIsOverAtOnce() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 2))
        let start = try env.reset(board: try Board(rows: 2, cols: 2, values: [32, 32, 32, 32]))
        #expect(start.info.actionMask.isEmpty)
        #expect(env.isOver)
    }

    @Test func theMaskAfterAStepLeavesOutCeilingMergesAndEndsTheEpisodeWhenNothingElseIsLeft() throws {
        // 4×4, ceiling 2^17: after "up" the two 131072 tiles still sit side by side in the top row.
        var env = Environment(rules: Rules())
        try env.reset(
            seed: 1,
            board: try Board(
                rows: 4, cols: 4,
                values: [
                    131072, 131072, 256, 16,
                    256, 0, 0, 4096,
                    0, 0, 0, 65536,
                    8, 0, 8, 0,
                ]))
        let step = try env.step(.up)
        #expect(step.observation[row: 0, col: 0] == 17 && step.observation[row: 0, col: 1] == 17)
        #expect(!step.info.actionMask.contains(.right) && !step.info.actionMask.contains(.left))
        #expect(env.actionMask == step.info.actionMask)
        // 2×2, ceiling 32, only 2s spawn: down makes 0 32 / 32 4, the spawn fills the empty cell with a 2,
        // and the only pair left is the two 32s: the episode is over.
        var full = Environment(rules: try Rules(rows: 2, cols: 2, spawnFourProbability: 0))
        try full.reset(seed: 3, board: try Board(rows: 2, cols: 2, values: [32, 32, 0, 4]))
        let last = try full.step(.down)
        #expect(last.observation.values == [2, 32, 32, 4])
        #expect(last.info.actionMask.isEmpty)
        #expect(last.terminated && full.isOver)
    }

    @Test func aMoveThatAlsoSlidesOtherTilesIsStillIllegalWhenItMergesCeilingTiles() throws {
        var env = Environment(rules: try Rules(rows: 2, cols: 3, invalidAction: .reject))
        try env.reset(board: try Board(rows: 2, cols: 3, values: [128, 128, 0, 0, 0, 2]))
        #expect(env.actionMask == [.up, .down])
        #expect(throws: StepError.illegalAction(.left)) { try env.step(.left) }
    }

    @Test func twoTilesOf2To50OnAnEightByEightStayBelowTheLimitInAVector() throws {
        var values = [Int](repeating: 0, count: 64)
        values[0] = 1 << 50
        values[1] = 1 << 50
        var envs = VectorEnvironment(rules: try Rules(rows: 8, cols: 8), count: 2)
        try envs.reset(seed: 4, board: try Board(rows: 8, cols: 8, values: values))
        #expect(envs.infos.allSatisfy { !$0.actionMask.contains(.left) && !$0.actionMask.contains(.right) })
        try envs.step([.left, .down])
        #expect(envs.observations.allSatisfy { $0 <= 50 })
        #expect(envs.infos[0].invalid)
        #expect((0..<2).allSatisfy { envs.observation(at: $0).maxExponent == 50 })
    }

    /// Natural play never puts two tiles at the ceiling, so the ceiling never changes its mask.
    /// Random play with many 4s on a 2×2 board reaches the ceiling often (`mustReach`); on 2×3 it checks the bound.
    @Test(arguments: [(2, 2, true), (2, 3, false), (3, 2, false)])
    func naturalPlayNeverReachesTheCeilingRule(rows: Int, cols: Int, mustReach: Bool) throws {
        let rules = try Rules(rows: rows, cols: cols, spawnFourProbability: 0.5)
        var env = Environment(rules: rules)
        var rng = Xoshiro256StarStar(seed: 11)
        var reachedCeiling = 0
        for episode in 0..<3_000 {
            env.reset(seed: UInt64(episode))
            while !env.isOver {
                #expect(env.actionMask == env.board.legalMoves)
                let mask = env.actionMask
                _ = try env.step(mask.direction(at: Int(rng.next() % UInt64(mask.count))))
                #expect(env.board.maxExponent <= rules.largestExponent)
            }
            if env.board.maxExponent == rules.largestExponent { reachedCeiling += 1 }
        }
        // The property above was exercised at the ceiling itself, not only below it.
        #expect(reachedCeiling > 0 || !mustReach)
    }
}
