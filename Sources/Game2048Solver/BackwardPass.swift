import Game2048
import Game2048Network

/// What the backward pass computes of each board: the optimal value (``OptimalValuation``), or a policy's value
/// with its move counts (``PolicyValuation``). An afterstate is worth the mean over its spawns of its states'
/// worth; a state is worth what ``stateValue(_:flags:afterstateValue:)`` makes of its moves.
protocol LayerValuation: Sendable {
    associatedtype Value: Sendable
    var zero: Value { get }
    /// `total` plus `weight` times `value`.
    func adding(_ value: Value, weight: Double, to total: Value) -> Value
    /// A state's worth from `flags` (``ReachableLayers/flags``) and the worth of each afterstate it moves to.
    func stateValue(_ key: UInt64, flags: UInt8, afterstateValue: (UInt64) -> Value) -> Value
}

/// The backward pass over ``ReachableLayers``, from the oldest layer down: each layer's afterstates from the
/// states one and two ages older, then its states from its afterstates.
enum BackwardPass {
    /// Every layer's afterstate values (index = age), the expectation over the starting boards, and whether every
    /// layer was valued.
    ///
    /// `stop`, asked before each layer, ends the pass early: the layers valued by then (the oldest) keep their
    /// values, the younger ones have none, the expectation is incomplete, and `complete` is `false`.
    static func run<V: LayerValuation>(
        game: SolverGame, layers: ReachableLayers, valuation: V, threads: Int, progress: ((Int) -> Void)? = nil,
        stop: (() -> Bool)? = nil
    ) -> (afterstates: [[V.Value]], start: V.Value, complete: Bool) {
        let starts = game.startingBoards()
        var start = valuation.zero
        var afterstateValues = [[V.Value]](repeating: [], count: layers.states.count)
        // The state values of the two ages above the current one, with their index.
        var older: [Int: (index: KeyIndex, values: [V.Value])] = [:]
        let p = game.fourProbability
        for age in stride(from: layers.states.count - 1, through: 0, by: -1) {
            if stop?() == true { return (afterstateValues, start, false) }
            let afterstates = layers.afterstates[age]
            // An age no game reaches has no afterstate, so these are only read where the layers exist.
            let empty = (index: KeyIndex([]), values: [V.Value]())
            let (oneIndex, oneValues) = older[age + 1] ?? empty, (twoIndex, twoValues) = older[age + 2] ?? empty
            let afterChunks = parallelChunks(count: afterstates.count, threads: threads, minimum: 1024) { range in
                range.map { index in
                    var total = valuation.zero
                    let empty = PackedGrid.forEachSpawn(on: afterstates[index], cells: game.cells, fourProbability: p) {
                        state, step, weight in
                        let canonical = game.symmetry.canonical(state)
                        let value = step == 1 ? oneValues[oneIndex.position(of: canonical)!] : twoValues[twoIndex.position(of: canonical)!]
                        total = valuation.adding(value, weight: weight, to: total)
                    }
                    // A legal move leaves an empty cell, so every afterstate has a spawn.
                    return empty > 0 ? valuation.adding(total, weight: 1 / Double(empty), to: valuation.zero) : total
                }
            }
            let values = Array(afterChunks.joined())
            let afterIndex = KeyIndex(afterstates)
            let states = layers.states[age], flags = layers.flags[age]
            let stateChunks = parallelChunks(count: states.count, threads: threads, minimum: 1024) { range in
                range.map { index in
                    valuation.stateValue(states[index], flags: flags[index]) { afterstate in
                        values[afterIndex.position(of: game.symmetry.canonical(afterstate))!]
                    }
                }
            }
            let stateValues = Array(stateChunks.joined())
            let stateIndex = KeyIndex(states)
            for board in starts where PackedGrid.age(board.key) == age {
                let value = stateValues[stateIndex.position(of: game.symmetry.canonical(board.key))!]
                start = valuation.adding(value, weight: board.probability, to: start)
            }
            afterstateValues[age] = values
            older[age + 2] = nil
            older[age] = (stateIndex, stateValues)
            progress?(layers.states.count - age)
        }
        return (afterstateValues, start, true)
    }
}

/// The optimal values: a state is worth its best move's reward plus its afterstate's value (or its end's
/// worth, ``SolverGame/terminalValue(_:)``, when no move is followed).
struct OptimalValuation: LayerValuation {
    let game: SolverGame
    var zero: Double { 0 }

    @inline(__always)
    func adding(_ value: Double, weight: Double, to total: Double) -> Double { total + weight * value }

    @inline(__always)
    func stateValue(_ key: UInt64, flags: UInt8, afterstateValue: (UInt64) -> Double) -> Double {
        guard flags & 0xF != 0 else { return game.terminalValue(key) }
        var best = -Double.infinity
        for direction in Direction.allCases where flags & (1 << UInt8(direction.rawValue)) != 0 {
            let move = game.grid.move(key, direction)
            best = max(best, game.reward(move.reward) + afterstateValue(move.afterstate))
        }
        return best
    }
}
