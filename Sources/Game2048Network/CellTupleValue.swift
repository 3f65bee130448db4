import Game2048

/// Any patterns on a `Board` of any size: each feature's index is read a cell at a time, through the
/// cells of every (pattern, symmetry) pair listed when the network was made. The one reading of networks that
/// may carry an afterstate table (small boards): a board the table holds takes the table's value.
@usableFromInline
package struct CellTupleValue: ValueFunction {
    @usableFromInline package let network: NTupleNetwork

    /// The value function of `network`.
    @inlinable
    package init(_ network: NTupleNetwork) {
        self.network = network
    }

    /// The table's value of `board` if it has one, else the sum of its features.
    @inlinable @inline(__always)
    package func value(of board: Board) -> Float {
        if let table = network.afterstates, let value = table.value(of: board) { return value }
        return featureSum(of: board)
    }

    @inlinable @inline(__always)
    package func forEachFeature(of board: Board, _ body: (Int) -> Void) {
        let board = network.featureBoard(board)
        for feature in 0..<network.featureCount { body(network.featureIndex(feature, of: board)) }
    }

    /// Nothing: a `Board`'s features are computed and read one at a time.
    @inlinable @inline(__always)
    package func prefetch(_ board: Board) {}
}
