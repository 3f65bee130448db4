// The spawn rule of the original game (Gabriele Cirulli's `game_manager.js`,
// `addRandomTile`): a 2 with probability 0.9 or a 4 with probability 0.1, on a
// uniformly random empty cell. The value is drawn first and the cell second, as
// the original does; the order is part of the trajectory, so it is fixed here.

extension Board {
    /// The row-major indices of the empty cells, in increasing order.
    public var emptyCells: [Int] { (0..<cellCount).filter { storage[$0] == 0 } }

    /// Places a random tile on an empty cell and returns it, or `nil` when the board is full.
    ///
    ///     var rng = Xoshiro256StarStar(seed: 1)
    ///     let spawn = board.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &rng)
    ///
    /// Draws, in this order: the value (a 4 when `rng.bernoulli(threshold:)` is
    /// true, else a 2), then `k = rng.uniform(below: emptyCount)`, and fills the
    /// `k`-th empty cell in row-major order. A full board draws nothing.
    ///
    /// - Parameters:
    ///   - fourThreshold: `bernoulliThreshold(probability: spawnFourProbability)`.
    ///   - rng: the generator the value and the cell are drawn from.
    /// - Complexity: O(`cellCount`).
    @inlinable
    @discardableResult
    public mutating func spawnRandomTile(fourThreshold: UInt64, using rng: inout some RandomNumberGenerator) -> Spawn? {
        let empty = emptyCount
        guard empty > 0 else { return nil }
        let exponent: UInt8 = rng.bernoulli(threshold: fourThreshold) ? 2 : 1
        let k = rng.uniform(below: empty)
        let cell = withCells { Board.cellOfEmpty(k, cells: $0, cellCount: cellCount) }
        withMutableCells { $0.storeBytes(of: exponent, toByteOffset: cell, as: UInt8.self) }
        return Spawn(cell: cell, exponent: exponent)
    }

    /// Every tile that can spawn on this board, with its probability.
    ///
    /// Each empty cell gets a 2 with probability `(1 − p) / empty` and a 4 with
    /// `p / empty`; outcomes of probability 0 are left out. This is the chance
    /// node that expectimax search and exact tests need.
    ///
    /// - Parameter p: the chance that a spawn is a 4.
    /// - Returns: the outcomes in cell order, the 2 before the 4; empty for a full board.
    public func chanceOutcomes(spawnFourProbability p: Double) -> [ChanceOutcome] {
        let cells = emptyCells
        guard !cells.isEmpty else { return [] }
        let n = Double(cells.count)
        var outcomes: [ChanceOutcome] = []
        for cell in cells {
            if p < 1 { outcomes.append(ChanceOutcome(spawn: Spawn(cell: cell, exponent: 1), probability: (1 - p) / n)) }
            if p > 0 { outcomes.append(ChanceOutcome(spawn: Spawn(cell: cell, exponent: 2), probability: p / n)) }
        }
        return outcomes
    }
}

extension Board {
    /// The index of the `k`-th empty cell (from 0) in row-major order.
    ///
    /// Branch-free, eight cells at a time: a multiply turns each word's
    /// empty-cell flags into running counts, one per byte, and a bytewise
    /// subtraction counts the cells before the one wanted. The spawn cell is
    /// uniformly random, so any branch on it would be mispredicted.
    ///
    /// - Precondition: `k` is less than the number of empty cells.
    @inlinable @inline(__always)
    static func cellOfEmpty(_ k: Int, cells: UnsafeRawPointer, cellCount: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        var remaining = UInt64(truncatingIfNeeded: k)
        var cell: UInt64 = 0
        var found: UInt64 = 0
        for index in 0..<((cellCount &+ 7) &>> 3) {
            let first = index &* 8
            let word = loadCellWord(cells, first) | (~prefixMask(bytes: cellCount &- first) & ones)
            let empty = (~(word &+ 0x7F7F_7F7F_7F7F_7F7F) & high) &>> 7
            // Byte b of `prefix` counts the empty cells among bytes 0…b.
            let prefix = empty &* ones
            let count = prefix &>> 56
            // Bytes whose running count is at most `remaining` come before the cell wanted.
            let before = ~((prefix | high) &- (remaining &+ 1) &* ones) & high
            let position = ((before &>> 7) &* ones) &>> 56
            let here: UInt64 = found == 0 && remaining < count ? 1 : 0
            cell |= here &* (UInt64(truncatingIfNeeded: first) &+ position)
            found |= here
            remaining &-= (1 &- found) &* count
        }
        return Int(truncatingIfNeeded: cell)
    }
}
