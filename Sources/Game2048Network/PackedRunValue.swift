import Game2048

/// Any patterns on the packed 4×4 board: each pattern's index comes from its runs of consecutive
/// cells (``NTupleNetwork/PackedRun``), a shift and a mask each, in the eight orientations.
///
/// The 8 × 6-tuple network's patterns take two runs each on average instead of six cells.
@usableFromInline
package struct PackedRunValue: ValueFunction {
    @usableFromInline package let network: NTupleNetwork

    /// The value function of `network`, a 4×4 network with 16 values a cell.
    @inlinable
    package init(_ network: NTupleNetwork) {
        self.network = network
    }

    /// Not forced inline: its loops over patterns and runs are large, and a copy at each of a move's
    /// reads (four values, four prefetches, a learning step) measured slower than a call.
    @inlinable
    package func forEachFeature(of board: Bitboard, _ body: (Int) -> Void) {
        let o = NTupleNetwork.orientations(of: network.featureBoard(board).rawValue)
        // The three arrays' storage, read without bounds checks (their sizes are fixed at init: one start
        // per pattern and one more, one run or more per pattern, one offset per pattern).
        network.packedRuns.withUnsafeBufferPointer { runs in
            network.packedRunStarts.withUnsafeBufferPointer { starts in
                network.tableOffsets.withUnsafeBufferPointer { offsets in
                    @inline(__always) func visit(_ x: UInt64) {
                        for p in 0..<offsets.count {
                            var index = 0
                            for run in runs[starts[p]..<starts[p + 1]] {
                                index |= Int(truncatingIfNeeded: (x >> run.source) & run.mask) << run.destination
                            }
                            body(offsets[p] + index)
                        }
                    }
                    NTupleNetwork.forEach(o, visit)
                }
            }
        }
    }
}
