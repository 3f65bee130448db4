import Game2048
import Game2048Network
import Game2048Search

/// The exact solution of a small board (``OptimalSolver``): the optimal expected worth to come (the score, or the
/// chance of a win: ``objective``) of every reachable afterstate, one of each class of symmetric ones, from which
/// the value of any reachable state and of each of its actions follow.
///
///     let solution = try OptimalSolver.solve(rules: try Rules(rows: 2, cols: 3))
///     solution.expectedScore                       // the optimal expected score of a game
///     solution.actionValues(on: board)             // reward + afterstate value per action, nil where illegal
///     solution.optimalMove(on: board)
public struct Solution: Sendable {
    /// The game solved: its rules, objective and symmetries.
    let game: SolverGame
    /// The afterstates of each age (index = age, the tiles' sum in units of 2), reduced by symmetry, sorted, with
    /// their values.
    let layers: [Layer]
    /// The boards a game starts from, as the solve began.
    let startingKeys: Set<UInt64>

    /// The rules solved.
    public var rules: Rules { game.rules }
    /// What the values are: the expected score, or the chance of reaching the win tile.
    public var objective: OptimalSolver.Objective { game.objective }
    var grid: PackedGrid { game.grid }

    package struct Layer: Sendable, Equatable {
        package var keys: [UInt64]
        package var values: [Double]
    }

    init(game: SolverGame, layers: [Layer]) {
        self.game = game
        self.layers = layers
        startingKeys = Set(game.startingBoards().map(\.key))
    }

    /// How many reachable afterstates were valued, one of each class of symmetric ones.
    public var afterstateCount: Int { layers.reduce(0) { $0 + $1.keys.count } }

    /// The afterstates of each layer (one layer per age, the tiles' sum in units of 2), the youngest first: where
    /// the work of a pass over the layers lies.
    public var layerSizes: [Int] { layers.map(\.keys.count) }

    /// The afterstates of the layers before `layer` (of them all, from `layerSizes.count` on): how much of a pass
    /// by age is done once its first `layer` layers are, the middle layers holding most boards.
    public func afterstates(beforeLayer layer: Int) -> Int { layers[..<min(max(layer, 0), layers.count)].reduce(0) { $0 + $1.keys.count } }

    /// The optimal expected worth of a game (the score, or the chance of a win): the mean of the starting boards'
    /// values, weighted by their chances.
    public var expectedScore: Double {
        // Every starting board is reachable: the solve began from them.
        game.startingBoards().reduce(0) { $0 + $1.probability * value(ofKey: $1.key)! }
    }

    /// The position of `key` in the sorted `keys`, or `nil`.
    @inline(__always)
    static func index(of key: UInt64, in keys: [UInt64]) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    /// The value of an afterstate, or `nil` when it is not reachable (not in the solution).
    func afterstateValue(ofKey key: UInt64) -> Double? { locate(key).map { layers[$0].values[$1] } }

    /// The layer and index of a reachable afterstate (of its class's canonical board).
    func locate(_ key: UInt64) -> (Int, Int)? {
        let canonical = game.symmetry.canonical(key)
        let age = PackedGrid.age(canonical)
        guard age < layers.count, let index = Solution.index(of: canonical, in: layers[age].keys) else { return nil }
        return (age, index)
    }

    func actionValues(ofKey key: UInt64) -> [Double?] {
        let legal = game.legalMoves(key)
        return Direction.allCases.map { direction in
            guard legal & (1 << UInt8(direction.rawValue)) != 0 else { return nil }
            let move = grid.move(key, direction)
            return afterstateValue(ofKey: move.afterstate).map { game.reward(move.reward) + $0 }
        }
    }

    /// V*(key): its best action's value, or its end's worth when no move is left; `nil` when no game reaches it.
    func value(ofKey key: UInt64) -> Double? {
        // A board holding the win tile ends the game wherever it came from.
        if game.isWon(key) { return game.terminalValue(key) }
        guard isReachable(key) else { return nil }
        return actionValues(ofKey: key).compactMap { $0 }.max() ?? game.terminalValue(key)
    }

    /// Whether a game reaches `key`: a starting board, or one spawn (a 2 or a 4, as the rules allow) on an
    /// afterstate a game reaches, which the solution holds.
    func isReachable(_ key: UInt64) -> Bool {
        if startingKeys.contains(key) { return true }
        for cell in 0..<game.cells {
            let shift = 4 * UInt64(cell)
            let exponent = (key >> shift) & 0xF
            guard (exponent == 1 && game.fourProbability < 1) || (exponent == 2 && game.fourProbability > 0) else { continue }
            let before = key & ~(0xF << shift)
            if before != 0 && afterstateValue(ofKey: before) != nil { return true }
        }
        return false
    }

    /// For each action in order (up, right, down, left), its reward plus the optimal value of its afterstate:
    /// the expected worth to come if it is played and then optimal play follows; `nil` for an illegal action, or
    /// for an afterstate no game reaches (a board no game reaches, or of another size, gives all `nil`; a board
    /// that holds the win tile has no legal action).
    public func actionValues(on board: Board) -> [Double?] {
        // A board no game reaches is unknown to the solution as a whole, even where a move from it happens to
        // lead to an afterstate that games do reach.
        guard board.rows == rules.rows, board.cols == rules.cols, let key = PackedGrid.key(of: board), isReachable(key) else {
            return [nil, nil, nil, nil]
        }
        return actionValues(ofKey: key)
    }

    /// The optimal expected worth to come from `board`: its best action's value, or its end's worth when no move
    /// is legal (0; 1 for the win objective on a board with the win tile); `nil` for a board no game reaches (not a
    /// starting board, nor a spawn on an afterstate a game reaches) or of another size.
    public func value(of board: Board) -> Double? {
        guard board.rows == rules.rows, board.cols == rules.cols, let key = PackedGrid.key(of: board) else { return nil }
        return value(ofKey: key)
    }

    /// An optimal move on `board` (the first of the best, in action order), or `nil` when none is legal or known.
    public func optimalMove(on board: Board) -> Direction? {
        let values = actionValues(on: board)
        var best: (Direction, Double)? = nil
        for direction in Direction.allCases {
            guard let value = values[direction.rawValue] else { continue }
            if best == nil || value > best!.1 { best = (direction, value) }
        }
        return best?.0
    }
}

/// A player that plays a ``Solution``'s optimal moves (`g2048 eval --agent optimal`).
public struct OptimalPlayer: Player {
    let solution: Solution
    public let name = "optimal"

    public init(solution: Solution) { self.solution = solution }

    public mutating func action(on board: Board, rules: Rules) -> Direction? { solution.optimalMove(on: board) }
}
