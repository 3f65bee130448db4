import Game2048
import Game2048Solver
import GymSystem
import Synchronization

/// `g2048 solve`: the exact optimal values of every reachable state of a small board.
struct SolveCommand: Command {
    static let spec = CommandSpec(
        name: "solve",
        abstract: "Solve a small board exactly: the optimal expected score of every reachable state.",
        discussion: """
            Enumerates every board a game can reach, layer by layer (the tiles' sum never changes under a move and
            grows by 2 or 4 at a spawn), one of each class of mirrored and rotated boards, then values them
            backward from the oldest layer: an afterstate is worth the mean over its spawns of the best move's
            reward plus its afterstate's worth. The optimal expected score of a game is printed, and the value of
            every reachable afterstate is written to --out (a checksummed solution file, written atomically;
            docs/SOLVER.md), which 'g2048 eval --agent optimal --solution FILE' plays and 'g2048 eval --exact'
            measures any player against. --out is checked before the work, as train's outputs are: its folder must
            exist and have room for the solution's estimated size (the file system's free room, or ulimit -f).

            Boards of up to \(OptimalSolver.maxCells) cells (2x2 to 3x3 and 2x4); a larger one is refused with its estimated
            size, and so is a board whose estimated memory is more than the process may use (the least of the
            machine's memory, ulimit -v and a cgroup's limit), before any work. The rules flags set the game: the chance of a 4, the starting tiles, and a win tile, which ends the
            game (a board holding it is worth nothing more); --objective win maximizes the chance of reaching the
            win tile instead of the score. A step limit and ending on an illegal action are not modelled. Progress
            goes to stderr (G2048_PROGRESS as for train). Ctrl-C (SIGINT) or SIGTERM stops the solve after the
            layer at hand, writes nothing and exits with 130 or 143; a second one exits at once.
            """,
        options: [Self.rows.spec, Self.cols.spec] + RulesFlags.flags.map(\.spec)
            + [Self.objective.spec, Self.threads.spec, Self.out.spec, Self.force.spec])

    /// The solution file is the result; the lines on standard output only report it.
    static let resultsAreFiles = true

    static let rows = CommandOption.boardSize(RulesOption.rows).shown("3")
    static let cols = CommandOption.boardSize(RulesOption.cols).shown("--rows")
    static let objective = CommandOption.choice(
        "objective", "goal",
        help: OptimalSolver.Objective.allCases.map { "\($0.rawValue): \($0.summary)" }.joined(separator: "; ") + ".",
        of: OptimalSolver.Objective.self
    ).defaulting(to: .score)
    static let threads = CommandOption.integer("threads", help: "Threads of both passes.", in: 1...256)
        .defaulting(to: SystemInfo.processorCount, shown: "number of CPUs")
    static let out = CommandOption.text("out", "file", help: "Where to write the solution.")
    static let force = CommandOption.flag("force", help: "Replace an existing --out file.")

    var rules: Rules
    var objective: OptimalSolver.Objective
    var threads: Int
    var outPath: String
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let size = try arguments.boardSize(rows: Self.rows, cols: Self.cols) ?? (3, 3)
        do { rules = try Rules(rows: size.rows, cols: size.cols) } catch { throw UsageError(error) }
        (rules, _) = try RulesFlags.rules(arguments, base: rules)
        guard let out = try arguments[Self.out] else { throw UsageError("--out <file> is required: where to write the solution") }
        outPath = out
        force = try arguments[Self.force]
        objective = try arguments[Self.objective]
        threads = try arguments[Self.threads]
        do throws(OptimalSolver.Refusal) { try OptimalSolver.check(rules, objective: objective) } catch {
            throw UsageError(error.description)
        }
    }

    func run() throws -> Int32 {
        // Refused before the work: an allocation past the process's limit would stop it midway, without a word.
        do throws(OptimalSolver.Refusal) { try OptimalSolver.checkMemory(rules, threads: threads) } catch { throw CommandFailure(message: error.description) }
        // Checked and locked before the work: a solve of minutes is not lost to an --out it cannot write.
        let claim = try OutputFiles.claim(
            [.init(flag: "out", path: outPath, bytes: Solution.estimatedFileBytes(rules: rules))], inputs: [], force: force, command: "solve")
        defer { claim.release() }
        let start = SystemClock.monotonicSeconds()
        let estimate = OptimalSolver.estimatedAfterstates(rules: rules)
        Console.error(
            "solving \(rules.sizeLabel) for \(objective.summary) on \(threads) thread\(threads == 1 ? "" : "s"): about \(formatEstimate(estimate)) afterstates, "
                + "\(byteSize(OptimalSolver.estimatedBytes(rules: rules))) (estimated)")
        let progress = LayeredProgress.solving(estimate: estimate)
        // Ctrl-C or SIGTERM: the passes stop after the layer at hand, and the run says so and releases its lock.
        let stopRequested = Atomic<Bool>(false)
        let watch = InterruptWatch(stopping: "stopping after the layer at hand; send it again to quit at once", onSecond: claim.lockRemoval) {
            stopRequested.store(true, ordering: .relaxed)
        }
        defer { watch.cancel() }
        let solved = try OptimalSolver.solve(rules: rules, objective: objective, threads: threads, progress: progress.update) {
            stopRequested.load(ordering: .relaxed)
        }
        progress.finish()
        guard let solution = solved, watch.signal == nil else {
            let signal = watch.signal ?? SystemProcess.interrupt
            Console.error(
                "stopped by \(InterruptWatch.name(signal)): nothing was written (a solve cut short has no values to keep); run it again to solve")
            return 128 + signal
        }
        try solution.save(to: outPath)
        let seconds = SystemClock.monotonicSeconds() - start
        let winText = rules.winTile.map { ", ends at \($0)" } ?? ""
        Console.output(
            """
            board            \(rules.sizeLabel), a 4 with probability \(rules.spawnFourProbability), \(rules.initialTiles) starting tiles\(winText)
            afterstates      \(solution.afterstateCount) (one of each class of symmetric ones)
            \(objective == .score ? "optimal score   " : "optimal win rate") \(formatFixed(solution.expectedScore, digits: objective == .score ? 2 : 6)) (expected, from the starting boards)
            time             \(formatFixed(seconds, digits: 1)) s, peak memory \(formatFixed(Double(SystemInfo.peakMemory) / 1_048_576, digits: 0)) MiB
            wrote            \(outPath)
            """)
        return ExitCode.success
    }
}
