import Game2048
import Game2048Network

/// Expectimax search over afterstates, with a transposition cache, chance-node pruning and tile-downgrading.
///
///     var search = Expectimax(evaluator: .network(network), depth: 1)
///     search.bestAction(on: board, spawnFourProbability: 0.1)
///
/// A max node (the player to move) takes the best `r + chance(afterstate)` over
/// legal moves; a chance node averages over the spawns listed by
/// `Board.chanceOutcomes(spawnFourProbability:)`; at depth 0 a chance node is
/// valued by the evaluator instead. A board with no legal move is worth 0.
/// Chance nodes are cached by (afterstate, depth) for the duration of one
/// decision, since different move orders reach the same afterstate. On a 4×4 board
/// with a network that reads bitboards, `PackedExpectimax` runs the same search on
/// the packed board with a fixed `TranspositionTable`: same values and moves, faster; on boards of up to
/// 16 cells with a network read cell by cell, `SmallBoardSearch` does.
///
/// With a ``nodeBudget`` the search deepens one layer at a time (0, 1, …, ``depth``)
/// and stops deepening when a layer would take more chance nodes than the budget
/// left: the move comes from the deepest layer that finished. Since the budget
/// counts nodes, not time, the same board always gets the same move, on any
/// machine; and since a node costs at most a few microseconds, a move takes
/// a bounded time at every depth.
public struct Expectimax {
    /// What values an afterstate at the search horizon.
    public enum Evaluator {
        /// A trained network's value.
        case network(NTupleNetwork)
        /// The hand-written ``Heuristic``.
        case heuristic
    }

    /// The evaluator.
    public let evaluator: Evaluator
    /// Chance layers below the root (0 = greedy over afterstates).
    public let depth: Int
    /// The most chance nodes one decision may visit, or `nil` for no limit.
    public let nodeBudget: Int?
    /// Chance-node pruning: a chance node reached with a probability below this (the product of the
    /// spawns on the path from the root) is valued by the evaluator instead of being expanded, as
    /// nneonneo/2048-ai's probability cutoff does. 0 expands every node down to ``depth``.
    public let pruneBelow: Double
    /// Tile-downgrading (see `TileDowngrade`): a network values an afterstate holding this exponent
    /// or more as its downgraded board; `nil` turns it off. The heuristic ignores it.
    public let downgradeLimit: UInt8?
    /// The search on `Board`, for any size and evaluator.
    var generic: ExpectimaxSearch<BoardSearchSpace>
    /// The search on the packed board, for 4×4 decisions of a network that reads bitboards.
    var packed: PackedSearch?
    /// The search on a `PackedGrid` key, for decisions on boards of up to 16 cells of a network read cell by cell.
    var small: SmallBoardSearch?
    /// Chance nodes evaluated in the last decision (for reports and tests).
    public private(set) var nodes = 0
    /// The depth of the search that chose the last move (below ``depth`` when the budget ran out).
    public private(set) var searchedDepth = 0

    /// The default ``nodeBudget`` of the players: a full depth-2 search on 4x4 (at most about
    /// 58 000 chance nodes) always fits, and a move costs at most about 0.1 s in a release build
    /// (about a million chance nodes a second), whatever the depth.
    public static let defaultNodeBudget = 100_000

    /// The default ``pruneBelow`` of the players. At depth 2 it skips a 4 on a board with four or more
    /// empty cells below the first layer; at depth 3 most of the last layer of open boards. Measured over
    /// 20 games at depth 2 with a network trained 120 s, it played no worse than no pruning (mean 85 000
    /// against 69 000, within noise) at 1.6× the moves a second, and depth 3 ran 4.8× faster.
    public static let defaultPruneBelow = 0.03

    /// Creates a search.
    ///
    /// - Parameters:
    ///   - evaluator: what values an afterstate at the search horizon.
    ///   - depth: chance layers; a negative value counts as 0.
    ///   - nodeBudget: the most chance nodes per decision, or `nil` for none (values below 1 count as 1).
    ///   - pruneBelow: see ``pruneBelow``; 0 (the default here) or less turns pruning off.
    ///   - downgradeLimit: see ``downgradeLimit``; off by default here.
    public init(evaluator: Evaluator, depth: Int, nodeBudget: Int? = nil, pruneBelow: Double = 0, downgradeLimit: UInt8? = nil) {
        self.evaluator = evaluator
        self.depth = max(0, depth)
        self.nodeBudget = nodeBudget.map { max(1, $0) }
        self.pruneBelow = pruneBelow.isFinite ? max(0, pruneBelow) : 0
        self.downgradeLimit = downgradeLimit
        generic = ExpectimaxSearch(
            space: BoardSearchSpace(evaluator: evaluator, downgradeLimit: downgradeLimit), nodeBudget: self.nodeBudget,
            pruneBelow: self.pruneBelow)
        if case .network(let network) = evaluator {
            packed = PackedSearch(network: network, nodeBudget: self.nodeBudget, pruneBelow: self.pruneBelow, downgradeLimit: downgradeLimit)
            // A 2×8 network's board has 16 cells too, but its lines are too long for move tables.
            if network.reading == .cells && PackedGrid.fits(rows: network.rows, cols: network.cols) {
                small = SmallBoardSearch(
                    space: SmallBoardSearchSpace(network: network), nodeBudget: self.nodeBudget, pruneBelow: self.pruneBelow)
            }
        }
    }

    /// `board` as a `PackedGrid` key, when the small boards' search applies to it: a board of the network's
    /// (of up to 16 cells, read cell by cell) on which no tile the search can make reaches the downgrading limit
    /// or 2^15. Each of the search's moves raises the largest tile by one exponent at most, and a spawn makes a 4
    /// at most, so that is `max(largest, 2) + depth + 1` below both. Otherwise `nil`, and the generic search runs.
    func smallBoardKey(of board: Board) -> UInt64? {
        guard small != nil, case .network(let network) = evaluator, board.rows == network.rows, board.cols == network.cols else { return nil }
        let ceiling = min(15, Int(downgradeLimit ?? 16) - 1)
        guard Int(max(board.maxExponent, 2)) + depth + 1 <= ceiling else { return nil }
        return PackedGrid.key(of: board)
    }

    /// `board` packed, when the packed search applies to it: a 4×4 board whose tiles fit four bits and sum
    /// to less than 2 × 32 768 even after a spawn of 4 on every layer, so that no move in the search can merge
    /// two 32 768 tiles (which four bits cannot hold). Otherwise `nil`, and the generic search runs.
    func packedBoard(of board: Board) -> Bitboard? {
        guard packed != nil, let bitboard = Bitboard(board), board.tileSum + 4 * depth < 65_536 else { return nil }
        return bitboard
    }

    /// The best move on `board`, or `nil` when none is legal.
    public mutating func bestAction(on board: Board, spawnFourProbability p: Double) -> Direction? {
        let best: (action: Direction?, depth: Int)
        if let bitboard = packedBoard(of: board) {
            (best, nodes) = packed!.bestAction(on: bitboard, depth: depth, p: p)
        } else if let key = smallBoardKey(of: board) {
            best = small!.bestAction(on: key, depth: depth, p: p)
            nodes = small!.nodes
        } else {
            best = generic.bestAction(on: board, depth: depth, p: p)
            nodes = generic.nodes
        }
        searchedDepth = best.depth
        return best.action
    }

    /// The value of every legal move on `board` (for hints and tests), in action order.
    public mutating func actionValues(on board: Board, spawnFourProbability p: Double) -> [(Direction, Float)] {
        if let bitboard = packedBoard(of: board) { return packed!.actionValues(on: bitboard, depth: depth, p: p) }
        if let key = smallBoardKey(of: board) { return small!.actionValues(on: key, depth: depth, p: p) }
        return generic.actionValues(on: board, depth: depth, p: p)
    }
}

/// `Board` as a ``SearchSpace``: its own moves and chance outcomes, any evaluator, and a dictionary cache.
struct BoardSearchSpace: SearchSpace {
    let evaluator: Expectimax.Evaluator
    /// Tile-downgrading's limit, or `nil` (see ``Expectimax/downgradeLimit``).
    let downgradeLimit: UInt8?
    var table: [CacheKey: Float] = [:]

    struct CacheKey: Hashable {
        var board: Board
        var depth: Int
    }

    init(evaluator: Expectimax.Evaluator, downgradeLimit: UInt8?) {
        self.evaluator = evaluator
        self.downgradeLimit = downgradeLimit
    }

    func moved(_ board: Board, _ direction: Direction) -> (afterstate: Board, reward: Int64, changed: Bool) {
        let outcome = board.moved(direction)
        return (outcome.afterstate, outcome.reward, outcome.changed)
    }

    /// `Board.chanceOutcomes`, each applied to the afterstate.
    struct Spawns: IteratorProtocol {
        let afterstate: Board
        var outcomes: IndexingIterator<[ChanceOutcome]>

        mutating func next() -> (board: Board, probability: Double)? {
            guard let outcome = outcomes.next() else { return nil }
            var next = afterstate
            next[outcome.spawn.cell] = outcome.spawn.exponent
            return (next, outcome.probability)
        }
    }

    func spawns(of afterstate: Board, spawnFourProbability p: Double) -> Spawns {
        Spawns(afterstate: afterstate, outcomes: afterstate.chanceOutcomes(spawnFourProbability: p).makeIterator())
    }

    func evaluate(_ afterstate: Board) -> Float {
        switch evaluator {
        case .network(let network):
            if let downgradeLimit, afterstate.maxExponent >= downgradeLimit {
                return network.value(of: TileDowngrade.downgraded(afterstate, from: downgradeLimit))
            }
            return network.value(of: afterstate)
        case .heuristic: return Heuristic.value(of: afterstate)
        }
    }

    func cachedValue(of afterstate: Board, depth: Int) -> Float? { table[CacheKey(board: afterstate, depth: depth)] }

    mutating func cache(_ value: Float, of afterstate: Board, depth: Int) { table[CacheKey(board: afterstate, depth: depth)] = value }

    mutating func clearCache() { table.removeAll(keepingCapacity: true) }
}

/// A hand-written board evaluation for search without a trained network, in the
/// spirit of nneonneo/2048-ai's: reward empty cells and mergeable neighbours,
/// penalize lines that are not monotonic and large tiles away from order.
public enum Heuristic {
    /// The heuristic value of a board (higher is better, always positive).
    public static func value(of board: Board) -> Float {
        var total: Float = 0
        for r in 0..<board.rows { total += line((0..<board.cols).map { board[row: r, col: $0] }) }
        for c in 0..<board.cols { total += line((0..<board.rows).map { board[row: $0, col: c] }) }
        return max(total, 0)
    }

    static func line(_ cells: [UInt8]) -> Float {
        var empty: Float = 0, merges: Float = 0, sum: Float = 0
        var previous: UInt8 = 0, run: Float = 0
        for e in cells {
            sum += pow35(e)
            if e == 0 {
                empty += 1
            } else if e == previous {
                run += 1
            } else {
                if run > 0 { merges += 1 + run }
                run = 0
                previous = e
            }
        }
        if run > 0 { merges += 1 + run }
        var left: Float = 0, right: Float = 0
        for i in 1..<cells.count {
            let a = pow4(cells[i - 1]), b = pow4(cells[i])
            if a > b { left += a - b } else { right += b - a }
        }
        return 20_000 + 270 * empty + 700 * merges - 47 * min(left, right) - 11 * sum
    }

    static func pow35(_ e: UInt8) -> Float { let x = Float(e); return x * x * x * x.squareRoot() }
    static func pow4(_ e: UInt8) -> Float { let x = Float(e); return x * x * x * x }
}
