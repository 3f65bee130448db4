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
    /// - Parameter fourThreshold: `bernoulliThreshold(probability: spawnFourProbability)`.
    /// - Complexity: O(`cellCount`).
    @inlinable
    @discardableResult
    public mutating func spawnRandomTile(fourThreshold: UInt64, using rng: inout some RandomNumberGenerator) -> Spawn? {
        let empty = emptyCount
        guard empty > 0 else { return nil }
        let exponent: UInt8 = rng.bernoulli(threshold: fourThreshold) ? 2 : 1
        var k = rng.uniform(below: empty)
        let cellCount = self.cellCount
        // Skip whole words of eight cells by their empty counts, then walk one word.
        var first = 0
        while true {
            let inWord = Board.zeroByteCount(loadCells(from: first))
            if k < inWord { break }
            k &-= inWord
            first &+= 8
        }
        var cells = storage.mutableSpan
        for cell in first..<min(first &+ 8, cellCount) where cells[unchecked: cell] == 0 {
            if k == 0 {
                cells[unchecked: cell] = exponent
                return Spawn(cell: cell, exponent: exponent)
            }
            k &-= 1
        }
        preconditionFailure("unreachable: fewer empty cells than counted")
    }

    /// Every tile that can spawn on this board, with its probability.
    ///
    /// Each empty cell gets a 2 with probability `(1 − p) / empty` and a 4 with
    /// `p / empty`; outcomes of probability 0 are left out. This is the chance
    /// node that expectimax search and exact tests need.
    ///
    /// - Parameter spawnFourProbability: `p`, the chance that a spawn is a 4.
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
