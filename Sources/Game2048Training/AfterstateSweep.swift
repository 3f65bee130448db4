import Game2048
import GymSystem
import Game2048Network
import Game2048Solver

/// Fills a small board's `AfterstateTable` with the exact value of every afterstate its rules reach: the table's
/// part of `g2048 train --table-learning sweep`, the default on the boards that may have a table.
///
///     let outcome = AfterstateSweep.run(table: table, rules: rules, threads: 2, stop: TrainingStop())
///     outcome.complete    // every reachable afterstate holds its optimal value
///
/// This is dynamic programming over the whole table instead of along sampled games: the solver's two passes
/// (`OptimalSolver`), forward by age to enumerate the boards, backward from the oldest to value them, one sweep
/// being exact because a board's successors are always older. On boards whose afterstates all fit in memory it
/// does in a minute what ``AfterstateLearner``'s games do not do in hours: those back up the same equations a
/// board at a time, but over the network's estimates wherever the table has not been (docs/SOLVER.md measures
/// both). The network is untouched; it values only the boards no game under these rules reaches.
///
/// A stop (a signal, a deadline) is seen after each layer: the layers valued by then, the oldest, are written, so
/// a cut sweep leaves exact values where the games end and the network's where they begin.
public enum AfterstateSweep {
    /// What a sweep wrote.
    public struct Outcome: Sendable, Hashable {
        /// The afterstates given their exact value, one of each symmetric class.
        public var afterstates: Int
        /// Whether every reachable afterstate has its value: not stopped early, and the table had room.
        public var complete: Bool
        /// Why no value was written: the table could not be made room for (`MemoryShortfall`), or `nil`.
        public var shortfall: MemoryShortfall? = nil
    }

    /// The time a sweep takes per afterstate valued (one of each symmetric class), about, on one core: 3×3's
    /// 31 431 374 took 36.5 to 37.8 s and 2×4's 3 406 686 two to three seconds (2026-11-28, a 2-core AMD EPYC
    /// virtual machine, the other core busy). Two threads gain a tenth: the gathering of each layer is serial.
    public static let secondsPerAfterstate = 1.2e-6

    /// The time a sweep of `rules`'s board takes, about: ``secondsPerAfterstate`` for each afterstate
    /// `OptimalSolver.estimatedAfterstates(rules:)` expects. It decides ``TableLearning/default(rules:seconds:)``.
    public static func expectedSeconds(rules: Rules) -> Double {
        OptimalSolver.estimatedAfterstates(rules: rules) * secondsPerAfterstate
    }

    /// The memory a sweep of `rules`'s board takes, about: the solver's passes
    /// (`OptimalSolver.estimatedBytes(rules:)`) and the table they fill, held with its first slots while it is
    /// reserved for them.
    public static func estimatedBytes(rules: Rules) -> Int {
        OptimalSolver.estimatedBytes(rules: rules) + AfterstateTable.reservingBytes(holding: Int(OptimalSolver.estimatedAfterstates(rules: rules)))
    }

    /// Why a sweep of `rules`'s board cannot run in the memory this process may still take ("a sweep of 3x3 needs
    /// about 1.7 GiB of memory (estimated), and this process may map only 977 MiB more (its address-space limit,
    /// ulimit -v)"), or `nil` when it fits: an allocation past the limit would stop the process midway.
    /// `threads`: every thread the run starts (its trainers', the sweep's and the one that watches them), whose
    /// address space counts under `ulimit -v`.
    public static func memoryShortfall(rules: Rules, threads: Int) -> String? {
        let bytes = estimatedBytes(rules: rules)
        return MemoryShortfall.of(holding: bytes, threads: threads).map {
            "a sweep of \(rules.sizeLabel) needs about \(byteSize(bytes)) of memory (estimated), and \($0)"
        }
    }

    /// Values every afterstate `rules` reach and writes each into `table` (replacing what it held for the board),
    /// until `stop` or `seconds` from now, as ``AfterstateLearner/run(_:gamesBefore:onGame:)`` keeps its plan's.
    ///
    /// - Precondition: `table` is for the rules' board; ``AfterstateLearner/unsupportedRule(in:)`` is `nil`.
    @discardableResult
    public static func run(
        table: AfterstateTable, rules: Rules, threads: Int, seconds: Double? = nil, stop: TrainingStop,
        progress: ((OptimalSolver.Progress) -> Void)? = nil
    ) -> Outcome {
        precondition(table.rows == rules.rows && table.cols == rules.cols, "the table is for another board size")
        if let rule = AfterstateLearner.unsupportedRule(in: rules) { preconditionFailure(rule) }
        let game = SolverGame(rules: rules, objective: .score, symmetric: true)
        stop.setDeadline(secondsFromNow: seconds)
        defer { stop.setDeadline(secondsFromNow: nil) }
        let (layers, complete) = OptimalSolver.passes(game: game, threads: threads, progress: progress) { stop.isDue }
        // Past the process's limit the reservation would stop it, and the run with it: the values are let go.
        let total = table.count + layers.reduce(0) { $0 + $1.keys.count }
        if let shortfall = table.reservingShortfall(total) { return Outcome(afterstates: 0, complete: false, shortfall: shortfall) }
        table.reserve(total)
        var written = 0
        for layer in layers {
            for (key, value) in zip(layer.keys, layer.values) {
                guard table.set(canonical: key, to: Float(value)) else { return Outcome(afterstates: written, complete: false) }
                written += 1
            }
        }
        return Outcome(afterstates: written, complete: complete)
    }
}
