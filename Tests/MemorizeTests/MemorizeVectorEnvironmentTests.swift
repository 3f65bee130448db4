import GymCore
import Testing

@testable import Memorize

/// The vector environment plays each lane as a single environment with its derived seed would.
struct MemorizeVectorEnvironmentTests {
    @Test func everyLaneIsTheSingleEnvironmentOfItsSeed() throws {
        let rules = try MemorizeRules(rows: 2, cols: 4)
        for mode in AutoresetMode.allCases where mode != .disabled {
            var vector = MemorizeVectorEnvironment(rules: rules, count: 5, autoresetMode: mode)
            vector.reset(seed: 11)
            var singles = SplitMix64.seeds(from: 11, count: 5).map { seed in
                var env = MemorizeEnvironment(rules: rules)
                env.reset(seed: seed)
                return env
            }
            var rng = Xoshiro256StarStar(seed: 2)
            var pendingReset = [Bool](repeating: false, count: 5)
            for _ in 0..<200 {
                // A finished lane (next_step) has no legal card: its action is ignored.
                let cards = vector.actionMasks.map { $0.isEmpty ? 0 : $0.member(at: rng.uniform(below: $0.count)) }
                try vector.step(cards)
                for i in 0..<5 {
                    if pendingReset[i] {
                        singles[i].reset()
                        pendingReset[i] = false
                        #expect(vector.rewards[i] == 0 && !vector.terminations[i])
                    } else {
                        let step = try singles[i].step(cards[i])
                        #expect(vector.rewards[i] == step.reward && vector.terminations[i] == step.terminated)
                        if step.terminated {
                            if mode == .sameStep {
                                #expect(vector.finalObservations[i] == step.observation)
                                singles[i].reset()
                            } else {
                                pendingReset[i] = true
                            }
                        }
                    }
                    #expect(vector.environments[i].observation == singles[i].observation)
                }
            }
        }
    }

    @Test func anIllegalCardChangesNoLane() throws {
        var vector = MemorizeVectorEnvironment(rules: try MemorizeRules(rows: 1, cols: 4), count: 3)
        vector.reset(seed: 1)
        try vector.step([0, 0, 0])
        let before = vector.observations
        #expect(throws: MemorizeVectorStepError.illegalAction(index: 1, .faceUp(0))) { try vector.step([1, 0, 1]) }
        #expect(vector.observations == before)
    }

    @Test func disabledAutoresetRefusesAFinishedLane() throws {
        var vector = MemorizeVectorEnvironment(rules: try MemorizeRules(rows: 1, cols: 2), count: 2, autoresetMode: .disabled)
        vector.reset(seed: 1)
        try vector.step([0, 0])
        try vector.step([1, 1])
        #expect(vector.terminations == [true, true])
        #expect(throws: MemorizeVectorStepError.episodesOver(indices: [0, 1])) { try vector.step([0, 0]) }
        vector.reset(index: 0)
        vector.reset(index: 1)
        try vector.step([1, 1])
    }
}
