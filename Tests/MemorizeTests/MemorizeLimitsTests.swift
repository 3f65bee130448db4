@testable import GymCore
import Testing

@testable import Memorize

/// The limits every game has (`max_steps`, `invalid_action` and its penalty), on a hand-made deck of
/// Memorize: what the shared step does with a refused card and a step limit.
struct MemorizeLimitsTests {
    /// One environment on the deck `A B A B`, under `limits`.
    static func vector(_ limits: EpisodeLimits, mode: AutoresetMode = .nextStep) throws -> VectorGame<MemorizeEnvironment> {
        var vector = VectorGame<MemorizeEnvironment>(
            rules: try MemorizeRules(rows: 1, cols: 4), count: 1, autoresetMode: mode, limits: limits)
        vector.reset(seed: 1)
        vector.lanes.environments[0].reset(deck: MemorizeEnvironmentTests.deck)
        return vector
    }

    @Test func underNoopAFaceUpCardChangesNothingButCountsAsAStep() throws {
        var vector = try Self.vector(EpisodeLimits(maxSteps: 3, invalidAction: .noop))
        try vector.step([0])
        let before = vector.environments[0]
        try vector.step([0])  // face up: refused by the game, a no-op by the policy
        #expect(vector.environments[0].observation == before.observation && vector.environments[0].steps == before.steps)
        #expect(vector.rewards == [0] && vector.terminations == [false] && vector.truncations == [false])
        try vector.step([2])  // the third step: the pair is matched, and the limit cuts the episode
        #expect(vector.rewards == [1] && vector.truncations == [true] && vector.terminations == [false])
        try vector.step([1])  // next_step: the cut episode restarts, the card ignored
        #expect(vector.environments[0].steps == 0 && vector.rewards == [0] && vector.truncations == [false])
    }

    @Test func underTerminateARefusedCardEndsTheEpisodeWithThePenalty() throws {
        var vector = try Self.vector(EpisodeLimits(invalidAction: .terminate(penalty: 5)), mode: .disabled)
        #expect(vector.space.rewardRange.lowerBound == -5)
        try vector.step([1])
        try vector.step([1])
        #expect(vector.rewards == [-5] && vector.terminations == [true] && vector.truncations == [false])
        #expect(throws: VectorStepRefusal<MemorizeStepError>.episodesOver(indices: [0])) { try vector.step([0]) }
    }

    @Test func underRejectARefusedCardIsRefusedWithTheGamesReason() throws {
        var vector = try Self.vector(EpisodeLimits(invalidAction: .reject))
        try vector.step([1])
        #expect(throws: VectorStepRefusal.illegalAction(index: 0, MemorizeStepError.faceUp(1))) { try vector.step([1]) }
        #expect(vector.environments[0].steps == 1)
    }

    @Test(arguments: [InvalidActionPolicy.noop, .terminate(penalty: 1), .reject])
    func aCardThatIsNoCardIsRefusedUnderEveryPolicy(policy: InvalidActionPolicy) throws {
        var vector = try Self.vector(EpisodeLimits(invalidAction: policy))
        for card in [4, -1, Int.max] {
            #expect(throws: VectorStepRefusal.illegalAction(index: 0, MemorizeStepError.noSuchCard(card, cardCount: 4))) {
                try vector.step([card])
            }
        }
        #expect(vector.environments[0].steps == 0)
    }

    @Test func theLimitsAreEveryGamesOptionsAfterItsOwn() throws {
        let names = MemorizeGame.declaration.options.map(\.name)
        #expect(names == MemorizeOption.all.map(\.name) + ["max_steps", "invalid_action", "invalid_action_penalty"])
        #expect(MemorizeGame.declaration.option(named: "invalid_action")?.defaultValue == .string("noop"))
        let max = MemorizeGame.declaration.option(named: "max_steps")!
        #expect(max.rejection(of: .integer(Int.max)) == nil)
        #expect(max.rejection(of: .integer(0)) == "max_steps must be an integer from 1 to 9223372036854775807 or null (off), got 0")
        let penalty = MemorizeGame.declaration.option(named: "invalid_action_penalty")!
        #expect(penalty.rejection(of: .integer(Int.max)) == nil && penalty.rejection(of: .integer(-1)) != nil)
    }
}
