// The two draws the rules make, defined once for any generator so that their
// exact algorithm (and so every trajectory) doesn't depend on the standard
// library's `random(in:)`, whose algorithm is not specified.

extension RandomNumberGenerator {
    /// Returns an integer drawn uniformly from `0..<bound`.
    ///
    ///     rng.uniform(below: 6)   // a fair die, 0...5
    ///
    /// Lemire's method ("Fast random integer generation in an interval", 2019):
    /// take the high word of `next() * bound` (128-bit product); when the low
    /// word is below `(2^64 - bound) % bound`, draw again. Exactly uniform, and
    /// almost never more than one draw.
    ///
    /// - Precondition: `bound > 0`.
    /// - Complexity: O(1) expected.
    @inlinable @inline(__always)
    public mutating func uniform(below bound: Int) -> Int {
        uniform(below: bound, firstDraw: next())
    }

    /// ``uniform(below:)`` whose first `next()` was `first`: what a caller that took the draw itself (to find
    /// the result its own faster way when no second draw is due, that is, when the low word of `first · bound`
    /// is at least `bound`) calls to finish it exactly.
    ///
    /// - Precondition: `bound > 0`.
    @inlinable @inline(__always)
    public mutating func uniform(below bound: Int, firstDraw first: UInt64) -> Int {
        precondition(bound > 0, "uniform(below:) needs a positive bound, got \(bound)")
        let n = UInt64(truncatingIfNeeded: bound)
        var product = first.multipliedFullWidth(by: n)
        if product.low < n {
            let floor = (0 &- n) % n
            while product.low < floor {
                product = next().multipliedFullWidth(by: n)
            }
        }
        return Int(truncatingIfNeeded: product.high)
    }

    /// Returns true with the probability that `threshold` encodes; consumes one `next()`.
    ///
    /// - Parameter threshold: a value from ``bernoulliThreshold(probability:)``.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    public mutating func bernoulli(threshold: UInt64) -> Bool {
        (next() >> 11) < threshold
    }
}

/// The integer threshold that makes `bernoulli(threshold:)` true with probability `p`.
///
///     let fours = bernoulliThreshold(probability: 0.1)   // ⌈0.1 · 2^53⌉
///
/// - Returns: `⌈p · 2^53⌉`, so that `bernoulli` is true exactly when
///   `Double(next() >> 11) / 2^53 < p`.
/// - Precondition: `0 <= p <= 1`.
@inlinable
public func bernoulliThreshold(probability p: Double) -> UInt64 {
    precondition(p >= 0 && p <= 1, "probability must be a number from 0.0 to 1.0, got \(p)")
    // p · 2^53 is exact (a power-of-two scaling); round it up by hand so the
    // module needs no libm.
    let scaled = p * 0x1p53
    let truncated = UInt64(scaled)
    return Double(truncated) < scaled ? truncated + 1 : truncated
}
