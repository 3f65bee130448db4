#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Game2048
import Game2048Learning
import Synchronization

/// `g2048 train`: TD(0) learning of an n-tuple network, with progress, checkpoints, a curve and a plot.
struct TrainCommand: Command {
    static let spec = CommandSpec(
        name: "train",
        abstract: "Train an n-tuple network by TD(0) afterstate learning and write its weights.",
        discussion: """
            Stops at --games or --seconds, whichever comes first (default: 10 minutes); either limit also ends a
            long game in progress (checked every 4096 moves). Progress goes to stderr (moves/s, mean score and
            the reach rates of the two largest tiles of the last 1000 games, ETA); --metrics writes the learning
            curve as CSV and --plot draws it as SVG. --optimistic sets every weight so that a new board is worth
            that much (optimistic initialization, OTD: Guei et al. 2021), which makes early play explore; its
            default depends on the board size; --optimistic 0 is plain TD(0).
            With one thread a seed gives the same weights on every run.
            Ctrl-C (SIGINT) or SIGTERM stops the games in progress, saves the weights, the learning curve and
            the plot, and exits with 130 or 143; a second one exits at once, and the last saved file stays whole.
            --resume continues a weights file: its board size, patterns, counters, learning rate and seed come
            from it (--alpha and --seed replace the last two), and it is written back unless --out is given;
            --rows/--cols that differ from the file, --patterns and --optimistic are refused.
            Existing files are not replaced without --force, with two exceptions: --out may be the --resume
            file (resuming continues it), and a resumed run appends to its --metrics file. The folder of each
            output must exist; an output that is not a regular file, or is the same file as an input or another
            output, is refused, all before training starts. Each output is locked (<file>.lock beside it) while
            training runs, so a second command writing the same file stops at once.
            """,
        options: [
            .option("out", "file", "Where to write the weights.", default: "the --resume file, else weights-<rows>x<cols>.bin"),
            .option("games", "n", "Stop after this many games in total."),
            .option("seconds", "s", "Stop after this many seconds.", default: "600 when --games is not given"),
            .option("rows", "n", "Board rows, 2 to 8.", default: "4, or the --resume file's"),
            .option("cols", "n", "Board columns, 2 to 8.", default: "--rows"),
            .option("alpha", "rate", "Learning rate, split over the active features.", default: "0.1, or the --resume file's"),
            .option("optimistic", "value", "Initial value of every board (OTD); 0 for plain TD(0).", default: TrainCommand.defaultOptimismText),
            .option("patterns", "cells", "Tuples as cell lists, e.g. '0,1,2,3;4,5,6,7'.", default: "the size's default network"),
            .option("update", "schedule", "forward (after each move) or backward (after each game, last move first).", default: "forward"),
            .option("threads", "n", "Self-play threads over the shared weights.", default: "1"),
            .option("seed", "seed", "Seed of the games.", default: "1, or the --resume file's"),
            .option("checkpoint-every", "n", "Save the weights every n games."),
            .option("resume", "file", "Continue training a weights file: its size, patterns, counters; written back to it."),
            .option("metrics", "file", "Write the learning curve as CSV."),
            .option("plot", "file", "Draw the learning curve as SVG."),
            .option("metrics-every", "n", "Games per learning-curve point.", default: "1000"),
            .flag("force", "Replace existing output files (--out, --metrics, --plot)."),
        ])

    /// The default optimistic initial value for a board size, chosen by measurement (the README's
    /// learner figures): the value should be above what the board's games score, but far above it
    /// slows learning down on small boards (3×3, 40 000 games: greedy 2 152 with 10 000, 1 516 with 80 000).
    static func defaultOptimism(rows: Int, cols: Int) -> Double {
        switch rows * cols {
        case ..<9: 1_000
        case ..<13: 10_000
        default: 80_000
        }
    }

    /// The default of `--optimistic`, in words, for the help.
    static let defaultOptimismText = "1000 below 9 cells, 10000 up to 12 cells (3x3, 3x4), 80000 from 13 (4x4 and up)"


    /// The rules of a new network (a resumed one takes its size from its file).
    var rules: Rules
    /// `--rows`/`--cols` as given, if given.
    var size: (rows: Int, cols: Int)?
    var out: String
    var games: Int?
    var seconds: Double?
    var alpha: Double
    var alphaGiven: Bool
    var optimism: Double
    var patterns: [TuplePattern]?
    var threads: Int
    var schedule: TDLearner.Schedule
    var seed: UInt64
    var seedGiven: Bool
    var checkpointEvery: Int?
    var resume: String?
    var metricsPath: String?
    var plotPath: String?
    var metricsEvery: Int
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        resume = arguments.string("resume")
        size = try arguments.boardSize()
        let size = size ?? (4, 4)
        do { rules = try Rules(rows: size.rows, cols: size.cols) } catch { throw UsageError(flag: "--\(error.field)", error) }
        // A resumed run writes back to its file: that is where its counters continue.
        out = arguments.string("out") ?? resume ?? "weights-\(rules.sizeLabel).bin"
        games = try arguments.optionalInt("games", in: 1...Int.max)
        seconds = arguments.string("seconds") == nil ? (games == nil ? 600 : nil) : try arguments.double("seconds", default: 600, in: 0.001...1e9)
        alpha = try arguments.double("alpha", default: 0.1, in: 1e-9...10)
        alphaGiven = arguments.string("alpha") != nil
        optimism = try arguments.double("optimistic", default: TrainCommand.defaultOptimism(rows: rules.rows, cols: rules.cols), in: 0...1e9)
        threads = try arguments.int("threads", default: 1, in: 1...256)
        let scheduleName = arguments.string("update") ?? "forward"
        guard let schedule = TDLearner.Schedule(rawValue: scheduleName) else {
            throw UsageError("--update must be backward or forward, got '\(scheduleName)'")
        }
        self.schedule = schedule
        seed = try arguments.uint64("seed", default: 1)
        seedGiven = arguments.string("seed") != nil
        checkpointEvery = try arguments.optionalInt("checkpoint-every", in: 1...Int.max)
        metricsPath = arguments.string("metrics")
        plotPath = arguments.string("plot")
        metricsEvery = try arguments.int("metrics-every", default: 1000, in: 1...10_000_000)
        force = arguments.flag("force")
        if let resume {
            // What a network is made of comes from the file; only a setting that could apply is accepted.
            if arguments.string("patterns") != nil { throw UsageError("--patterns cannot change a resumed network (the file has its own)") }
            if arguments.string("optimistic") != nil {
                throw UsageError("--optimistic sets the weights of a new network; --resume \(resume) continues the weights it holds")
            }
        }
        if let spec = arguments.string("patterns") {
            let valueCount = TuplePattern.defaults(rows: rules.rows, cols: rules.cols).valueCount
            do { patterns = try TuplePattern.parse(spec, rows: rules.rows, cols: rules.cols, valueCount: valueCount) } catch {
                throw UsageError("--patterns: \(error.message)")
            }
        }
    }

    /// The files this run writes, for the output policy (see ``OutputFiles``).
    var outputs: [OutputFiles.Output] {
        var outputs = [OutputFiles.Output(flag: "out", path: out, mayReplace: "resume")]
        if let metricsPath {
            // A resumed run continues the learning curve of the runs before it.
            outputs.append(.init(flag: "metrics", path: metricsPath, mode: resume == nil ? .replace : .append(header: TrainingMetrics.csvHeader)))
        }
        if let plotPath { outputs.append(.init(flag: "plot", path: plotPath)) }
        return outputs
    }

    /// The network and counters to start from: the `--resume` file's, or a new network.
    ///
    /// - Throws: ``UsageError`` when `--rows`/`--cols` contradict the file; the file's own errors.
    func start() throws -> (network: NTupleNetwork, metadata: TrainingMetadata, rules: Rules) {
        guard let resume else {
            let shape = NTupleNetwork(rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil, initialValue: 0)
            // Optimism is a value per board, shared over the features that sum to it.
            let network = optimism == 0 ? shape : NTupleNetwork(
                rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil,
                initialValue: Float(optimism) / Float(shape.featureCount))
            let metadata = TrainingMetadata(
                games: 0, moves: 0, seed: seed, alpha: alpha, initialValue: optimism, elapsedSeconds: 0,
                rulesVersion: Rules.version, spawnFourProbability: rules.spawnFourProbability)
            return (network, metadata, rules)
        }
        var (network, metadata) = try WeightsFile.load(from: resume)
        if let size, size != (network.rows, network.cols) {
            throw UsageError("--rows/--cols say \(size.rows)x\(size.cols), but --resume \(resume) holds a \(network.rows)x\(network.cols) network; "
                             + "leave them out to continue it")
        }
        let rules = try Rules(rows: network.rows, cols: network.cols, spawnFourProbability: metadata.spawnFourProbability)
        // The file's learning rate and seed continue unless this run sets its own; the file then records them.
        if alphaGiven { metadata.alpha = alpha }
        if seedGiven { metadata.seed = seed }
        return (network, metadata, rules)
    }

    func run() throws -> Int32 {
        let claim = try OutputFiles.claim(outputs, inputs: resume.map { [.init(flag: "resume", path: $0)] } ?? [],
                                          force: force, command: "train")
        defer { claim.release() }
        let (network, base, rules) = try start()
        let alpha = base.alpha, seed = base.seed
        let learner = TDLearner(network: network, rules: rules, alpha: Float(alpha), schedule: schedule)
        let shape = "\(network.patterns.count) patterns × \(network.symmetryCount) symmetries, "
            + "\(network.weights.count) weights (\((network.weights.count * 4) >> 20) MiB)"
        // Only what applies: a resumed network's starting value is long gone.
        let start = resume.map { "resuming \($0) (\(base.games) games, \(base.moves) moves so far): \(rules.sizeLabel), \(shape)" }
            ?? "training \(rules.sizeLabel): \(shape), optimistic \(formatFixed(optimism, digits: 0))"
        Console.error(start + ", α = \(alpha), \(schedule.rawValue) updates, \(threads) thread\(threads == 1 ? "" : "s"), seed \(seed); "
                      + "saving to \(out)")
        let metricsFile = try metricsPath.map { path throws(MetricsOutputError) -> MetricsCSVWriter in
            try MetricsCSVWriter(path: path, truncating: resume == nil)
        }
        let report = TrainingReport(interval: metricsEvery, gamesBefore: base.games, movesBefore: base.moves,
                                    secondsBefore: base.elapsedSeconds, file: metricsFile)
        let progress = Progress(total: games, seconds: seconds, unit: "games")
        let checkpoint = checkpointEvery
        let out = self.out
        let loop = TrainingLoop(learner: learner, gamesBefore: base.games)
        let failure = Mutex<String?>(nil)
        // Ctrl-C or SIGTERM: the games in progress stop within a few thousand moves, then everything is saved.
        let watch = InterruptWatch { learner.stop.request() }
        defer { watch.cancel() }
        loop.run(TrainingPlan(games: games, seconds: seconds, threads: threads, seed: seed)) { result, total in
            let summary = report.record(result)
            progress.update(total, detail: summary)
            if let checkpoint, total % checkpoint == 0 {
                do {
                    try WeightsFile.save(network, metadata: report.metadata(base: base), to: out)
                } catch {
                    failure.withLock { $0 = "checkpoint failed: \(error)" }
                    return false
                }
            }
            return true
        }
        progress.finish()
        if let message = failure.withLock({ $0 }) { throw TrainingFailure(message: message) }
        let metadata = report.metadata(base: base)
        try WeightsFile.save(network, metadata: metadata, to: out)
        try report.finish()
        if let plotPath {
            // A resumed run's curve starts where the metrics file of the earlier runs left off.
            let earlier = resume != nil ? metricsPath.flatMap { try? TrainingMetrics.rows(fromCSVFile: $0) } ?? [] : []
            let rows = earlier.filter { $0.games <= base.games } + report.allRows
            let title = "g2048 train \(rules.sizeLabel), α = \(alpha), optimistic \(formatFixed(base.initialValue, digits: 0))"
            try LearningCurvePlot.writeSVG(rows: rows, title: title, to: plotPath)
        }
        let recent = report.recentSummary
        Console.output("wrote \(out): \(metadata.games) games, \(metadata.moves) moves, \(formatFixed(metadata.elapsedSeconds, digits: 0)) s of training; \(recent)")
        guard let signal = watch.signal else { return ExitCode.success }
        let saved = [metricsPath.map { "the learning curve in \($0)" }, plotPath.map { "its plot in \($0)" }].compactMap { $0 }
        Console.error("stopped by \(InterruptWatch.name(signal)): the weights are in \(out)"
                      + (saved.isEmpty ? "" : ", " + saved.joined(separator: ", ")) + "; continue with 'g2048 train --resume \(out)'")
        return 128 + signal
    }
}

/// A failure during training (after the run started).
struct TrainingFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
