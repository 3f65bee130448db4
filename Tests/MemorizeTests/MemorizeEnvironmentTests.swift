import GymCore
import Testing

@testable import Memorize

/// The rules on hand-made decks: turning, matching, mismatching, the observation's codes, illegal cards.
struct MemorizeEnvironmentTests {
    /// Two pairs, laid out `A B A B`.
    static let deck = try! Deck(contents: [0, 1, 0, 1])

    static func environment(revealSeen: Bool = false, penalty: Double = 0) throws -> MemorizeEnvironment {
        var env = MemorizeEnvironment(rules: try MemorizeRules(rows: 1, cols: 4, revealSeen: revealSeen, mismatchPenalty: penalty))
        env.reset(deck: deck)
        return env
    }

    @Test func aFirstCardStaysFaceUpAndEarnsNothing() throws {
        var env = try Self.environment()
        let step = try env.step(0)
        #expect(step.observation == [2, 0, 0, 0])
        #expect(step.reward == 0 && !step.terminated && !step.truncated)
        #expect(step.info.actionMask == CardSet(bits: 0b1110))
        #expect(step.info.steps == 1 && step.info.moves == 0)
    }

    @Test func aMismatchStaysFaceUpUntilTheNextCardIsTurned() throws {
        var env = try Self.environment(penalty: 0.25)
        _ = try env.step(0)
        let mismatch = try env.step(1)
        #expect(mismatch.observation == [2, 3, 0, 0])
        #expect(mismatch.reward == -0.25)
        #expect(mismatch.info.actionMask == CardSet(bits: 0b1100), "both face-up cards are illegal")
        #expect(mismatch.info.mismatches == 1 && mismatch.info.moves == 1)
        let next = try env.step(3)
        #expect(next.observation == [0, 0, 0, 3], "the mismatched pair went face down as card 3 turned")
        #expect(next.info.actionMask == CardSet(bits: 0b0111))
    }

    @Test func aMatchLeavesPlayAndTheLastOneTerminates() throws {
        var env = try Self.environment()
        _ = try env.step(0)
        let match = try env.step(2)
        #expect(match.observation == [1, 0, 1, 0])
        #expect(match.reward == 1 && !match.terminated)
        #expect(match.info.actionMask == CardSet(bits: 0b1010))
        _ = try env.step(3)
        let last = try env.step(1)
        #expect(last.observation == [1, 1, 1, 1])
        #expect(last.reward == 1 && last.terminated && !last.truncated)
        #expect(last.info.pairsMatched == 2 && last.info.moves == 2 && last.info.steps == 4)
        #expect(env.isOver)
    }

    @Test func revealSeenShowsWhatWasSeenOnceFaceDown() throws {
        var env = try Self.environment(revealSeen: true)
        _ = try env.step(0)
        _ = try env.step(1)
        let step = try env.step(3)
        // pairs = 2: seen content c is 2 + 2 + c.
        #expect(step.observation == [4, 5, 0, 3])
        #expect(CardView(code: 5, pairs: 2) == .seen(content: 1))
    }

    @Test func illegalCardsAreRefusedAndChangeNothing() throws {
        var env = try Self.environment()
        _ = try env.step(0)
        let before = env
        #expect(throws: MemorizeStepError.faceUp(0)) { try env.step(0) }
        #expect(throws: MemorizeStepError.noSuchCard(4, cardCount: 4)) { try env.step(4) }
        #expect(throws: MemorizeStepError.noSuchCard(-1, cardCount: 4)) { try env.step(-1) }
        _ = try env.step(2)
        #expect(throws: MemorizeStepError.matched(2)) { try env.step(2) }
        #expect("\(MemorizeStepError.matched(2))" == "card 2 is matched: only face-down cards may be turned")
        #expect("\(MemorizeStepError.noSuchCard(4, cardCount: 4))" == "card 4 is not a card: the cards are 0 to 3")
        var again = before
        _ = try again.step(2)
        #expect(again.observation == env.observation && again.info == env.info)
    }

    @Test func everyCodeRoundTrips() {
        for pairs in 1...32 {
            for code in 0...CardView.maxCode(pairs: pairs) {
                let view = CardView(code: UInt8(code), pairs: pairs)
                #expect(view?.code(pairs: pairs) == UInt8(code))
            }
            #expect(CardView(code: UInt8(CardView.maxCode(pairs: pairs) + 1), pairs: pairs) == nil)
        }
    }
}

/// Decks, seeds and the generator: the same seed gives the same decks everywhere.
struct MemorizeSeedingTests {
    @Test func aShuffledDeckHoldsEveryPairOnce() {
        var rng = Xoshiro256StarStar(seed: 7)
        for pairs in 1...32 {
            let deck = Deck.shuffled(pairs: pairs, using: &rng)
            #expect(deck.contents.sorted() == (0..<(2 * pairs)).map { UInt8($0 / 2) })
            #expect((try? Deck(contents: deck.contents.map(Int.init))) == deck)
        }
    }

    /// Pinned: a change to the shuffle or the generator changes every episode, and must be seen.
    @Test func theDeckOfSeed42IsPinned() {
        var env = MemorizeEnvironment(rules: MemorizeRules())
        env.reset(seed: 42)
        #expect(env.deck.contents == MemorizeSeedingTests.seed42)
    }

    static let seed42: [UInt8] = [1, 7, 0, 1, 7, 5, 2, 3, 6, 3, 4, 5, 6, 4, 2, 0]

    @Test func aResetWithoutSeedContinuesTheStream() {
        var a = MemorizeEnvironment(rules: MemorizeRules()), b = a
        a.reset(seed: 5)
        a.reset()
        b.reset(seed: 5)
        #expect(a.deck != b.deck)
        b.reset()
        #expect(a.deck == b.deck)
        var fresh = MemorizeEnvironment(rules: MemorizeRules(), seed: 5)
        fresh.reset()
        var seeded = MemorizeEnvironment(rules: MemorizeRules())
        seeded.reset(seed: 5)
        #expect(fresh.deck == seeded.deck, "a new environment starts from its initializer's seed")
    }

    @Test func shufflesAreUniformOverTwoPairs() {
        // 4!/(2!·2!)·… : the 6 layouts of two pairs labelled by first appearance reduce to 3 shapes; each of the
        // 24 orders is equally likely, so shape AABB, ABAB and ABBA each have probability 1/3.
        var rng = Xoshiro256StarStar(seed: 3)
        var shapes = [String: Int]()
        let trials = 60_000
        for _ in 0..<trials {
            let c = Deck.shuffled(pairs: 2, using: &rng).contents
            let shape = c[0] == c[1] ? "AABB" : c[0] == c[2] ? "ABAB" : "ABBA"
            shapes[shape, default: 0] += 1
        }
        for (_, n) in shapes {
            // 1/3 within 5 standard errors (sd of a count: sqrt(n·p·(1−p)) ≈ 115).
            #expect(abs(n - trials / 3) < 600)
        }
    }

    @Test func forgedDecksAreRefused() {
        #expect(throws: DeckError.cardCount(3)) { try Deck(contents: [0, 0, 1]) }
        #expect(throws: DeckError.content(card: 1, content: 5, pairs: 2)) { try Deck(contents: [0, 5, 0, 1]) }
        #expect(throws: DeckError.thirdCard(card: 2, content: 0)) { try Deck(contents: [0, 0, 0, 1]) }
    }
}

/// The rules' values and the options' table: checked once, with the words every door uses.
struct MemorizeRulesTests {
    @Test func outOfRangeValuesNameTheOptionAndTheRange() {
        #expect(throws: MemorizeRulesError.self) { try MemorizeRules(rows: 0, cols: 4) }
        #expect("\(catching { try MemorizeRules(rows: 0, cols: 4) })" == "rows must be an integer from 1 to 64, got 0")
        #expect("\(catching { try MemorizeRules(rows: 3, cols: 3) })" == "rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9")
        #expect("\(catching { try MemorizeRules(rows: 2, cols: 33) })" == "rows·cols must be an even number of cards from 2 to 64, got 2x33 = 66")
        #expect(
            "\(catching { try MemorizeRules(rows: 2, cols: 2, mismatchPenalty: -1) })"
                == "mismatch_penalty must be a number from 0.0 to 1000000.0, got -1.0")
        #expect((try? MemorizeRules(rows: 1, cols: 2)) != nil)
        #expect((try? MemorizeRules(rows: 1, cols: 64)) != nil)
    }

    @Test func everyOptionSetsAndReadsItsField() throws {
        var settings = MemorizeSettings(MemorizeRules())
        let values: [(String, OptionValue)] = [
            ("rows", .integer(2)), ("cols", .integer(5)), ("reveal_seen", .boolean(true)), ("mismatch_penalty", .number(0.5)),
        ]
        for (name, value) in values {
            let option = try #require(MemorizeOption.named(name))
            #expect(option.assign(value, to: &settings))
            #expect(option.value(in: settings) == value)
        }
        #expect(Set(MemorizeOption.all.map(\.name)).count == MemorizeOption.all.count)
        #expect(values.map(\.0) == MemorizeOption.all.map(\.name))
        let rules = try settings.rules()
        #expect(rules == (try MemorizeRules(rows: 2, cols: 5, revealSeen: true, mismatchPenalty: 0.5)))
    }

    @Test func valuesOfTheWrongTypeOrRangeAreNotStored() {
        var settings = MemorizeSettings(MemorizeRules())
        let before = settings
        #expect(!MemorizeOption.rows.assign(.integer(65), to: &settings))
        #expect(!MemorizeOption.rows.assign(.number(4), to: &settings))
        #expect(!MemorizeOption.revealSeen.assign(.integer(1), to: &settings))
        #expect(!MemorizeOption.mismatchPenalty.assign(.number(.nan), to: &settings))
        #expect(!MemorizeOption.cols.assign(.null, to: &settings))
        #expect(settings == before)
        #expect(MemorizeOption.revealSeen.rejection(of: .integer(1)) == "reveal_seen must be true or false, got 1")
    }
}

/// The error a throwing call throws, for its message.
func catching<T>(_ body: () throws -> T) -> any Error {
    do {
        _ = try body()
    } catch {
        return error
    }
    Issue.record("no error thrown")
    return CancellationError()
}
