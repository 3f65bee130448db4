import Game2048

/// Exact optimal play on a small board: the expected score to come of every reachable afterstate under the best
/// policy, by dynamic programming.
///
/// The tiles' sum (the board's *age*) never changes under a move and grows by 1 or 2 (a 2
/// or a 4) at a spawn, so the reachable boards fall into layers by age: they are enumerated forward, layer by
/// layer, from the starting boards, and valued backward, from the oldest layer down, each afterstate from the
/// layers one and two older:
///
///     V(afterstate) = mean over its empty cells c of  (1 − p) · V*(afterstate + 2 at c) + p · V*(afterstate + 4 at c)
///     V*(state)     = max over legal moves a of  reward(a) + V(afterstate of a),  or 0 when no move is legal
///
/// The result is a ``Solution``: every afterstate's value, enough to value any state and action.
public enum OptimalSolver {
    /// The boards it solves: up to this many cells (3×3 and smaller; each further cell multiplies the states).
    public static let maxCells = 9

    /// Why a board cannot be solved here.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// More cells than ``maxCells``.
        case tooLarge(rows: Int, cols: Int)
        /// A rules option the solver does not model (a win tile, a step limit, an invalid-action penalty).
        case unsupportedRule(String)

        public var description: String {
            switch self {
            case .tooLarge(let rows, let cols):
                "\(rows)x\(cols) has \(rows * cols) cells; the solver solves boards of up to \(OptimalSolver.maxCells) cells (3x3 and smaller): each further cell multiplies the reachable states by about ten"
            case .unsupportedRule(let rule): "the solver plays the original game to its end; \(rule) is not modelled"
            }
        }
    }

    /// Progress after each layer of the forward or the backward pass.
    public struct Progress: Sendable {
        /// "enumerate" or "value".
        public var pass: String
        /// Layers done in this pass, and the layers there are (known once enumerated).
        public var layers: Int
        public var totalLayers: Int
        /// Afterstates enumerated so far.
        public var afterstates: Int
    }

    /// Solves `rules`.
    ///
    /// - Throws: ``Refusal`` for a board larger than ``maxCells`` or rules it does not model.
    public static func solve(rules: Rules, progress: ((Progress) -> Void)? = nil) throws(Refusal) -> Solution {
        try check(rules)
        let grid = PackedGrid(rules: rules)
        let starts = startingBoards(rules: rules)
        let layers = enumerate(grid: grid, starts: starts.map(\.key), p: rules.spawnFourProbability, progress: progress)
        let values = value(grid: grid, layers: layers, p: rules.spawnFourProbability, progress: progress) { state, age, values in
            bestValue(state, age: age, grid: grid, layers: layers, values: values)
        }
        let solution = Solution(rules: rules, grid: grid, layers: zip(layers, values).map { Solution.Layer(keys: $0, values: $1) })
        return solution
    }

    /// Every board `rules.initialTiles` spawns can make on an empty board, with its probability.
    static func startingBoards(rules: Rules) -> [(key: UInt64, probability: Double)] {
        let p = rules.spawnFourProbability
        var boards: [UInt64: Double] = [0: 1]
        for _ in 0..<rules.initialTiles {
            var next: [UInt64: Double] = [:]
            for (key, probability) in boards {
                let share = probability / Double(PackedGrid.emptyCount(key, cells: rules.cellCount))
                PackedGrid.forEachSpawn(on: key, cells: rules.cellCount, fourProbability: p) { state, _, weight in
                    next[state, default: 0] += share * weight
                }
            }
            boards = next
        }
        return boards.map { ($0.key, $0.value) }.sorted { $0.key < $1.key }
    }

    /// Refuses a board larger than ``maxCells`` or rules the solver does not model.
    public static func check(_ rules: Rules) throws(Refusal) {
        guard rules.cellCount <= maxCells else { throw .tooLarge(rows: rules.rows, cols: rules.cols) }
        if rules.winTile != nil { throw .unsupportedRule("a win tile (win_tile)") }
        if rules.maxSteps != nil { throw .unsupportedRule("a step limit (max_steps)") }
        if case .terminate = rules.invalidAction { throw .unsupportedRule("ending on an illegal action") }
    }

    /// The sorted, distinct afterstates of each age, from the starting boards on; index = age.
    static func enumerate(grid: PackedGrid, starts: [UInt64], p: Double, progress: ((Progress) -> Void)?) -> [[UInt64]] {
        var pending: [Int: [UInt64]] = [:]
        for key in starts { pending[PackedGrid.age(key), default: []].append(key) }
        var layers: [[UInt64]] = []
        var age = 0
        var total = 0
        while !pending.isEmpty {
            let states = sortedDistinct(pending.removeValue(forKey: age) ?? [])
            var afterstates: [UInt64] = []
            afterstates.reserveCapacity(states.count * 2)
            for state in states {
                for direction in Direction.allCases {
                    let move = grid.move(state, direction)
                    if move.legal { afterstates.append(move.afterstate) }
                }
            }
            afterstates = sortedDistinct(afterstates)
            for afterstate in afterstates {
                PackedGrid.forEachSpawn(on: afterstate, cells: grid.rows * grid.cols, fourProbability: p) { state, step, _ in
                    pending[age + step, default: []].append(state)
                }
            }
            total += afterstates.count
            layers.append(afterstates)
            age += 1
            progress?(Progress(pass: "enumerate", layers: age, totalLayers: 0, afterstates: total))
        }
        return layers
    }

    /// The values of every layer's afterstates, from the oldest layer down: each the mean over its spawns of
    /// `stateValue` (a state, its age, and the values of the layers done so far), the best move's for the optimal
    /// values, a policy's move's for ``Solution/evaluate(_:)``.
    static func value(
        grid: PackedGrid, layers: [[UInt64]], p: Double, progress: ((Progress) -> Void)?,
        stateValue: (_ state: UInt64, _ age: Int, _ values: [[Double]]) -> Double
    ) -> [[Double]] {
        var values = [[Double]](repeating: [], count: layers.count)
        let total = layers.reduce(0) { $0 + $1.count }
        let cells = grid.rows * grid.cols
        for age in stride(from: layers.count - 1, through: 0, by: -1) {
            let keys = layers[age]
            var layerValues = [Double](repeating: 0, count: keys.count)
            for (index, afterstate) in keys.enumerated() {
                var sum = 0.0
                let empty = PackedGrid.forEachSpawn(on: afterstate, cells: cells, fourProbability: p) { state, step, weight in
                    sum += weight * stateValue(state, age + step, values)
                }
                layerValues[index] = empty > 0 ? sum / Double(empty) : 0
            }
            values[age] = layerValues
            progress?(Progress(pass: "value", layers: layers.count - age, totalLayers: layers.count, afterstates: total))
        }
        return values
    }

    /// V*(state): the best move's reward plus its afterstate's value (from the layer of its age), 0 without a move.
    @inline(__always)
    static func bestValue(_ state: UInt64, age: Int, grid: PackedGrid, layers: [[UInt64]], values: [[Double]]) -> Double {
        var best = 0.0
        for direction in Direction.allCases {
            let move = grid.move(state, direction)
            guard move.legal, let index = Solution.index(of: move.afterstate, in: layers[age]) else { continue }
            best = max(best, Double(move.reward) + values[age][index])
        }
        return best
    }

    static func sortedDistinct(_ keys: [UInt64]) -> [UInt64] {
        var sorted = keys
        sorted.sort()
        var write = 0
        for read in sorted.indices where write == 0 || sorted[read] != sorted[write - 1] {
            sorted[write] = sorted[read]
            write += 1
        }
        sorted.removeLast(sorted.count - write)
        return sorted
    }
}
