import Game2048
import Game2048Network
import Game2048Solver
import Game2048Training
import GymSystem

/// `g2048 train`: TD(0) learning of an n-tuple network, with progress, checkpoints, a curve and a plot.
///
/// The command parses its flags into a `TrainingRequest`, which `TrainingSetup` turns into a run, deciding and
/// refusing what the library decides; the command claims the output files, and reports. The request's settings
/// read as the command's own (`command.rules`, `command.lanes`).
@dynamicMemberLookup
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

            Each thread plays --lanes games at once, a move of each in turn, so that one game's weights load from
            memory while the other moves (on 4x4 two lanes train about an eighth faster than one; the games are
            others, and learn as much a game). With one thread a seed and a number of lanes give the same weights
            on every run. A 4x4 run from an optimistic initial value
            records in the weights the tile from which eval and play downgrade boards by default (see 'g2048 eval
            --help'): the largest tile that at least a third of its last 1000 games reached.

            Ctrl-C (SIGINT) or SIGTERM stops the games in progress, saves the weights, the learning curve and
            the plot, and exits with 130 or 143; a second one exits at once, and the last saved file stays whole.

            --resume continues a weights file: its board size, patterns, counters, learning rate and seed come
            from it (--alpha and --seed replace the last two), and it is written back unless --out is given;
            --rows/--cols that differ from the file, --patterns and --optimistic are refused, and so are --stages,
            --stage-boards, --learning and rules flags that differ from the file's.

            The rules flags (--spawn-four-probability and those after it) set the rules of the training games, which
            end as the environment's episodes do: at the win tile, or cut at the step limit. The weights file records
            them; eval plays by them.

            --stages 16384,32768 splits the network into stages at those tiles (multi-stage networks, Yeh et al.
            2016): each stage has its own tables, read by the boards whose largest tile has reached its threshold,
            and a stage's tables start as a copy of the stage before when a game first enters it (weight promotion,
            Jaśkowski 2018). --stage-boards downgraded has the stages past the first read a board as tile-downgrading
            search values it (see 'g2048 eval --help'), tiles above its largest gap halved until none reaches the
            first threshold: a stage's tables are still its own, but promoted from the first stage they start from
            what it knows of the same shapes. --learning tc replaces TD's one rate by each weight's temporal coherence |E|/A, the
            sum of its TD errors over the sum of their sizes, times --tc-alpha (TC learning, Jaśkowski 2018);
            --learning otd+tc learns by optimistic TD first and switches to TC after the --tc-from fraction of
            the run's games (of its seconds without --games), as Guei, Chen & Wu (2022) do; --plot marks the switch.
            On a small board solved by 'g2048 solve', --solution FILE draws optimal play's expected score on the
            plot and gives the last games' share of it ('g2048 eval --exact' then measures the player exactly).

            On boards of up to \(AfterstateTable.maxCells) cells (2x4, 3x3 and smaller) the network learns for the
            first part of the run, then an afterstate table over it, within the --table-share rest (0.8 by default); a
            board not in the table is worth the network's value, and the weights file keeps the table for every player
            of the file. --table-learning sweep (the default) values every afterstate the rules reach exactly, by one
            backward sweep of dynamic programming (the solver's passes, on --threads threads; under a minute and about
            2.7 GiB on 3x3), and the run ends there: greedy play of the file is optimal play, and no game would change
            the table. The network's weights are saved before the sweep begins. A sweep cut short (--seconds, a signal)
            keeps the values of the oldest boards, where games end; so when the table's part of --seconds is shorter
            than a sweep of the board takes, the default is the games instead (--table-learning sweep still asks for
            a sweep). So it is when the sweep's estimated memory is more than the process may use (the machine's
            memory, ulimit -v, a cgroup's limit); --table-learning sweep is then refused before the first game. --table-learning games learns the table from the
            player's own games instead, on one thread: each game is played greedily, then the afterstate of every
            legal move of each of its states, last first, takes its expected value under the spawns (the solver's
            equations, a board at a time, over the network's values where the table has not been); measured against
            the solved boards, ten minutes of it reach 98.9 to 99.1 % of optimal play on 2x4 and 80 to 87 % on 3x3
            (docs/SOLVER.md). A resumed file with a table learns only the table.

            --network picks a 4x4 network by name: 4x6 (four 6-tuples, Wu, Yeh et al. 2014, 256 MiB), 8x6 (the
            eight 6-tuples of Matsuzaki 2016, used by the OTD+TC papers, 512 MiB) or 5x6 (the first five of those).

            Existing files are not replaced without --force, with two exceptions: --out may be the --resume
            file (resuming continues it), and a resumed run appends to its --metrics file. The folder of each
            output must exist and have room for it (the file system's free room, or ulimit -f); an empty path, an
            output that is not a regular file, or is the same file as an input or another output, is refused, all
            before training starts. Each output is locked (<file>.lock beside it) while
            training runs, so a second command writing the same file stops at once.
            """,
        options: [
            Self.out.spec, Self.games.spec, Self.seconds.spec, Self.rows.spec, Self.cols.spec, Self.alpha.spec, Self.optimistic.spec,
            Self.network.spec, Self.patterns.spec, Self.stages.spec, Self.stageBoards.spec, Self.learning.spec, Self.coherenceAlpha.spec,
            Self.coherenceFrom.spec, Self.tableShare.spec, Self.tableLearning.spec, Self.update.spec, Self.restart.spec,
            Self.restartFrom.spec, Self.threads.spec, Self.lanes.spec, Self.seed.spec, Self.checkpointEvery.spec,
            Self.resume.spec, Self.metrics.spec, Self.plot.spec, Self.solution.spec, Self.metricsEvery.spec, Self.force.spec,
        ] + RulesFlags.flags.map(\.spec))

    /// The weights are the results; the lines on standard output only report them.
    static let resultsAreFiles = true

    static let out = CommandOption.text("out", "file", help: "Where to write the weights.")
        .shown("the --resume file, else weights-<rows>x<cols>.bin")
    static let games = CommandOption.integer("games", help: "Stop after this many games in total.", in: 1...Int.max)
    static let seconds = CommandOption.number("seconds", "s", help: "Stop after this many seconds.", in: 0.001...1e9)
        .shown("600 when --games is not given")
    static let rows = CommandOption.boardSize(RulesOption.rows).shown("4, or the --resume file's")
    static let cols = CommandOption.boardSize(RulesOption.cols).shown("--rows")
    static let alpha = CommandOption.number(
        LearnerSetting.alpha, "rate", help: "Learning rate (above 0, at most 1), split over the active features."
    ).shown("\(TrainCommand.smallBoardText): 0.3, else 0.1; or the --resume file's")
    static let optimistic = CommandOption.number(
        LearnerSetting.optimistic, "value", help: "Initial value of every board (OTD); 0 for plain TD(0)."
    ).shown(TrainCommand.defaultOptimismText)
    static let network = CommandOption.text(
        LearnerSetting.network, "name", help: "A named 4x4 network: \(TuplePattern.networkNames.joined(separator: ", ")) (see below)."
    ).shown("4x6 on 4x4")
    static let patterns = CommandOption.text(LearnerSetting.patterns, "cells", help: "Tuples as cell lists, e.g. '0,1,2,3;4,5,6,7'.")
        .shown("the size's default network")
    static let stages = CommandOption.text(
        LearnerSetting.stages, "tiles", help: "Stage thresholds, ascending tiles, e.g. 16384,32768 (at most 32768 on 4x4)."
    ).shown("one stage")
    static let stageBoards = CommandOption.choice(
        LearnerSetting.stageBoards, "reading", help: "How the stages past the first read their boards: plain, or downgraded (see below).",
        of: StageBoards.self
    ).shown("plain, or the --resume file's")
    static let learning = CommandOption.choice(
        LearnerSetting.learning, "method", help: "td, tc (temporal coherence) or otd+tc (TD, then TC from --tc-from).", of: LearningMethod.self
    ).shown("\(TrainCommand.smallBoardText): otd+tc, else td; or the --resume file's")
    static let coherenceAlpha = CommandOption.number(
        LearnerSetting.coherenceAlpha, "rate", help: "TC's meta learning rate (above 0, at most 1), split over the active features."
    ).shown("1.0, or the --resume file's")
    static let coherenceFrom = CommandOption.number(
        LearnerSetting.coherenceFrom, "fraction", help: "otd+tc: the fraction of the run after which TC takes over."
    ).shown("0.5, or the --resume file's")
    static let tableShare = CommandOption.number(
        LearnerSetting.tableShare, "fraction",
        help: "Boards of up to \(AfterstateTable.maxCells) cells: the fraction of the run that learns the afterstate table, after the network."
    ).shown("0.8 on boards of up to \(AfterstateTable.maxCells) cells (2x4, 3x3 and smaller), else 0; 1 for a --resume file with a table")
    static let tableLearning = CommandOption.choice(
        LearnerSetting.tableLearning, "method",
        help: "How the afterstate table learns: "
            + TableLearning.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: " or ") + ".",
        of: TableLearning.self
    ).shown("sweep, or games when the table's part of --seconds is shorter than a sweep of the board takes")
    static let update = CommandOption.choice(
        LearnerSetting.update, "schedule", help: "forward (after each move) or backward (after each game, last move first).", of: TDLearner.Schedule.self
    ).defaulting(to: .forward)
    static let restart = CommandOption.number(
        LearnerSetting.restart, "chance",
        help: "The chance that a game which ended plays again from the board on which it first held its largest tile."
    ).shown("0: every game from the starting tiles")
    static let restartFrom = CommandOption.integer(
        LearnerSetting.restartFrom, "tile", help: "--restart: only from boards that hold this tile or a larger one (a power of two)."
    ).shown("\(TrainingRequest.restartTiles.lowerBound): any tile a merge makes")
    static let threads = CommandOption.integer("threads", help: "Self-play threads over the shared weights.", in: TrainingRequest.threadCounts).defaulting(
        to: 1)
    static let lanes = CommandOption.integer(
        LearnerSetting.lanes, help: "Games each thread plays at once, interleaved move by move."
    )
    .shown("2 on 4x4, 1 on other sizes")
    static let seed = CommandOption.seed(help: "Seed of the games.").defaulting(to: 1, shown: "1, or the --resume file's")
    static let checkpointEvery = CommandOption.integer("checkpoint_every", help: "Save the weights every n games.", in: 1...Int.max)
    static let resume = CommandOption.text(
        LearnerSetting.resume, "file", help: "Continue training a weights file: its size, patterns, counters; written back to it.")
    static let metrics = CommandOption.text("metrics", "file", help: "Write the learning curve as CSV.")
    static let plot = CommandOption.text("plot", "file", help: "Draw the learning curve as SVG.")
    static let solution = CommandOption.text(
        "solution", "file",
        help: "The board's solution (g2048 solve): the plot draws optimal play's expected score, and the end says the last games' share of it.")
    static let metricsEvery = CommandOption.integer("metrics_every", help: "Games per learning-curve point.", in: 1...10_000_000)
        .defaulting(to: 1000)
    static let force = CommandOption.flag("force", help: "Replace existing output files (--out, --metrics, --plot).")

    /// The default of `--optimistic` on a board of `rows` × `cols` (`TrainingRequest.defaultOptimism(rows:cols:)`).
    static func defaultOptimism(rows: Int, cols: Int) -> Double { TrainingRequest.defaultOptimism(rows: rows, cols: cols) }

    /// The boards of `TrainingRequest.defaultLearning(rows:cols:)`'s own defaults, in words, for the help.
    static let smallBoardText =
        "\(TuplePattern.smallBoardCells.lowerBound) to \(TuplePattern.smallBoardCells.upperBound) cells (2x4, 3x3)"

    /// The default of `--optimistic`, in words, for the help.
    static let defaultOptimismText = "1000 below 9 cells, 10000 up to 12 cells (3x3, 3x4), 80000 from 13 (4x4 and up); 0 with --learning tc"

    /// What the run is asked for.
    var request: TrainingRequest
    /// The flag the user typed for the weights' destination: `out`, or `resume` when `--out` was
    /// left to default to the resumed file (so an error names what was typed).
    var outFlag: String
    var metricsPath: String?
    var plotPath: String?
    var metricsEvery: Int
    var force: Bool

    /// The request's settings, as the command's (`command.rules`).
    subscript<Value>(dynamicMember keyPath: KeyPath<TrainingRequest, Value>) -> Value { request[keyPath: keyPath] }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        // A resumed run writes back to its file: that is where its counters continue.
        let out = try arguments[Self.out]
        var rulesGiven: [RulesOption] = []
        request = try TrainingRequest(
            arguments,
            rules: { size throws(UsageError) in
                var rules: Rules
                do throws(RulesError) { rules = try Rules(rows: size?.rows ?? 4, cols: size?.cols ?? 4) } catch { throw UsageError(error) }
                (rules, rulesGiven) = try RulesFlags.rules(arguments, base: rules)
                return rules
            },
            out: { rules, resume in out ?? resume ?? "weights-\(rules.sizeLabel).bin" })
        outFlag = out == nil && request.resume != nil ? "resume" : "out"
        let games = try arguments[Self.games]
        (request.rulesGiven, request.games, request.seconds) = (rulesGiven, games, try arguments[Self.seconds] ?? (games == nil ? 600 : nil))
        request.threads = try arguments[Self.threads]
        request.checkpointEvery = try arguments[Self.checkpointEvery]
        request.solution = try arguments[Self.solution]
        metricsPath = try arguments[Self.metrics]
        plotPath = try arguments[Self.plot]
        metricsEvery = try arguments[Self.metricsEvery]
        force = try arguments[Self.force]
    }

    /// The files this run writes, for the output policy (see ``OutputFiles``).
    var outputs: [OutputFiles.Output] {
        // Running the same `train --out w.bin` line twice is a user who wants more training as often as a fresh start.
        var outputs = [OutputFiles.Output(flag: outFlag, path: request.out, mayReplace: "resume", otherwise: "or --resume \(request.out) to train it further")]
        if let metricsPath {
            // A resumed run continues the learning curve of the runs before it.
            outputs.append(.init(flag: "metrics", path: metricsPath, mode: request.resume == nil ? .replace : .append(header: TrainingMetrics.csvHeader)))
        }
        if let plotPath { outputs.append(.init(flag: "plot", path: plotPath)) }
        return outputs
    }

    func run() throws -> Int32 {
        let inputs = [request.resume.map { OutputFiles.Input(flag: "resume", path: $0) }, request.solution.map { .init(flag: "solution", path: $0) }]
        let claim = try OutputFiles.claim(outputs, inputs: inputs.compactMap { $0 }, force: force, command: "train")
        defer { claim.release() }
        let setup = try Self.mapped { try TrainingSetup(request) }
        try OutputFiles.checkRoom(for: outputs[0], needing: setup.weightsFileBytes)
        if setup.restartsAccumulators { Console.error("TC accumulators start again from zero (files do not store them)") }
        Console.error(TrainingReport.announcement(of: setup))
        let metricsFile = try metricsPath.map { path throws(MetricsOutputError) -> MetricsCSVWriter in
            try MetricsCSVWriter(path: path, truncating: request.resume == nil)
        }
        let base = setup.base, out = request.out
        let report = TrainingReport(
            interval: metricsEvery, gamesBefore: base.games, movesBefore: base.moves, secondsBefore: base.elapsedSeconds, file: metricsFile)
        let progress = Progress(total: request.games, seconds: request.seconds, unit: "games")
        // Ctrl-C or SIGTERM: the games in progress stop within a few thousand moves, then everything is saved.
        let watch = InterruptWatch(onSecond: claim.lockRemoval) { setup.learner.stop.request() }
        defer { watch.cancel() }
        let counted = { @Sendable in report.metadata(base: base, downgradeCeiling: setup.downgradeSuggestionCeiling) }
        var sweep: (start: Double, progress: LayeredProgress)? = nil
        let hooks = TrainingRun.Hooks(
            metadata: counted,
            game: { result, total in
                // Recorded at every game: the progress reads its detail only when it shows a line.
                let summary = report.record(result)
                progress.update(total, detail: summary)
            },
            coherenceStarted: { Console.error("switching to TC learning at game \($0)") },
            tableGamesStarting: { Console.error(TrainingReport.tableGamesStarting(from: $0, learner: $1)) },
            sweepStarting: { progress.finish() },
            sweepProgress: { sweep?.progress.update($0) })
        let outcome = try Self.mapped {
            try setup.run(hooks) {
                Console.error("saved the network's weights to \(out) before the sweep")
                sweep = (SystemClock.monotonicSeconds(), TrainingReport.announceSweep(rules: setup.rules, threads: setup.request.threads))
            }
        }
        if let swept = outcome.swept {
            sweep?.progress.finish()
            TrainingReport.reportSweep(swept, seconds: SystemClock.monotonicSeconds() - (sweep?.start ?? 0), out: out)
        }
        progress.finish()
        let runSeconds = report.elapsed
        let metadata = try Self.mapped { try setup.save(after: outcome, counted: counted) }
        try report.finish()
        if let plotPath { try setup.writePlot(rows: report.allRows, metrics: metricsPath, outcome: outcome, to: plotPath) }
        report.conclude(setup, outcome: outcome, metadata: metadata, runSeconds: runSeconds)
        guard let signal = watch.signal else { return ExitCode.success }
        let saved = [metricsPath.map { "the learning curve in \($0)" }, plotPath.map { "its plot in \($0)" }].compactMap { $0 }
        Console.error(
            "stopped by \(InterruptWatch.name(signal)): the weights are in \(out)"
                + (saved.isEmpty ? "" : ", " + saved.joined(separator: ", ")) + "; continue with 'g2048 train --resume \(out)'")
        return 128 + signal
    }

    /// Runs `body`, reporting its `TrainingError` as the command's own: settings that contradict each other or the
    /// files are a usage error (exit 64), the rest a failure (exit 1).
    static func mapped<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as TrainingError {
            switch error {
            case .settings(let message): throw UsageError(message)
            case .failure(let message): throw CommandFailure(message: message)
            }
        }
    }
}
