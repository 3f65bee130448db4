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
            Stops at --games or --seconds, whichever comes first (default: 10 minutes). Progress goes to stderr;
            --metrics writes the learning curve as CSV and --plot draws it as SVG. --optimistic sets every
            weight so that a new board is worth that much (optimistic initialization, OTD: Guei et al. 2021),
            which makes early play explore and learns faster at equal time; --optimistic 0 is plain TD(0).
            With one thread a seed gives the same weights on every run.
            Existing files are not replaced without --force, with two exceptions: --out may be the --resume
            file (resuming continues it), and a resumed run appends to its --metrics file. An output that is
            not a regular file, or is the same file as an input or another output, is refused. Each output is
            locked (<file>.lock beside it) while training runs, so a second command writing the same file
            stops at once.
            """,
        options: [
            .option("out", "file", "Where to write the weights.", default: "weights-<rows>x<cols>.bin"),
            .option("games", "n", "Stop after this many games in total."),
            .option("seconds", "s", "Stop after this many seconds.", default: "600 when --games is not given"),
            .option("rows", "n", "Board rows, 2 to 8.", default: "4"),
            .option("cols", "n", "Board columns, 2 to 8.", default: "4"),
            .option("alpha", "rate", "Learning rate, split over the active features.", default: "0.1"),
            .option("optimistic", "value", "Initial value of every board (OTD); 0 for plain TD(0).", default: "\(TrainCommand.defaultOptimism)"),
            .option("patterns", "cells", "Tuples as cell lists, e.g. '0,1,2,3;4,5,6,7'.", default: "the size's default network"),
            .option("update", "schedule", "forward (after each move) or backward (after each game, last move first).", default: "forward"),
            .option("threads", "n", "Self-play threads over the shared weights.", default: "1"),
            .option("seed", "seed", "Seed of the games.", default: "1"),
            .option("checkpoint-every", "n", "Save the weights every n games."),
            .option("resume", "file", "Continue training from a weights file, with its counters."),
            .option("metrics", "file", "Write the learning curve as CSV."),
            .option("plot", "file", "Draw the learning curve as SVG."),
            .option("metrics-every", "n", "Games per learning-curve point.", default: "1000"),
            .flag("force", "Replace existing output files (--out, --metrics, --plot)."),
        ])

    /// The default optimistic initial value: see the README's learner figures.
    static let defaultOptimism = 80_000.0

    var rules: Rules
    var out: String
    var games: Int?
    var seconds: Double?
    var alpha: Double
    var optimism: Double
    var patterns: [TuplePattern]?
    var threads: Int
    var schedule: TDLearner.Schedule
    var seed: UInt64
    var checkpointEvery: Int?
    var resume: String?
    var metricsPath: String?
    var plotPath: String?
    var metricsEvery: Int
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let rows = try arguments.int("rows", default: 4, in: Int.min...Int.max)
        let cols = try arguments.int("cols", default: rows == 4 ? 4 : rows, in: Int.min...Int.max)
        do { rules = try Rules(rows: rows, cols: arguments.string("cols") == nil ? rows : cols) } catch {
            throw UsageError(flag: "--\(error.field)", error)
        }
        out = arguments.string("out") ?? "weights-\(rules.sizeLabel).bin"
        games = try arguments.optionalInt("games", in: 1...Int.max)
        seconds = arguments.string("seconds") == nil ? (games == nil ? 600 : nil) : try arguments.double("seconds", default: 600, in: 0.001...1e9)
        alpha = try arguments.double("alpha", default: 0.1, in: 1e-9...10)
        optimism = try arguments.double("optimistic", default: TrainCommand.defaultOptimism, in: 0...1e9)
        threads = try arguments.int("threads", default: 1, in: 1...256)
        let scheduleName = arguments.string("update") ?? "forward"
        guard let schedule = TDLearner.Schedule(rawValue: scheduleName) else {
            throw UsageError("--update must be backward or forward, got '\(scheduleName)'")
        }
        self.schedule = schedule
        seed = try arguments.uint64("seed", default: 1)
        checkpointEvery = try arguments.optionalInt("checkpoint-every", in: 1...Int.max)
        resume = arguments.string("resume")
        metricsPath = arguments.string("metrics")
        plotPath = arguments.string("plot")
        metricsEvery = try arguments.int("metrics-every", default: 1000, in: 1...10_000_000)
        force = arguments.flag("force")
        if let spec = arguments.string("patterns") {
            guard resume == nil else { throw UsageError("--patterns cannot change a resumed network (the file has its own)") }
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

    func run() throws -> Int32 {
        let claim = try OutputFiles.claim(outputs, inputs: resume.map { [.init(flag: "resume", path: $0)] } ?? [],
                                          force: force, command: "train")
        defer { claim.release() }
        var metadata = TrainingMetadata(
            games: 0, moves: 0, seed: seed, alpha: alpha, initialValue: optimism, elapsedSeconds: 0,
            rulesVersion: Rules.version, spawnFourProbability: rules.spawnFourProbability)
        let network: NTupleNetwork
        if let resume {
            (network, metadata) = try WeightsFile.load(from: resume)
            guard network.rows == rules.rows && network.cols == rules.cols else {
                throw UsageError("--resume \(resume) holds a \(network.rows)x\(network.cols) network, not \(rules.sizeLabel)")
            }
            Console.error("resuming \(resume): \(metadata.games) games, \(metadata.moves) moves so far")
        } else {
            let shape = NTupleNetwork(rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil, initialValue: 0)
            // Optimism is a value per board, shared over the features that sum to it.
            network = optimism == 0 ? shape : NTupleNetwork(
                rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil,
                initialValue: Float(optimism) / Float(shape.featureCount))
        }
        let learner = TDLearner(network: network, rules: rules, alpha: Float(alpha), schedule: schedule)
        Console.error("training \(rules.sizeLabel): \(network.patterns.count) patterns × \(network.symmetryCount) symmetries, "
                      + "\(network.weights.count) weights (\((network.weights.count * 4) >> 20) MiB), α = \(alpha), "
                      + "optimistic \(optimism), \(schedule.rawValue) updates, \(threads) thread\(threads == 1 ? "" : "s")")
        let metricsFile = try metricsPath.map { path throws(MetricsOutputError) -> MetricsCSVWriter in
            try MetricsCSVWriter(path: path, truncating: resume == nil)
        }
        let report = TrainingReport(interval: metricsEvery, gamesBefore: metadata.games, movesBefore: metadata.moves,
                                    secondsBefore: metadata.elapsedSeconds, file: metricsFile)
        let progress = Progress(total: games, unit: "games")
        let checkpoint = checkpointEvery
        let base = metadata
        let out = self.out
        let loop = TrainingLoop(learner: learner, gamesBefore: metadata.games)
        let failure = Mutex<String?>(nil)
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
        metadata = report.metadata(base: base)
        try WeightsFile.save(network, metadata: metadata, to: out)
        try report.finish()
        if let plotPath {
            // A resumed run's curve starts where the metrics file of the earlier runs left off.
            let earlier = resume != nil ? metricsPath.flatMap { try? TrainingMetrics.rows(fromCSVFile: $0) } ?? [] : []
            let rows = earlier.filter { $0.games <= base.games } + report.allRows
            try LearningCurvePlot.writeSVG(rows: rows, title: "g2048 train \(rules.sizeLabel), α = \(alpha), optimistic \(optimism)", to: plotPath)
        }
        let recent = report.recentSummary
        Console.output("wrote \(out): \(metadata.games) games, \(metadata.moves) moves, \(formatFixed(metadata.elapsedSeconds, digits: 0)) s of training; \(recent)")
        return ExitCode.success
    }
}

/// A failure during training (after the run started).
struct TrainingFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
