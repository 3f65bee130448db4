import GymCore
import Testing

@testable import Memorize

/// Properties over many seeded games, legal and illegal cards mixed: what the observation shows is what the
/// state holds, pairs are conserved, and a seed and its cards give the same episode every time.
struct MemorizePropertyTests {
    /// One random game of `rules` from `seed`: at each step a random card, legal or not (a third of the time any
    /// position, even outside the deck); every step checked against the invariants.
    static func fuzz(rules: MemorizeRules, seed: UInt64) throws -> [UInt8] {
        var env = MemorizeEnvironment(rules: rules)
        var rng = Xoshiro256StarStar(seed: seed)
        env.reset(seed: seed)
        var trace: [UInt8] = []
        var total = 0.0
        while !env.isOver {
            let legal = env.actionMask
            let card =
                rng.uniform(below: 3) == 0 ? rng.uniform(below: rules.cardCount + 4) - 2 : legal.member(at: rng.uniform(below: legal.count))
            let before = env
            do {
                let step = try env.step(card)
                #expect(legal.contains(card))
                total += step.reward
                check(env, step)
                trace += step.observation
            } catch {
                #expect(!legal.contains(card), "a legal card \(card) was refused: \(error)")
                #expect(env.observation == before.observation && env.info == before.info, "a refused card changed the state")
            }
        }
        #expect(total == Double(env.pairsMatched) - rules.mismatchPenalty * Double(env.mismatches))
        return trace
    }

    /// The invariants of a state after `step`.
    static func check(_ env: MemorizeEnvironment, _ step: MemorizeStep) {
        let rules = env.rules, pairs = rules.pairCount
        #expect(step.observation == env.observation)
        #expect(env.matched.count == 2 * env.pairsMatched, "matched cards come in pairs")
        for card in env.matched { #expect(env.matched.contains(env.deck.partner(of: card))) }
        #expect(env.faceUp.count <= 2 && env.faceUp.union(env.matched).count == env.faceUp.count + env.matched.count)
        #expect(env.actionMask == CardSet.first(rules.cardCount).subtracting(env.matched).subtracting(env.faceUp))
        #expect(env.steps == 2 * env.info.moves + (env.firstCard == nil ? 0 : 1))
        for (card, code) in step.observation.enumerated() {
            let view = CardView(code: code, pairs: pairs)
            #expect(view != nil)
            switch view {
            case .faceUp(let content), .seen(let content): #expect(content == Int(env.deck.contents[card]))
            default: break
            }
            if case .seen = view { #expect(rules.revealSeen && env.seen.contains(card)) }
        }
        #expect(step.terminated == (env.pairsMatched == pairs))
    }

    @Test(arguments: [(1, 2), (2, 2), (2, 3), (4, 4), (3, 6), (8, 8), (1, 64)])
    func randomGamesKeepEveryInvariant(rows: Int, cols: Int) throws {
        // Random play on 64 cards lasts thousands of steps: fewer games there keep the test within seconds.
        for seed in UInt64(0)..<(rows * cols > 16 ? 6 : 40) {
            let rules = try MemorizeRules(
                rows: rows, cols: cols, revealSeen: seed % 2 == 0, mismatchPenalty: Double(seed % 3) / 4)
            let trace = try Self.fuzz(rules: rules, seed: seed)
            #expect(trace == (try Self.fuzz(rules: rules, seed: seed)), "the same seed and cards give the same episode")
        }
    }
}
