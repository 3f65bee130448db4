import Game2048

/// The exact solution of a small board (``OptimalSolver``): the optimal expected score to come of every reachable
/// afterstate, from which the value of any reachable state and of each of its actions follow.
///
///     let solution = try OptimalSolver.solve(rules: try Rules(rows: 2, cols: 3))
///     solution.expectedScore                       // the optimal expected score of a game
///     solution.actionValues(on: board)             // reward + afterstate value per action, nil where illegal
///     solution.optimalMove(on: board)
public struct Solution: Sendable {
    /// The rules solved.
    public let rules: Rules
    let grid: PackedGrid
    /// The afterstates of each age (index = age, the tiles' sum in units of 2), sorted, with their values.
    let layers: [Layer]

    struct Layer: Sendable, Equatable {
        var keys: [UInt64]
        var values: [Double]
    }

    init(rules: Rules, grid: PackedGrid, layers: [Layer]) {
        self.rules = rules
        self.grid = grid
        self.layers = layers
    }

    /// How many reachable afterstates were valued.
    public var afterstateCount: Int { layers.reduce(0) { $0 + $1.keys.count } }

    /// The optimal expected score of a game: the mean of the starting boards' values, weighted by their chances.
    public var expectedScore: Double {
        OptimalSolver.startingBoards(rules: rules).reduce(0) { $0 + $1.probability * value(ofKey: $1.key) }
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

    func actionValues(ofKey key: UInt64) -> [Double?] {
        Direction.allCases.map { direction in
            let move = grid.move(key, direction)
            guard move.legal else { return nil }
            return afterstateValue(ofKey: move.afterstate).map { Double(move.reward) + $0 }
        }
    }

    func value(ofKey key: UInt64) -> Double { actionValues(ofKey: key).compactMap { $0 }.max() ?? 0 }

    /// For each action in order (up, right, down, left), its reward plus the optimal value of its afterstate:
    /// the expected score to come if it is played and then optimal play follows; `nil` for an illegal action, or
    /// for an afterstate no game reaches (a board no game reaches, or of another size, gives all `nil`).
    public func actionValues(on board: Board) -> [Double?] {
        guard board.rows == rules.rows, board.cols == rules.cols, let key = PackedGrid.key(of: board) else {
            return [nil, nil, nil, nil]
        }
        return actionValues(ofKey: key)
    }

    /// The optimal expected score to come from `board` (0 when no move is legal).
    public func value(of board: Board) -> Double { actionValues(on: board).compactMap { $0 }.max() ?? 0 }

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
