import CPrefetch
import Game2048

/// A small board's network read straight off a ``PackedGrid`` key: the tuples' sum ``CellTupleValue`` gives for the
/// same board, the same Float, without building a `Board` (the afterstate learner reads tens of millions a minute).
///
/// The features are summed in ``CellTupleValue``'s order, each index made the same way (the exponents capped at
/// `valueCount − 1`, the first cell the lowest digit), so the two agree to the bit (the tests compare them).
package struct PackedTupleReader {
    let network: NTupleNetwork
    /// Per feature, its cells' bit offsets (`4 × cell`), from `cellStarts[f]` to `cellStarts[f + 1]`.
    let cellShifts: [UInt64]
    let cellStarts: [Int]
    /// Per feature, where its pattern's table starts.
    let tableOffsets: [Int]
    let cap: UInt64

    package init(_ network: NTupleNetwork) {
        precondition(network.reading == .cells && network.rows * network.cols <= 16, "a packed key holds at most 16 cells")
        self.network = network
        cellShifts = network.featureCells.map { 4 * UInt64($0) }
        cellStarts = network.featureStarts
        tableOffsets = network.featurePatterns.map { network.tableOffsets[$0] }
        cap = UInt64(network.valueCount - 1)
    }

    /// The tuples' sum of the board `key`.
    @inline(__always)
    package func value(of key: UInt64) -> Float {
        var sum: Float = 0
        forEachWeight(of: key) { sum += $0.pointee }
        return sum
    }

    /// Starts loading the weights of the board `key` into the cache, so that a later ``value(of:)`` need not wait
    /// for each miss in turn.
    @inline(__always)
    package func prefetch(_ key: UInt64) {
        forEachWeight(of: key) { prefetch_for_read($0) }
    }

    /// Calls `body` with the address of each of the board `key`'s weights, feature by feature.
    @inline(__always)
    private func forEachWeight(of key: UInt64, _ body: (UnsafeMutablePointer<Float>) -> Void) {
        let valueCount = network.valueCount
        // As `NTupleNetwork.stageOffset(of:)`: the largest tile is looked at only when there are stages.
        let stage = network.stageCount == 1 ? 0 : network.stage(maxExponent: PackedGrid.highestExponent(key))
        let w = network.weights.base + stage &* network.stageSize
        // A key holds a cell at bits 4c…4c+3, as a bitboard does; the cells past the board's are empty.
        let key = network.featureBoard(Bitboard(rawValue: key)).rawValue
        cellShifts.withUnsafeBufferPointer { shifts in
            for feature in 0..<tableOffsets.count {
                var index = 0, scale = 1
                for position in cellStarts[feature]..<cellStarts[feature + 1] {
                    index &+= Int(truncatingIfNeeded: min((key >> shifts[position]) & 0xF, cap)) &* scale
                    scale &*= valueCount
                }
                body(w + (tableOffsets[feature] &+ index))
            }
        }
    }
}
