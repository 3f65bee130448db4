import Game2048
import GymSystem
import Game2048Network

/// Exact optimal play on a small board: the expected worth to come of every reachable afterstate under the best
/// policy, by dynamic programming.
///
/// The tiles' sum (the board's *age*) never changes under a move and grows by 1 or 2 (a 2 or a 4) at a spawn,
/// so the reachable boards fall into layers by age: they are enumerated forward, layer by layer, from the
/// starting boards (`LayerEnumerator`), and valued backward, from the oldest layer down, each afterstate from
/// the states one and two ages older (`BackwardPass`):
///
///     V(afterstate) = mean over its empty cells c of  (1 − p) · V*(afterstate + 2 at c) + p · V*(afterstate + 4 at c)
///     V*(state)     = max over legal moves a of  reward(a) + V(afterstate of a),  or its end's worth without one
///
/// Symmetric boards (mirrors and rotations) are worth the same, so one of each class is kept: an eighth of the
/// boards on a square board, a quarter on another. Both passes run on `threads` threads. The result is a
/// ``Solution``: every afterstate's value, enough to value any state and action.
public enum OptimalSolver {
    /// The boards it solves: up to this many cells (3×3, 2×4 and smaller; each further cell multiplies the
    /// reachable boards by ten to twenty, see ``estimatedAfterstates(rules:)``), those an `AfterstateTable`
    /// may be made for.
    public static let maxCells = AfterstateTable.maxCells

    /// What a game is worth, which the optimal policy maximizes.
    public enum Objective: String, CaseIterable, Sendable, Hashable {
        /// The score: the sum of the merged tiles (a game ends when no move is left, or at the win tile).
        case score
        /// The win: 1 when the win tile appears, else 0; a value is the chance of reaching the win tile.
        case win

        /// What it means, for help texts.
        public var summary: String {
            switch self {
            case .score: "the expected score (the sum of the merged tiles)"
            case .win: "the chance of reaching the win tile"
            }
        }
    }

    /// Why a board cannot be solved here.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// More cells than ``maxCells``, with the estimated afterstates and memory of a solve.
        case tooLarge(rows: Int, cols: Int, afterstates: Double, bytes: Double)
        /// A rules option the solver does not model (a step limit, an invalid-action penalty).
        case unsupportedRule(String)
        /// The ``Objective/win`` objective without a win tile.
        case winWithoutWinTile
        /// More memory than this process may use: the board, the estimated bytes, and the limit they pass.
        case tooLittleMemory(board: String, bytes: Int, shortfall: MemoryShortfall)

        public var description: String {
            switch self {
            case .tooLarge(let rows, let cols, let afterstates, let bytes):
                "\(rows)x\(cols) has \(rows * cols) cells; the solver solves boards of up to \(OptimalSolver.maxCells) cells (3x3, 2x4 and smaller): \(rows)x\(cols) has an estimated \(formatEstimate(afterstates)) afterstates (reduced by symmetry) and would need about \(byteSize(Int(min(bytes, 1e18)))) of memory"
            case .unsupportedRule(let rule): "the solver does not model this game: \(rule)"
            case .winWithoutWinTile: "the win objective needs a win tile (win_tile)"
            case .tooLittleMemory(let board, let bytes, let shortfall):
                "solving \(board) needs about \(byteSize(bytes)) of memory (estimated), and \(shortfall); nothing was solved"
            }
        }
    }

    /// Progress after each layer of the forward or the backward pass.
    public struct Progress: Sendable {
        /// The forward pass enumerates the boards, the backward pass values them.
        public enum Pass: String, Sendable { case enumerate, value }
        public var pass: Pass
        /// Layers (ages) done in this pass.
        public var layers: Int
        /// The layers there are: known in the backward pass, estimated in the forward one.
        public var totalLayers: Int
        /// Distinct afterstates enumerated so far.
        public var afterstates: Int
        /// The estimate of the afterstates there are (``estimatedAfterstates(rules:)``), in the forward pass.
        public var estimatedAfterstates: Double
    }

    /// Solves `rules` for `objective` on `threads` threads.
    ///
    /// - Throws: ``Refusal`` for a board larger than ``maxCells`` or rules it does not model.
    public static func solve(
        rules: Rules, objective: Objective = .score, threads: Int = 1, progress: ((Progress) -> Void)? = nil
    ) throws(Refusal) -> Solution {
        // Never stopped, the passes value every layer.
        try solve(rules: rules, objective: objective, threads: threads, progress: progress) { false }!
    }

    /// Solves `rules` for `objective` on `threads` threads unless `stop`, asked after each layer of either pass,
    /// ends it first: `nil` then (a solve cut short has no start's value, and its younger layers none at all).
    ///
    /// - Throws: ``Refusal`` for a board larger than ``maxCells`` or rules it does not model.
    public static func solve(
        rules: Rules, objective: Objective = .score, threads: Int = 1, progress: ((Progress) -> Void)? = nil, stop: @escaping () -> Bool
    ) throws(Refusal) -> Solution? {
        try check(rules, objective: objective)
        let game = SolverGame(rules: rules, objective: objective, symmetric: true)
        let (layers, complete) = passes(game: game, threads: threads, progress: progress, stop: stop)
        return complete ? Solution(game: game, layers: layers) : nil
    }

    /// The forward and the backward pass over `game`: every reachable afterstate, one of each symmetric class,
    /// with its value, by age.
    ///
    /// `stop`, asked after each layer of either pass, ends them early, and `complete` is then `false`: the layers
    /// the backward pass valued (the oldest) hold their afterstates and values, the others none.
    package static func passes(
        game: SolverGame, threads: Int, progress: ((Progress) -> Void)?, stop: (() -> Bool)? = nil
    ) -> (layers: [Solution.Layer], complete: Bool) {
        let estimate = estimatedAfterstates(rules: game.rules)
        var enumerator = LayerEnumerator(game: game, threads: threads)
        while enumerator.nextStates() != nil {
            enumerator.followLegalMoves()
            progress?(
                Progress(
                    pass: .enumerate, layers: enumerator.age, totalLayers: 0,
                    afterstates: enumerator.layers.afterstateCount, estimatedAfterstates: estimate))
            if stop?() == true { return ([], false) }
        }
        let layers = enumerator.layers
        let total = layers.afterstateCount
        let values = BackwardPass.run(
            game: game, layers: layers, valuation: OptimalValuation(game: game), threads: threads,
            progress: { done in
                progress?(Progress(pass: .value, layers: done, totalLayers: layers.states.count, afterstates: total, estimatedAfterstates: estimate))
            },
            stop: stop)
        let solved = zip(layers.afterstates, values.afterstates).map { keys, values in
            values.count == keys.count ? Solution.Layer(keys: keys, values: values) : Solution.Layer(keys: [], values: [])
        }
        return (solved, values.complete)
    }

    /// Refuses a board larger than ``maxCells`` or rules the solver does not model.
    public static func check(_ rules: Rules, objective: Objective = .score) throws(Refusal) {
        guard rules.cellCount <= maxCells else {
            let afterstates = estimatedAfterstates(rules: rules)
            throw .tooLarge(rows: rules.rows, cols: rules.cols, afterstates: afterstates, bytes: afterstates * bytesPerAfterstate)
        }
        if let rule = SolverGame.unsupportedRule(in: rules) { throw .unsupportedRule(rule) }
        if objective == .win && rules.winTile == nil { throw .winWithoutWinTile }
    }

    /// Refuses a solve of `rules` on `threads` threads whose estimated memory (``estimatedBytes(rules:)``), with
    /// `extraBytes` more, this process cannot take: an allocation past its limit would stop it midway, with nothing
    /// to show for the work. The address space counts the solver's threads and the one that watches it.
    public static func checkMemory(_ rules: Rules, threads: Int, extraBytes: Int = 0) throws(Refusal) {
        let bytes = estimatedBytes(rules: rules) + extraBytes
        if let shortfall = MemoryShortfall.of(holding: bytes, threads: threads + 1) {
            throw .tooLittleMemory(board: rules.sizeLabel, bytes: bytes, shortfall: shortfall)
        }
    }

    /// The memory a solve of `rules` takes, about: ``bytesPerAfterstate`` for each of its
    /// ``estimatedAfterstates(rules:)``.
    public static func estimatedBytes(rules: Rules) -> Int { Int(min(estimatedAfterstates(rules: rules) * bytesPerAfterstate, 1e18)) }

    /// The memory a solve takes per distinct (reduced) afterstate, about: its key and value, and its share of the
    /// states (about 1.5 per afterstate), their keys, moves and transient values.
    public static let bytesPerAfterstate = 40.0

    /// An estimate of the distinct afterstates, reduced by symmetry, of the original game on `rules`'s board:
    /// the counts of the boards solved here (2×2, 2×3, 2×4, 3×3), else an extrapolation by the growth per cell
    /// from 2×4 to 3×3 (counted on square boards, an eighth of the boards; on others, a quarter).
    public static func estimatedAfterstates(rules: Rules) -> Double {
        let counted: [Int: Double] = [4: 67, 6: 14_883, 8: 3_406_686, 9: 31_431_374]
        if let count = counted[rules.cellCount] { return count }
        // Unreduced: 2×4 has 4 × 3 406 686 boards, 3×3 8 × 31 431 374, 18.5 times as many.
        let unreduced = 8 * 31_431_374.0, growth = unreduced / (4 * 3_406_686.0)
        var estimate = unreduced
        for _ in 9..<max(9, rules.cellCount) { estimate *= growth }
        return estimate / Double(rules.rows == rules.cols ? 8 : 4)
    }
}
