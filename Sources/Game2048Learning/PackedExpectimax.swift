import Game2048

/// ``Expectimax`` on the packed 4×4 board: the same search, for a network that reads bitboards.
///
/// The generic search builds a `Board` and an array of spawns at every chance node and caches in a
/// dictionary; this one keeps each board in a `UInt64`, makes moves with `Bitboard.MoveTable`, walks
/// the empty nibbles for spawns, and caches in a fixed ``TranspositionTable``. It visits the same nodes
/// in the same order and sums in the same order, so with the same settings it gives the same values,
/// moves and node counts (the tests compare both on random boards). ``Expectimax`` hands a decision to
/// it whenever it applies (see ``Expectimax/packedBoard(of:)``).
struct PackedExpectimax {
    let network: NTupleNetwork
    let moves = Bitboard.MoveTable()
    var table = TranspositionTable()
    /// The settings shared with ``Expectimax``.
    let nodeBudget: Int?
    let pruneBelow: Double
    let downgradeLimit: UInt8?
    var nodes = 0
    var exhausted = false

    init(network: NTupleNetwork, nodeBudget: Int?, pruneBelow: Double, downgradeLimit: UInt8?) {
        self.network = network
        self.nodeBudget = nodeBudget
        self.pruneBelow = pruneBelow
        self.downgradeLimit = downgradeLimit
    }

    /// Starts a decision: an empty table and node count.
    mutating func begin() {
        table.clear()
        nodes = 0
        exhausted = false
    }

    /// `Expectimax.maxNode` on a packed board.
    mutating func maxNode(_ board: Bitboard, depth: Int, p: Double, reach: Double) -> (value: Float, action: Direction?) {
        var best: (value: Float, action: Direction?) = (0, nil)
        for direction in Direction.allCases {
            let outcome = moves.move(board, direction)
            guard outcome.changed else { continue }
            let value = Float(outcome.reward) + chanceNode(outcome.afterstate, depth: depth, p: p, reach: reach)
            if best.action == nil || value > best.value { best = (value, direction) }
        }
        return best
    }

    /// `Expectimax.chanceNode` on a packed board; `reach` is the probability of the spawns that led here.
    mutating func chanceNode(_ afterstate: Bitboard, depth: Int, p: Double, reach: Double) -> Float {
        if exhausted { return 0 }
        nodes &+= 1
        if let nodeBudget, nodes > nodeBudget {
            exhausted = true
            return 0
        }
        if depth == 0 || reach < pruneBelow { return evaluate(afterstate) }
        if let cached = table.value(of: afterstate.rawValue, depth: depth) { return cached }
        let empty = afterstate.emptyCount
        let n = Double(empty)
        let two = (1 - p) / n, four = p / n
        var total: Double = 0
        var cells =
            ~(afterstate.rawValue | afterstate.rawValue >> 1 | afterstate.rawValue >> 2 | afterstate.rawValue >> 3)
            & 0x1111_1111_1111_1111
        // Empty cells in increasing order, a 2 before a 4, as `Board.chanceOutcomes` lists them.
        while cells != 0 {
            let bit = cells & (0 &- cells)
            cells &= cells &- 1
            if p < 1 {
                total += two * Double(maxNode(Bitboard(rawValue: afterstate.rawValue | bit), depth: depth - 1, p: p, reach: reach * two).value)
            }
            if p > 0 {
                total += four * Double(maxNode(Bitboard(rawValue: afterstate.rawValue | bit << 1), depth: depth - 1, p: p, reach: reach * four).value)
            }
        }
        // A layer cut short by the budget is discarded; its partial sums must not reach the table.
        if exhausted { return 0 }
        let value = Float(total)
        table.store(value, of: afterstate.rawValue, depth: depth)
        return value
    }

    @inline(__always)
    func evaluate(_ afterstate: Bitboard) -> Float {
        if let downgradeLimit, TileDowngrade.holds(afterstate.rawValue, atLeast: downgradeLimit) {
            return network.value(of: TileDowngrade.downgraded(afterstate, from: downgradeLimit))
        }
        return network.value(of: afterstate)
    }
}
