import GymCore

/// A player's games of Memorize and their statistics: moves to finish (two cards a move), reward, and how
/// many games were cut by `max_steps`.
///
///     let report = MemorizeEvaluation(rules: rules, agent: .perfectMemory, games: 100_000, seed: 1)
///     report.meanMoves        // against MemorizeOptimum(...).perfectMemoryMoves(pairs:)
public struct MemorizeEvaluation: Sendable, Hashable {
    /// Games played.
    public let games: Int
    /// Mean moves per game: completed moves (matched or mismatched pairs), a finished game's `steps / 2`.
    public let meanMoves: Double
    /// The standard error of ``meanMoves``.
    public let movesStandardError: Double
    /// Mean total reward per game.
    public let meanReward: Double
    /// The standard error of ``meanReward``.
    public let rewardStandardError: Double
    /// Games every pair of which was matched (the others were cut by `max_steps`).
    public let finished: Int

    /// Plays `games` games of `agent` under `rules`: game `g` on the deck of `reset(seed:)` with the `g`-th seed
    /// derived from `seed` (`SplitMix64.seeds(from:count:)`), the player's own draws from a generator seeded
    /// the same way from `seed + 1`, so a seed gives the same report everywhere.
    public init(rules: MemorizeRules, agent: MemorizeAgent, games: Int, seed: UInt64) {
        precondition(games >= 1, "at least one game, got \(games)")
        var player = agent.player(rules: rules)
        var env = MemorizeEnvironment(rules: rules)
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        var moves = MeanEstimate(), reward = MeanEstimate()
        var finished = 0
        var deckSeeds = SplitMix64(seed: seed)
        for _ in 0..<games {
            var state = env.reset(seed: deckSeeds.next())
            player.reset()
            var total = 0.0
            while !env.isOver {
                let card = player.choose(observation: state.observation, legal: state.info.actionMask, using: &choices)
                guard let step = try? env.step(card) else { preconditionFailure("player \(agent.name) turned an illegal card \(card)") }
                total += step.reward
                state = MemorizeReset(observation: step.observation, info: step.info)
                if step.terminated { finished += 1 }
            }
            moves.add(Double(env.info.moves))
            reward.add(total)
        }
        self.games = games
        (meanMoves, movesStandardError) = (moves.mean, moves.squaredStandardError.squareRoot())
        (meanReward, rewardStandardError) = (reward.mean, reward.squaredStandardError.squareRoot())
        self.finished = finished
    }
}
