import Game2048

/// What ``ExpectimaxSearch`` needs of a board representation: its moves, the spawns of its chance
/// nodes in order, the value at the horizon and a cache of chance nodes.
///
/// Three conform: ``BoardSearchSpace`` (a `Board` of any size, a dictionary cache, any ``Expectimax/Evaluator``),
/// ``PackedSearchSpace`` (the packed 4×4 `Bitboard`, a fixed ``TranspositionTable``, a network) and
/// ``SmallBoardSearchSpace`` (a `PackedGrid` key of up to 16 cells, a network and its afterstate table). The
/// search is generic over them, so all run the one search, each specialized to its board.
protocol SearchSpace {
    /// The board type.
    associatedtype Position
    /// The spawns of a chance node in order: each empty cell in row-major order, a 2 before a 4.
    associatedtype Spawns: IteratorProtocol where Spawns.Element == (board: Position, probability: Double)

    /// The board after a move, its reward, and whether it changed (a move that changes the board is legal here,
    /// as `Board.moved` says, whatever ceiling the rules put on tiles).
    func moved(_ board: Position, _ direction: Direction) -> (afterstate: Position, reward: Int64, changed: Bool)
    /// The boards a spawn can make of `afterstate`, each with its probability (they sum to 1).
    func spawns(of afterstate: Position, spawnFourProbability p: Double) -> Spawns
    /// The value of an afterstate at the horizon.
    func evaluate(_ afterstate: Position) -> Float
    /// The cached value of a chance node, if any.
    func cachedValue(of afterstate: Position, depth: Int) -> Float?
    /// Caches the value of a chance node.
    mutating func cache(_ value: Float, of afterstate: Position, depth: Int)
    /// Empties the cache (a new decision).
    mutating func clearCache()
    /// Whether ``prefetch(_:)`` is worth its moves: a max node at the horizon then makes each move twice.
    static var prefetches: Bool { get }
    /// Starts loading what ``evaluate(_:)`` will read for `afterstate` into the cache, for a space whose values
    /// are too large for it: a max node at the horizon asks for all its moves' afterstates before valuing them.
    func prefetch(_ afterstate: Position)
}

extension SearchSpace {
    /// No, for the spaces whose evaluation does not wait on memory.
    static var prefetches: Bool { false }
    @inline(__always)
    func prefetch(_ afterstate: Position) {}
}

/// Expectimax over afterstates, generic over the board representation (see ``Expectimax`` for the
/// rules of the search, which wraps one of these for each representation).
///
/// A max node takes the best `r + chance(afterstate)` over the legal moves, the first in
/// `Direction` order unless a later one is strictly better; a chance node sums `probability ×
/// max(spawned board)` over the spawns in order. The order is part of the contract: the packed and
/// the generic search must give the same Float, and the tests compare them.
struct ExpectimaxSearch<Space: SearchSpace> {
    /// The board representation, with its evaluator and its cache.
    var space: Space
    /// The most chance nodes one decision may visit, or `nil` for no limit.
    let nodeBudget: Int?
    /// Chance nodes reached with a probability below this are valued by the evaluator.
    let pruneBelow: Double
    /// Chance nodes visited since ``begin()``.
    var nodes = 0
    /// Set when the node budget ran out in the middle of a layer, whose values are then discarded.
    var exhausted = false

    init(space: Space, nodeBudget: Int?, pruneBelow: Double) {
        self.space = space
        self.nodeBudget = nodeBudget
        self.pruneBelow = pruneBelow
    }

    /// Starts a decision: an empty cache and node count.
    mutating func begin() {
        space.clearCache()
        nodes = 0
        exhausted = false
    }

    /// The best move on `root` by a search `depth` chance layers deep, and the depth of the search
    /// that chose it. Under a node budget the search deepens one layer at a time (0, 1, …, `depth`)
    /// and the move comes from the deepest layer that finished.
    mutating func bestAction(on root: Space.Position, depth: Int, p: Double) -> (action: Direction?, depth: Int) {
        begin()
        guard nodeBudget != nil else { return (maxNode(root, depth: depth, p: p, reach: 1).action, depth) }
        // Depth 0 always finishes (at most four nodes), so there is always a move.
        var best = maxNode(root, depth: 0, p: p, reach: 1).action
        var searched = 0
        for layer in stride(from: 1, through: depth, by: 1) {
            let choice = maxNode(root, depth: layer, p: p, reach: 1).action
            if exhausted { break }
            (best, searched) = (choice, layer)
        }
        return (best, searched)
    }

    /// The value of every legal move on `root`, in action order.
    mutating func actionValues(on root: Space.Position, depth: Int, p: Double) -> [(Direction, Float)] {
        begin()
        return Direction.allCases.compactMap { direction in
            let outcome = space.moved(root, direction)
            guard outcome.changed else { return nil }
            return (direction, Float(outcome.reward) + chanceNode(outcome.afterstate, depth: depth, p: p, reach: 1))
        }
    }

    /// A max node: the best legal move and its value (0 and `nil` when none is legal).
    mutating func maxNode(_ board: Space.Position, depth: Int, p: Double, reach: Double) -> (value: Float, action: Direction?) {
        var best: (value: Float, action: Direction?) = (0, nil)
        if Space.prefetches && depth == 0 {
            for direction in Direction.allCases {
                let outcome = space.moved(board, direction)
                if outcome.changed { space.prefetch(outcome.afterstate) }
            }
        }
        for direction in Direction.allCases {
            let outcome = space.moved(board, direction)
            guard outcome.changed else { continue }
            let value = Float(outcome.reward) + chanceNode(outcome.afterstate, depth: depth, p: p, reach: reach)
            if best.action == nil || value > best.value { best = (value, direction) }
        }
        return best
    }

    /// A chance node; `reach` is the probability of the spawns that led here (1 below the root).
    mutating func chanceNode(_ afterstate: Space.Position, depth: Int, p: Double, reach: Double) -> Float {
        if exhausted { return 0 }
        nodes &+= 1
        if let nodeBudget, nodes > nodeBudget {
            exhausted = true
            return 0
        }
        if depth == 0 || reach < pruneBelow { return space.evaluate(afterstate) }
        if let cached = space.cachedValue(of: afterstate, depth: depth) { return cached }
        var total: Double = 0
        var spawns = space.spawns(of: afterstate, spawnFourProbability: p)
        while let spawn = spawns.next() {
            let value = maxNode(spawn.board, depth: depth - 1, p: p, reach: reach * spawn.probability).value
            total += spawn.probability * Double(value)
        }
        // A layer cut short by the budget is discarded; its partial sums must not reach the cache.
        if exhausted { return 0 }
        let value = Float(total)
        space.cache(value, of: afterstate, depth: depth)
        return value
    }
}
