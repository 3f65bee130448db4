import Testing

@testable import Game2048

/// `EpisodeRules` is the one statement of how an episode starts, spawns and ends: the environment plays by it,
/// and so must every other player (the learner), so it is checked against the environment itself.
struct EpisodeRulesTests {
    @Test func optionalLimitsResolveToValuesNeverReached() throws {
        let classic = Rules().episodeRules
        #expect(classic.winExponent == .max && classic.stepLimit == .max && classic.initialTiles == 2)
        #expect(!classic.isWon(highest: 50) && !classic.isTruncated(steps: Int.max - 1))
        let short = try Rules(winTile: 2048, maxSteps: 10).episodeRules
        #expect(short.isWon(highest: 11) && !short.isWon(highest: 10))
        #expect(short.isTruncated(steps: 10) && !short.isTruncated(steps: 9))
        #expect(short.fourThreshold == bernoulliThreshold(probability: 0.1))
    }

    /// The starting tiles and the spawns are the environment's, draw for draw.
    @Test(arguments: [(2, 2, 1, 0.1), (4, 4, 2, 0.1), (3, 5, 4, 0.5), (8, 8, 9, 1.0)])
    func startsAndSpawnsAreTheEnvironments(rows: Int, cols: Int, initialTiles: Int, four: Double) throws {
        let rules = try Rules(rows: rows, cols: cols, spawnFourProbability: four, initialTiles: initialTiles)
        let episode = rules.episodeRules
        for seed in UInt64(0)..<50 {
            var environment = Environment(rules: rules)
            let start = environment.reset(seed: seed)
            var rng = Xoshiro256StarStar(seed: seed)
            var board = Board(rules: rules)
            episode.placeStartingTiles(on: &board, using: &rng)
            #expect(board == start.observation)
            guard let direction = environment.actionMask.directions.first else { continue }
            let step = try environment.step(direction)
            var next = board.moved(direction).afterstate
            let spawn = episode.spawn(on: &next, using: &rng)
            #expect(next == step.observation && spawn == step.info.spawn)
        }
    }

    /// An episode ends where the rules say: the environment truncates at the step limit and terminates at the
    /// win tile exactly when `isTruncated` and `isWon` say so.
    @Test func theEnvironmentEndsWhereTheRulesSay() throws {
        let rules = try Rules(rows: 3, cols: 3, winTile: 32, maxSteps: 60)
        let episode = rules.episodeRules
        for seed in UInt64(0)..<40 {
            var environment = Environment(rules: rules)
            environment.reset(seed: seed)
            var rng = Xoshiro256StarStar(seed: seed &+ 1)
            while !environment.isOver {
                let mask = environment.actionMask
                let step = try environment.step(mask.direction(at: rng.uniform(below: mask.count)))
                let highest = UInt8(step.info.maxTile.trailingZeroBitCount)
                #expect(step.truncated == episode.isTruncated(steps: step.info.steps))
                #expect(step.info.won == episode.isWon(highest: highest))
            }
        }
    }
}
