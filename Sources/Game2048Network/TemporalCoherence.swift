import Game2048

/// The accumulators of temporal coherence (TC) learning, two per weight (Jaśkowski 2018,
/// after Beal & Smith 1999).
///
/// Each weight `i` keeps `E[i]`, the sum of the TD errors it was updated with, and
/// `A[i]`, the sum of their magnitudes. Its own learning rate is `|E[i]| / A[i]`
/// (1 while `A[i]` is 0): near 1 while its errors keep one sign, near 0 once they
/// cancel out. An update with TD error δ is
///
///     w[i] += β / features · |E[i]| / A[i] · δ;   E[i] += δ;   A[i] += |δ|
///
/// with the meta rate β (1 in the papers). The two sums of a weight sit side by side in one
/// allocation (twice the size of the weights, stages included, made only for TC), so an update
/// misses the cache once for them, not twice: the weights are read at random, and TC's extra
/// cost is almost all in those misses.
public final class CoherenceAccumulators: @unchecked Sendable {
    /// `E[i]` at `2i`, `A[i]` at `2i + 1`.
    @usableFromInline let sums: WeightStorage
    /// The number of weights the accumulators serve.
    public let count: Int

    /// Creates zeroed accumulators for `count` weights.
    public init(count: Int) {
        self.count = count
        sums = WeightStorage(count: 2 * count)
    }

    /// `E[index]`: the sum of the TD errors of weight `index`.
    public func error(at index: Int) -> Float { sums[2 * index] }

    /// `A[index]`: the sum of the magnitudes of the TD errors of weight `index`.
    public func magnitude(at index: Int) -> Float { sums[2 * index + 1] }

    /// One TC step on weight `index` of `weights` with TD error `error`, scaled by `step`.
    @inlinable @inline(__always)
    func update(_ weights: UnsafeMutablePointer<Float>, at index: Int, error: Float, step: Float) {
        let pair = sums.base + 2 &* index
        let total = pair[1]
        // Without a branch or a select (which LLVM turns into a branch around the division): a
        // branch on whether a weight was ever updated goes either way at random early in TC, and
        // each mispredict waits for the cache miss it depends on, serializing the 32 misses.
        // `unset` is 1 while `A` is +0 (its bits minus 1 wrap to the sign bit), else 0; while `A`
        // is 0 so is `E`, so the rate is 0 / 1 + 1 there and `|E| / A` exactly after.
        let unset = Float((total.bitPattern &- 1) >> 31)
        let rate = abs(pair[0]) / (total + unset) + unset
        weights[index] += step * rate * error
        pair[0] += error
        pair[1] = total + abs(error)
    }
}

extension NTupleNetwork {
    /// A TC update of every feature of a 4×4 bitboard (see ``CoherenceAccumulators``).
    ///
    /// - Precondition: the network is for 4×4 boards with 16 values per cell.
    public func coherentUpdate(_ board: Bitboard, error: Float, step: Float, accumulators: CoherenceAccumulators) {
        withPackedValue(
            { $0.coherentUpdate(board, error: error, step: step, accumulators: accumulators) },
            { $0.coherentUpdate(board, error: error, step: step, accumulators: accumulators) })
    }

    /// A TC update of every feature of `board` (see ``CoherenceAccumulators``).
    public func coherentUpdate(_ board: Board, error: Float, step: Float, accumulators: CoherenceAccumulators) {
        if let packed = packed(board) { return coherentUpdate(packed, error: error, step: step, accumulators: accumulators) }
        CellTupleValue(self).coherentUpdate(board, error: error, step: step, accumulators: accumulators)
    }
}
