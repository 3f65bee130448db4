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
/// with the meta rate β (1 in the papers). The arrays have the size of the weights,
/// stages included, and are allocated only for TC.
public final class CoherenceAccumulators: @unchecked Sendable {
    /// `E`: the sum of each weight's TD errors.
    public let errors: WeightStorage
    /// `A`: the sum of the magnitudes of each weight's TD errors.
    public let magnitudes: WeightStorage

    /// Creates zeroed accumulators for `count` weights.
    public init(count: Int) {
        errors = WeightStorage(count: count)
        magnitudes = WeightStorage(count: count)
    }

    /// One TC step on weight `index` of `weights` with TD error `error`, scaled by `step`.
    @inlinable @inline(__always)
    func update(_ weights: UnsafeMutablePointer<Float>, at index: Int, error: Float, step: Float) {
        let e = errors.base, a = magnitudes.base
        let total = a[index]
        let rate = total == 0 ? 1 : abs(e[index]) / total
        weights[index] += step * rate * error
        e[index] += error
        a[index] = total + abs(error)
    }
}

extension NTupleNetwork {
    /// A TC update of every feature of a 4×4 bitboard (see ``CoherenceAccumulators``).
    @inlinable
    public func coherentUpdate(_ board: Bitboard, error: Float, step: Float, accumulators: CoherenceAccumulators) {
        precondition(packedLayout != .none, "coherentUpdate(_: Bitboard, …) needs a 4x4 network with 16 values per cell")
        precondition(accumulators.errors.count == weights.count, "the accumulators are for another network")
        let offset = stageOffset(of: board), w = weights.base
        forEachFeature(of: board) { accumulators.update(w, at: offset + $0, error: error, step: step) }
    }

    /// A TC update of every feature of `board` (see ``CoherenceAccumulators``).
    public func coherentUpdate(_ board: Board, error: Float, step: Float, accumulators: CoherenceAccumulators) {
        precondition(accumulators.errors.count == weights.count, "the accumulators are for another network")
        let w = weights.base
        forEachFeature(of: board) { accumulators.update(w, at: $0, error: error, step: step) }
    }
}
