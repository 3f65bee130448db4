/// Sebastiano Vigna's SplitMix64 generator, used to expand one 64-bit seed into
/// the state of ``Xoshiro256StarStar`` and into per-environment seeds.
///
///     var mixer = SplitMix64(seed: 42)
///     let a = mixer.next()   // 0xBDD732262FEB6E95
///
/// Each call adds the golden-ratio increment `0x9E3779B97F4A7C15` to the state
/// and returns the state passed through the finalizer
/// `z ^= z >> 30; z &*= 0xBF58476D1CE4E5B9; z ^= z >> 27; z &*= 0x94D049BB133111EB; z ^= z >> 31`.
/// Reference: <https://prng.di.unimi.it/splitmix64.c>.
@frozen
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's whole state.
    public var state: UInt64

    /// Creates a generator whose state is `seed`.
    @inlinable
    public init(seed: UInt64) { state = seed }

    /// Returns the next 64 random bits.
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seeds of `count` environments stepped together, derived from one base `seed`: the first `count`
    /// outputs of `SplitMix64(seed: seed)`. Every game's vector environment seeds its lanes this way.
    public static func seeds(from seed: UInt64, count: Int) -> [UInt64] {
        var mixer = SplitMix64(seed: seed)
        return (0..<count).map { _ in mixer.next() }
    }
}
