import Testing
@testable import Game2048
@testable import GymCore

/// A generator that replays fixed outputs, to check the draws' arithmetic exactly.
struct ScriptedGenerator: RandomNumberGenerator {
    var outputs: [UInt64]
    var drawn = 0
    mutating func next() -> UInt64 {
        defer { drawn += 1 }
        return outputs[drawn]
    }
}

struct RandomNumberGeneratorDrawsTests {
    @Test func uniformTakesTheHighWordOfTheProduct() {
        var g = ScriptedGenerator(outputs: [(1 << 63) + 1, UInt64.max, 0x5555_5555_5555_5556])
        #expect(g.uniform(below: 6) == 3)  // (2^63 + 1) · 6 = 3 · 2^64 + 6
        #expect(g.uniform(below: 6) == 5)  // just under 6
        #expect(g.uniform(below: 3) == 1)  // (⌊2^64/3⌋ + 1) · 3 = 2^64 + 2
        #expect(g.drawn == 3)
    }

    @Test func uniformRejectsTheBiasedLowProducts() {
        // For bound 3, (2^64 − 3) mod 3 = 1: a low word of 0 is rejected and drawn again.
        var g = ScriptedGenerator(outputs: [0, 1 << 63])
        #expect(g.uniform(below: 3) == 1)
        #expect(g.drawn == 2)
        // Bound 1 never rejects and always gives 0.
        var one = ScriptedGenerator(outputs: [0])
        #expect(one.uniform(below: 1) == 0)
        #expect(one.drawn == 1)
    }

    @Test(arguments: [1, 2, 3, 7, 16, 63, 64, 1000])
    func uniformStaysInRangeAndIsRoughlyUniform(bound: Int) {
        var rng = Xoshiro256StarStar(seed: 70 + UInt64(bound))
        var counts = [Int](repeating: 0, count: bound)
        let perBucket = 400
        for _ in 0..<(perBucket * bound) {
            let x = rng.uniform(below: bound)
            #expect((0..<bound).contains(x))
            if (0..<bound).contains(x) { counts[x] += 1 }
        }
        // Each bucket within ±25 % of its expectation (more than 5 standard deviations).
        #expect(counts.allSatisfy { (300...500).contains($0) }, "\(counts.filter { !(300...500).contains($0) })")
    }

    static let thresholds: [(Double, UInt64)] = [
        (0, 0),
        (1, 1 << 53),
        (0.5, 1 << 52),
        (0.1, 900_719_925_474_100),  // ⌈0.1 · 2^53⌉, with 0.1 the double nearest to it
        (0.9, 8_106_479_329_266_893),
        (0x1p-53, 1),
        (0x1p-60, 1),  // below one unit rounds up, so p > 0 can still happen
    ]

    @Test(arguments: thresholds)
    func bernoulliThresholdIsTheCeilingOfPTimes2To53(p: Double, threshold: UInt64) {
        #expect(bernoulliThreshold(probability: p) == threshold)
    }

    @Test func bernoulliComparesTheTop53Bits() {
        let t: UInt64 = 1000
        var g = ScriptedGenerator(outputs: [(t - 1) << 11 | 0x7FF, t << 11, 0, UInt64.max])
        let draws = [
            g.bernoulli(threshold: t), g.bernoulli(threshold: t),
            g.bernoulli(threshold: 0),  // p = 0: never
            g.bernoulli(threshold: 1 << 53),
        ]  // p = 1: always
        #expect(draws == [true, false, false, true])
        #expect(g.drawn == 4)
    }
}
