// The same network with its patterns' cells listed in another order: how a weights file written with
// the default 4×4 network's earlier cell order (ascending) becomes today's default on load.

extension TuplePattern {
    /// How this pattern's table reads as `target`'s: for each of `target`'s cells, the position in
    /// this pattern of the cell that one symmetry of the board maps onto it; `nil` when no symmetry
    /// maps this pattern's cells onto `target`'s (or either repeats a cell).
    ///
    /// A network reads every pattern in every symmetry, so a pattern and its images under a
    /// symmetry read the same features; only the order of a feature index's digits differs.
    package func digitOrder(as target: TuplePattern, rows: Int, cols: Int) -> [Int]? {
        guard cells.count == target.cells.count, Set(cells).count == cells.count, Set(target.cells).count == cells.count else {
            return nil
        }
        for symmetry in 0..<(rows == cols ? 8 : 4) {
            let images = cells.map { NTupleNetwork.image(of: $0, symmetry: symmetry, rows: rows, cols: cols) }
            let order = target.cells.compactMap { images.firstIndex(of: $0) }
            if order.count == cells.count { return order }
        }
        return nil
    }
}

extension NTupleNetwork {
    /// The digit orders that turn networks of `patterns` into networks of `target` (pattern by
    /// pattern, see ``TuplePattern/digitOrder(as:rows:cols:)``), or `nil` when one of them does not map.
    package static func digitOrders(from patterns: [TuplePattern], to target: [TuplePattern], rows: Int, cols: Int) -> [[Int]]? {
        guard patterns.count == target.count else { return nil }
        var orders: [[Int]] = []
        for (pattern, goal) in zip(patterns, target) {
            guard let order = pattern.digitOrder(as: goal, rows: rows, cols: cols) else { return nil }
            orders.append(order)
        }
        return orders
    }

    /// Moves every weight of every stage to the index it has when each pattern's cells are read in
    /// `orders`' order: the weight at a table's index with digits `d` goes to the index whose digit `k`
    /// is `d[orders[pattern][k]]`.
    ///
    /// - Precondition: one order per pattern, each a permutation of its pattern's cell positions.
    /// - Complexity: O(W), W the number of weights, with one table's worth of scratch memory.
    package func reindexTables(_ orders: [[Int]]) {
        precondition(orders.count == patterns.count, "one digit order per pattern")
        let largest = patterns.map { $0.tableSize(valueCount: valueCount) }.max() ?? 0
        var scratch = [Float](repeating: 0, count: largest)
        for (p, order) in orders.enumerated() {
            let n = patterns[p].cells.count
            precondition(order.count == n && Set(order) == Set(0..<n), "digit order \(order) is not a permutation of 0..<\(n)")
            // A symmetric image in the same order reads its weights where they are.
            if order == Array(0..<n) { continue }
            // What one step of the old index's digit j adds to the new index.
            var scale = [Int](repeating: 0, count: n), power = 1
            for k in 0..<n {
                scale[order[k]] = power
                power *= valueCount
            }
            let size = patterns[p].tableSize(valueCount: valueCount)
            for stage in 0..<stageCount {
                let table = weights.base + stage * stageSize + tableOffsets[p]
                scratch.withUnsafeMutableBufferPointer { old in
                    old.baseAddress!.update(from: table, count: size)
                    // Walk the old indices in order, carrying the new index along like an odometer.
                    var digits = [Int](repeating: 0, count: n), new = 0
                    for index in 0..<size {
                        table[new] = old[index]
                        var j = 0
                        while j < n {
                            digits[j] += 1
                            if digits[j] < valueCount {
                                new += scale[j]
                                break
                            }
                            digits[j] = 0
                            new -= (valueCount - 1) * scale[j]
                            j += 1
                        }
                    }
                }
            }
        }
    }
}
