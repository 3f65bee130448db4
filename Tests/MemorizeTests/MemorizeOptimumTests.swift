import GymCore
import Testing

@testable import Memorize

/// The exact expectations, against values worked by hand, against every deck played out, and against play.
struct MemorizeOptimumTests {
    static let table = MemorizeOptimum(maxPairs: 32)

    /// Worked by hand (docs/MEMORIZE.md): one pair takes 1 move; two pairs 1/3·2 + 2/3·3 = 8/3; three 13/3.
    @Test func smallGamesHaveTheirHandWorkedValues() {
        #expect(abs(Self.table.optimalMoves(pairs: 1) - 1) < 1e-12)
        #expect(abs(Self.table.optimalMoves(pairs: 2) - 8.0 / 3) < 1e-12)
        #expect(abs(Self.table.optimalMoves(pairs: 3) - 13.0 / 3) < 1e-12)
        #expect(abs(Self.table.perfectMemoryMoves(unseen: 3, known: 1) - 7.0 / 3) < 1e-12)
        #expect(abs(Self.table.perfectMemoryMoves(unseen: 4, known: 2) - 3.5) < 1e-12)
    }

    /// The choice of the second card, worked by hand at 4 unseen and 2 known cards: a known card leaves 3 unseen
    /// and 3 known, 1 + 3 = 4 moves; an unseen card matches its partner (1/3, then 1 + E(2, 2) = 3) or a known card
    /// (2/3, then 2 + E(2, 2) = 4): 11/3, the better.
    @Test func theSecondCardChoiceHasItsHandWorkedValues() {
        let choice = Self.table.secondCardMoves(unseen: 4, known: 2)
        #expect(abs(choice.known! - 4) < 1e-12 && abs(choice.unseen - 11.0 / 3) < 1e-12)
        #expect(Self.table.secondCardMoves(unseen: 6, known: 0).known == nil)
        #expect(!Self.table.turnsKnownSecond(unseen: 4, known: 2))
    }

    /// The perfect-memory rule is optimal play: in no state of up to 32 pairs is a known second card (or a known
    /// first card) better, so the two tables agree everywhere.
    @Test func thePerfectMemoryRuleIsOptimalInEveryState() {
        for u in 1...64 {
            for k in stride(from: u % 2, through: u, by: 2) {
                #expect(Self.table.optimalMoves(unseen: u, known: k) == Self.table.perfectMemoryMoves(unseen: u, known: k))
                if u > k && k > 0 { #expect(!Self.table.turnsKnownSecond(unseen: u, known: k)) }
            }
        }
    }

    @Test func optimalPlayIsNeverWorseAndApproachesTheFormula() {
        var previousGap = Double.infinity
        for pairs in 1...32 {
            let optimal = Self.table.optimalMoves(pairs: pairs), perfect = Self.table.perfectMemoryMoves(pairs: pairs)
            #expect(optimal <= perfect + 1e-12)
            #expect(optimal >= Double(pairs), "a pair takes a move at least")
            let gap = abs(optimal - MemorizeOptimum.asymptoticMoves(pairs: pairs))
            if pairs >= 8 { #expect(gap <= previousGap + 1e-9, "the formula's error shrinks as pairs grow (\(pairs))") }
            previousGap = gap
        }
        #expect(previousGap < 0.01)
    }

    /// Every deck of up to 4 pairs (2 520 of them for 4), played by the perfect-memory player with a generator
    /// that always picks the first candidate: the mean over the decks is the expectation exactly (the deck is
    /// uniform, so which unseen card is picked does not matter).
    @Test func everyDeckPlayedOutGivesTheExpectationExactly() throws {
        for pairs in 1...4 {
            let rules = try MemorizeRules(rows: 1, cols: 2 * pairs)
            for agent in [MemorizeAgent.perfectMemory] {
                var total = 0, decks = 0
                for contents in Self.layouts(pairs: pairs) {
                    var env = MemorizeEnvironment(rules: rules)
                    var state = env.reset(deck: try Deck(contents: contents))
                    var player = agent.player(rules: rules)
                    var first = FirstChoice()
                    while !env.isOver {
                        let step = try env.step(player.choose(observation: state.observation, legal: state.info.actionMask, using: &first))
                        state = MemorizeReset(observation: step.observation, info: step.info)
                    }
                    total += env.info.moves
                    decks += 1
                }
                let expected = Self.table.perfectMemoryMoves(pairs: pairs)
                #expect(abs(Double(total) / Double(decks) - expected) < 1e-9, "\(agent.name), \(pairs) pairs")
            }
        }
    }

    /// Every distinct layout of `pairs` pairs, each once (contents numbered by first appearance, so no two are
    /// relabellings of each other): (2n)! / (2^n · n!) layouts, each equally likely under a uniform shuffle.
    static func layouts(pairs: Int) -> [[Int]] {
        var result: [[Int]] = []
        func fill(_ cards: inout [Int], _ next: Int) {
            guard let free = cards.firstIndex(of: -1) else { return result.append(cards) }
            cards[free] = next
            for partner in (free + 1)..<cards.count where cards[partner] == -1 {
                cards[partner] = next
                fill(&cards, next + 1)
                cards[partner] = -1
            }
            cards[free] = -1
        }
        var cards = [Int](repeating: -1, count: 2 * pairs)
        fill(&cards, 0)
        return result
    }

    @Test func thePlayersMeanMovesAreTheExpectationsWithinThreeStandardErrors() throws {
        for pairs in [2, 5, 8] {
            let rules = try MemorizeRules(rows: 2, cols: pairs)
            let perfect = MemorizeEvaluation(rules: rules, agent: .perfectMemory, games: 5_000, seed: UInt64(pairs))
            #expect(abs(perfect.meanMoves - Self.table.perfectMemoryMoves(pairs: pairs)) < 3 * perfect.movesStandardError + 1e-9)
            #expect(perfect.finished == 5_000 && perfect.meanReward == Double(pairs))
        }
    }

    @Test func lessMemoryTakesMoreMoves() throws {
        let rules = try MemorizeRules(rows: 4, cols: 4)
        let moves = [MemorizeAgent.random, .forgetful(memory: 2), .forgetful(memory: 6), .perfectMemory].map {
            MemorizeEvaluation(rules: rules, agent: $0, games: 4_000, seed: 9).meanMoves
        }
        #expect(moves == moves.sorted(by: >), "\(moves)")
    }

    @Test func aPlayerTurnsOnlyLegalCardsAndEvaluationIsDeterministic() throws {
        let rules = try MemorizeRules(rows: 2, cols: 3, revealSeen: true, mismatchPenalty: 0.5)
        for agent in MemorizeAgent.allCases {
            let a = MemorizeEvaluation(rules: rules, agent: agent, games: 500, seed: 4)
            #expect(a == MemorizeEvaluation(rules: rules, agent: agent, games: 500, seed: 4))
        }
    }
}

/// A generator whose `uniform(below:)` is always 0: the players' first candidate.
struct FirstChoice: RandomNumberGenerator {
    mutating func next() -> UInt64 { 1 }
}
