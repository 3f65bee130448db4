import Game2048
import Game2048Network

/// The game as the exact solver plays it, on `PackedGrid` keys: the rules' moves, spawns, starting boards and
/// ends, and what a game is worth (its ``OptimalSolver/Objective``).
package struct SolverGame: Sendable {
    let rules: Rules
    let objective: OptimalSolver.Objective
    package let grid: PackedGrid
    /// The symmetries the boards are reduced by.
    let symmetry: PackedSymmetry
    package let cells: Int
    let fourProbability: Double
    /// The win tile's exponent, or an exponent no board holds.
    let winExponent: UInt8

    /// The game of `rules`, its boards reduced by the board's symmetries when `symmetric`.
    package init(rules: Rules, objective: OptimalSolver.Objective, symmetric: Bool) {
        self.rules = rules
        self.objective = objective
        grid = PackedGrid(rules: rules)
        symmetry = symmetric ? PackedSymmetry(rows: rules.rows, cols: rules.cols) : .identity(rows: rules.rows, cols: rules.cols)
        cells = rules.cellCount
        fourProbability = rules.spawnFourProbability
        winExponent = rules.winExponent ?? .max
    }

    /// The rules options the solver's equations model: any other must be at its default, so that a rules option
    /// added later is refused here until the solver models it, never silently ignored.
    package static let modelledOptions: Set<String> = Set(
        [RulesOption.rows, .cols, .spawnFourProbability, .initialTiles, .winTile, .invalidAction, .penalty].map(\.name))

    /// The rule of `rules` this game does not model, in words, or `nil`: it plays each game to its end, so neither
    /// a step limit nor ending on an illegal action, and no rules option it does not know off its default.
    package static func unsupportedRule(in rules: Rules) -> String? {
        if rules.maxSteps != nil { return "it plays each game to its end: a step limit (max_steps)" }
        if case .terminate = rules.invalidAction { return "it plays each game to its end: ending on an illegal action" }
        let (settings, classic) = (RulesSettings(rules), RulesSettings(Rules()))
        for option in RulesOption.all where !modelledOptions.contains(option.name) && option.value(in: settings) != option.value(in: classic) {
            return "its equations leave out \(option.name) \(option.value(in: settings))"
        }
        return nil
    }

    /// Whether `key` holds the win tile, which ends the game.
    @inline(__always)
    package func isWon(_ key: UInt64) -> Bool {
        guard winExponent <= 15 else { return false }
        var rest = key
        while rest != 0 {
            if UInt8(rest & 0xF) >= winExponent { return true }
            rest >>= 4
        }
        return false
    }

    /// The legal moves of `key` (bit `d` for `Direction(rawValue: d)`); none once the game is won.
    @inline(__always)
    func legalMoves(_ key: UInt64) -> UInt8 {
        if isWon(key) { return 0 }
        var mask: UInt8 = 0
        for direction in Direction.allCases where grid.move(key, direction).legal { mask |= 1 << UInt8(direction.rawValue) }
        return mask
    }

    /// What a move is worth: its merges' sum for the score; nothing for the win, which the board that holds the
    /// win tile is worth.
    @inline(__always)
    func reward(_ merged: UInt32) -> Double { objective == .score ? Double(merged) : 0 }

    /// What a board with no move left is worth: 1 for the win on a board with the win tile, else nothing.
    @inline(__always)
    func terminalValue(_ key: UInt64) -> Double { objective == .win && isWon(key) ? 1 : 0 }

    /// Every board `rules.initialTiles` spawns can make on an empty board, with its probability (not reduced).
    func startingBoards() -> [(key: UInt64, probability: Double)] {
        var boards: [UInt64: Double] = [0: 1]
        for _ in 0..<rules.initialTiles {
            var next: [UInt64: Double] = [:]
            for (key, probability) in boards {
                let share = probability / Double(PackedGrid.emptyCount(key, cells: cells))
                PackedGrid.forEachSpawn(on: key, cells: cells, fourProbability: fourProbability) { state, _, weight in
                    next[state, default: 0] += share * weight
                }
            }
            boards = next
        }
        return boards.map { ($0.key, $0.value) }.sorted { $0.key < $1.key }
    }
}
