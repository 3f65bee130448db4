import Game2048

/// Expectimax search over afterstates, with a transposition cache.
///
///     var search = Expectimax(evaluator: .network(network), depth: 1)
///     search.bestAction(on: board, spawnFourProbability: 0.1)
///
/// A max node (the player to move) takes the best `r + chance(afterstate)` over
/// legal moves; a chance node averages over the spawns listed by
/// ``Board/chanceOutcomes(spawnFourProbability:)``; at depth 0 a chance node is
/// valued by the evaluator instead. A board with no legal move is worth 0.
/// Chance nodes are cached by (afterstate, depth) for the duration of one
/// decision, since different move orders reach the same afterstate.
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
    var cache: [CacheKey: Float] = [:]
    /// Chance nodes evaluated in the last decision (for reports and tests).
    public private(set) var nodes = 0

    struct CacheKey: Hashable {
        var board: Board
        var depth: Int
    }

    /// Creates a search.
    ///
    /// - Precondition: `depth >= 0`.
    public init(evaluator: Evaluator, depth: Int) {
        precondition(depth >= 0, "depth must be 0 or more, got \(depth)")
        self.evaluator = evaluator
        self.depth = depth
    }

    /// The best move on `board`, or `nil` when none is legal.
    public mutating func bestAction(on board: Board, spawnFourProbability p: Double) -> Direction? {
        cache.removeAll(keepingCapacity: true)
        nodes = 0
        return maxNode(board, depth: depth, p: p).action
    }

    /// The value of every legal move on `board` (for hints and tests), in action order.
    public mutating func actionValues(on board: Board, spawnFourProbability p: Double) -> [(Direction, Float)] {
        cache.removeAll(keepingCapacity: true)
        return Direction.allCases.compactMap { direction in
            let outcome = board.moved(direction)
            guard outcome.changed else { return nil }
            return (direction, Float(outcome.reward) + chanceNode(outcome.afterstate, depth: depth, p: p))
        }
    }

    mutating func maxNode(_ board: Board, depth: Int, p: Double) -> (value: Float, action: Direction?) {
        var best: (value: Float, action: Direction?) = (0, nil)
        for direction in Direction.allCases {
            let outcome = board.moved(direction)
            guard outcome.changed else { continue }
            let value = Float(outcome.reward) + chanceNode(outcome.afterstate, depth: depth, p: p)
            if best.action == nil || value > best.value { best = (value, direction) }
        }
        return best
    }

    mutating func chanceNode(_ afterstate: Board, depth: Int, p: Double) -> Float {
        nodes += 1
        if depth == 0 { return evaluate(afterstate) }
        let key = CacheKey(board: afterstate, depth: depth)
        if let cached = cache[key] { return cached }
        var total: Double = 0
        for outcome in afterstate.chanceOutcomes(spawnFourProbability: p) {
            var next = afterstate
            next[outcome.spawn.cell] = outcome.spawn.exponent
            total += outcome.probability * Double(maxNode(next, depth: depth - 1, p: p).value)
        }
        let value = Float(total)
        cache[key] = value
        return value
    }

    func evaluate(_ afterstate: Board) -> Float {
        switch evaluator {
        case .network(let network): network.value(of: afterstate)
        case .heuristic: Heuristic.value(of: afterstate)
        }
    }
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
