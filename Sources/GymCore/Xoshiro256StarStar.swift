/// The package's seeded random number generator: xoshiro256** by Blackman and
/// Vigna, seeded through ``SplitMix64``.
///
///     var rng = Xoshiro256StarStar(seed: 7)
///     let cell = rng.uniform(below: 16)       // 0..<16
///     let four = rng.bernoulli(threshold: bernoulliThreshold(probability: 0.1))
///
/// All randomness in Gym2048 comes from this generator, so a seed and a list of
/// actions give the same trajectory on every machine and build. The exact
/// algorithm (the README repeats it):
///
/// - Seeding: the four state words are the first four outputs of
///   `SplitMix64(seed: seed)`.
/// - `next()`: `result = rotl(s1 &* 5, 7) &* 9`; `t = s1 << 17`; `s2 ^= s0`;
///   `s3 ^= s1`; `s1 ^= s2`; `s0 ^= s3`; `s2 ^= t`; `s3 = rotl(s3, 45)`.
///   Reference: <https://prng.di.unimi.it/xoshiro256starstar.c>.
/// - `uniform(below:)`: Lemire's multiply-and-shift with rejection, exactly
///   uniform (see the method).
/// - `bernoulli(threshold:)`: true when the top 53 bits of one `next()` are
///   below the threshold `⌈p · 2^53⌉`.
@frozen
public struct Xoshiro256StarStar: RandomNumberGenerator, Hashable, Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// Creates a generator from a 64-bit seed, expanded with ``SplitMix64``.
    ///
    /// - Complexity: O(1).
    @inlinable
    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    /// Returns the next 64 random bits.
    ///
    /// - Complexity: O(1).
    /// The generator's four state words, in order: with ``init(words:)``, how a saved state restores it.
    public var words: [UInt64] { [s0, s1, s2, s3] }

    /// The generator whose state is `words` (as ``words`` gave them), or `nil` when there are not four words
    /// or all four are zero (a state the generator can never leave, and never reaches from a seed).
    public init?(words: [UInt64]) {
        guard words.count == 4, words.contains(where: { $0 != 0 }) else { return nil }
        (s0, s1, s2, s3) = (words[0], words[1], words[2], words[3])
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = Xoshiro256StarStar.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Xoshiro256StarStar.rotl(s3, 45)
        return result
    }

    @inlinable @inline(__always)
    static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x &<< k) | (x &>> (64 &- k)) }
}
