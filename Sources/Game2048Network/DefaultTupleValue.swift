import CPrefetch
import Game2048

/// The default 4 × 6-tuple network on the packed 4×4 board: its 32 indices are masks and shifts of
/// the `UInt64` in eight orientations (``NTupleNetwork/defaultFeatureIndices(of:)``), unrolled.
///
/// The fastest of the three ``ValueFunction``s, and the one training and greedy play spend most of
/// their time in: its value sums the 32 weights as four independent trees the CPU overlaps, and its
/// learning step computes the indices once for the read and the write.
@usableFromInline
package struct DefaultTupleValue: ValueFunction {
    @usableFromInline package let network: NTupleNetwork

    /// The value function of `network`, which holds the default 4×4 patterns with 16 values a cell.
    @inlinable
    package init(_ network: NTupleNetwork) {
        self.network = network
    }

    /// The 32 indices, as 32-bit integers (every index is below 4 · 2^24: half the memory of `Int`s, and a
    /// sign-extending load reads one as cheaply as a word).
    @inlinable package static var storedFeatureCount: Int { 32 }

    @inlinable @inline(__always)
    package func storeFeatures(of board: Bitboard, at slot: UnsafeMutablePointer<Int32>) {
        let f = NTupleNetwork.defaultFeatureIndices(of: network.featureBoard(board).rawValue)
        var k = 0
        Self.forEach(f) {
            slot[k] = Int32(truncatingIfNeeded: $0)
            k &+= 1
        }
    }

    /// The 32 indices stored at `slot`, in ``NTupleNetwork/defaultFeatureIndices(of:)``'s order.
    @inlinable @inline(__always)
    static func indices(at slot: UnsafePointer<Int32>) -> NTupleNetwork.DefaultFeatureIndices {
        @inline(__always) func four(_ k: Int) -> NTupleNetwork.OrientationIndices {
            (Int(slot[k]), Int(slot[k &+ 1]), Int(slot[k &+ 2]), Int(slot[k &+ 3]))
        }
        return (four(0), four(4), four(8), four(12), four(16), four(20), four(24), four(28))
    }

    @inlinable @inline(__always)
    package func value(of board: Bitboard, storedAt slot: UnsafePointer<Int32>) -> Float {
        Self.sum(network.weights.base + network.stageOffset(of: board), Self.indices(at: slot))
    }

    @inlinable @inline(__always)
    package func prefetch(_ board: Bitboard, storedAt slot: UnsafePointer<Int32>) {
        let w = UnsafeRawPointer(network.weights.base + network.stageOffset(of: board))
        for k in 0..<32 { prefetch_for_read(w + Int(slot[k]) &* MemoryLayout<Float>.stride) }
    }

    @inlinable @inline(__always)
    package func learn(
        _ board: Bitboard, storedAt slot: UnsafePointer<Int32>, toward target: Float, step: Float, accumulators: CoherenceAccumulators?
    ) {
        learn(board, indices: Self.indices(at: slot), toward: target, step: step, accumulators: accumulators)
    }

    /// Calls `body` with each of the 32 indices of `f`, in order: unrolled (a loop over an array literal of the
    /// eight would allocate).
    @inlinable @inline(__always)
    static func forEach(
        _ f: NTupleNetwork.DefaultFeatureIndices,
        _ body: (Int) -> Void
    ) {
        @inline(__always) func visit(_ i: NTupleNetwork.OrientationIndices) {
            body(i.0)
            body(i.1)
            body(i.2)
            body(i.3)
        }
        visit(f.0)
        visit(f.1)
        visit(f.2)
        visit(f.3)
        visit(f.4)
        visit(f.5)
        visit(f.6)
        visit(f.7)
    }

    @inlinable @inline(__always)
    package func forEachFeature(of board: Bitboard, _ body: (Int) -> Void) {
        Self.forEach(NTupleNetwork.defaultFeatureIndices(of: network.featureBoard(board).rawValue), body)
    }

    /// The value, unrolled: 32 independent loads the CPU can overlap, summed as a tree.
    @inlinable @inline(__always)
    package func value(of board: Bitboard) -> Float {
        let w = network.weights.base + network.stageOffset(of: board)
        return Self.sum(w, NTupleNetwork.defaultFeatureIndices(of: network.featureBoard(board).rawValue))
    }

    /// The 32 weights of `f` summed in ``value(of:)``'s order (so that both give the same Float).
    @inlinable @inline(__always)
    static func sum(
        _ w: UnsafeMutablePointer<Float>,
        _ f: NTupleNetwork.DefaultFeatureIndices
    ) -> Float {
        @inline(__always) func four(_ i: NTupleNetwork.OrientationIndices) -> Float { (w[i.0] + w[i.1]) + (w[i.2] + w[i.3]) }
        return ((four(f.0) + four(f.1)) + (four(f.2) + four(f.3))) + ((four(f.4) + four(f.5)) + (four(f.6) + four(f.7)))
    }

    /// The same, bit for bit, as the default `learn` (the value, then the update of every feature in
    /// ``forEachFeature(of:_:)``'s order), but with the 32 indices computed once for both.
    @inlinable @inline(__always)
    package func learn(_ board: Bitboard, toward target: Float, step: Float, accumulators: CoherenceAccumulators?) {
        learn(
            board, indices: NTupleNetwork.defaultFeatureIndices(of: network.featureBoard(board).rawValue), toward: target, step: step,
            accumulators: accumulators)
    }

    /// `learn` with `board`'s indices given: the value read and the weights written through the same 32.
    @inlinable @inline(__always)
    func learn(
        _ board: Bitboard,
        indices: NTupleNetwork.DefaultFeatureIndices,
        toward target: Float, step: Float, accumulators: CoherenceAccumulators?
    ) {
        let offset = network.stageOffset(of: board), w = network.weights.base + offset
        let value = Self.sum(w, indices)
        // Symmetric twins share a weight and are updated twice, as in `update(_:by:)`. Inlined into each
        // branch below.
        if let accumulators {
            precondition(accumulators.count == network.weights.count, "the accumulators are for another network")
            let error = target - value, base = network.weights.base
            Self.forEach(indices) { accumulators.update(base, at: offset + $0, error: error, step: step) }
        } else {
            let delta = step * (target - value)
            Self.forEach(indices) { w[$0] += delta }
        }
    }
}
