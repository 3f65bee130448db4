import Game2048
import GymJSON
import Game2048Network
import Game2048Solver
import Game2048Training
import GymSystem

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
            --learning and rules flags that differ from the file's.

            The rules flags (--spawn-four-probability and those after it) set the rules of the training games, which
            end as the environment's episodes do: at the win tile, or cut at the step limit. The weights file records
            them; eval plays by them.

            --stages 16384,32768 splits the network into stages at those tiles (multi-stage networks, Yeh et al.
            2016): each stage has its own tables, read by the boards whose largest tile has reached its threshold,
            and a stage's tables start as a copy of the stage before when a game first enters it (weight promotion,
            Jaśkowski 2018). --learning tc replaces TD's one rate by each weight's temporal coherence |E|/A, the
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
            Self.network.spec, Self.patterns.spec, Self.stages.spec, Self.learning.spec, Self.coherenceAlpha.spec,
            Self.coherenceFrom.spec, Self.tableShare.spec, Self.tableLearning.spec, Self.update.spec, Self.threads.spec, Self.lanes.spec, Self.seed.spec,
            Self.checkpointEvery.spec,
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
    // Above 1 a rate overshoots every target it moves toward, and the weights diverge.
    static let alpha = CommandOption.number(
        "alpha", "rate", help: "Learning rate (above 0, at most 1), split over the active features.", in: 1e-9...1
    ).shown("\(TrainCommand.smallBoardText): 0.3, else 0.1; or the --resume file's")
    static let optimistic = CommandOption.number(
        "optimistic", "value", help: "Initial value of every board (OTD); 0 for plain TD(0).", in: 0...1e9
    ).shown(TrainCommand.defaultOptimismText)
    static let network = CommandOption.parsed(
        "network", "name", help: "A named 4x4 network: \(TuplePattern.networkNames.joined(separator: ", ")) (see below)."
    ) { name throws(UsageError) in
        guard let patterns = TuplePattern.named(name) else {
            throw UsageError("--network must be one of \(TuplePattern.networkNames.joined(separator: ", ")), got '\(name)'")
        }
        return NamedNetwork(name: name, patterns: patterns)
    }.shown("4x6 on 4x4")
    static let patterns = CommandOption.text("patterns", "cells", help: "Tuples as cell lists, e.g. '0,1,2,3;4,5,6,7'.")
        .shown("the size's default network")
    static let stages = CommandOption.text(
        "stages", "tiles", help: "Stage thresholds, ascending tiles, e.g. 16384,32768 (at most 32768 on 4x4)."
    ).shown("one stage")
    static let learning = CommandOption.choice(
        "learning", "method", help: "td, tc (temporal coherence) or otd+tc (TD, then TC from --tc-from).", of: LearningMethod.self
    ).shown("\(TrainCommand.smallBoardText): otd+tc, else td; or the --resume file's")
    static let coherenceAlpha = CommandOption.number(
        "tc_alpha", "rate", help: "TC's meta learning rate (above 0, at most 1), split over the active features.", in: 1e-9...1
    ).shown("1.0, or the --resume file's")
    static let coherenceFrom = CommandOption.number(
        "tc_from", "fraction", help: "otd+tc: the fraction of the run after which TC takes over.", in: 0...1
    ).shown("0.5, or the --resume file's")
    static let tableShare = CommandOption.number(
        "table_share", "fraction",
        help: "Boards of up to \(AfterstateTable.maxCells) cells: the fraction of the run that learns the afterstate table, after the network.",
        in: 0...1
    ).shown("0.8 on boards of up to \(AfterstateTable.maxCells) cells (2x4, 3x3 and smaller), else 0; 1 for a --resume file with a table")
    static let tableLearning = CommandOption.choice(
        "table_learning", "method",
        help: "How the afterstate table learns: "
            + TableLearning.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: " or ") + ".",
        of: TableLearning.self
    ).shown("sweep, or games when the table's part of --seconds is shorter than a sweep of the board takes")
    static let update = CommandOption.choice(
        "update", "schedule", help: "forward (after each move) or backward (after each game, last move first).", of: TDLearner.Schedule.self
    ).defaulting(to: .forward)
    static let threads = CommandOption.integer("threads", help: "Self-play threads over the shared weights.", in: 1...256).defaulting(to: 1)
    static let lanes = CommandOption.integer("lanes", help: "Games each thread plays at once, interleaved move by move.", in: 1...64)
        .shown("2 on 4x4, 1 on other sizes")
    static let seed = CommandOption.seed(help: "Seed of the games.").defaulting(to: 1, shown: "1, or the --resume file's")
    static let checkpointEvery = CommandOption.integer("checkpoint_every", help: "Save the weights every n games.", in: 1...Int.max)
    static let resume = CommandOption.text(
        "resume", "file", help: "Continue training a weights file: its size, patterns, counters; written back to it.")
    static let metrics = CommandOption.text("metrics", "file", help: "Write the learning curve as CSV.")
    static let plot = CommandOption.text("plot", "file", help: "Draw the learning curve as SVG.")
    static let solution = CommandOption.text(
        "solution", "file",
        help: "The board's solution (g2048 solve): the plot draws optimal play's expected score, and the end says the last games' share of it.")
    static let metricsEvery = CommandOption.integer("metrics_every", help: "Games per learning-curve point.", in: 1...10_000_000)
        .defaulting(to: 1000)
    static let force = CommandOption.flag("force", help: "Replace existing output files (--out, --metrics, --plot).")

    /// A network chosen by name (`--network 8x6`).
    struct NamedNetwork: Sendable {
        var name: String
        var patterns: [TuplePattern]
    }

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

    /// The default learning rate and method of a new network: on the small boards of the 7-tuple default
    /// (`TuplePattern.smallBoardCells`), a higher rate and OTD then TC, measured exactly against the solved
    /// 3×3 and 2×4 (docs/SOLVER.md: ten minutes reach 84.5 % and 88.7 % of optimal play, against 73.8 % and
    /// 83.6 % with TD at 0.1); elsewhere TD at 0.1, the rate of the 4×4 literature.
    static func defaultLearning(rows: Int, cols: Int) -> (alpha: Double, method: LearningMethod) {
        TuplePattern.smallBoardCells.contains(rows * cols) ? (0.3, .otdThenTC) : (0.1, .td)
    }

    /// The boards of ``defaultLearning(rows:cols:)``'s own defaults, in words, for the help.
    static let smallBoardText =
        "\(TuplePattern.smallBoardCells.lowerBound) to \(TuplePattern.smallBoardCells.upperBound) cells (2x4, 3x3)"

    /// The default of `--optimistic`, in words, for the help.
    static let defaultOptimismText = "1000 below 9 cells, 10000 up to 12 cells (3x3, 3x4), 80000 from 13 (4x4 and up); 0 with --learning tc"

    /// The rules of a new network's games (a resumed one plays by its file's).
    var rules: Rules
    /// The rules flags given (`--win-tile`, …): a resumed network keeps its file's rules.
    var rulesGiven: [RulesOption] = []
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
    /// `--lanes`, if given.
    var lanes: Int?
    var schedule: TDLearner.Schedule
    var seed: UInt64
    var seedGiven: Bool
    var checkpointEvery: Int?
    var resume: String?
    /// The flag the user typed for the weights' destination: `out`, or `resume` when `--out` was
    /// left to default to the resumed file (so an error names what was typed).
    var outFlag: String
    var metricsPath: String?
    var plotPath: String?
    var solutionPath: String?
    var metricsEvery: Int
    var force: Bool
    /// `--stages` as tile exponents, if given.
    var stages: [UInt8]?
    /// `--learning`, if given.
    var learning: LearningMethod?
    var coherenceAlpha: Double?
    var coherenceFrom: Double?
    /// `--table-share`, if given.
    var tableShare: Double?
    /// `--table-learning`, if given (else `TableLearning.default(rules:seconds:)`, once the table's seconds are known).
    var tableLearning: TableLearning?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        resume = try arguments[Self.resume]
        size = try arguments.boardSize(rows: Self.rows, cols: Self.cols)
        let size = size ?? (4, 4)
        do { rules = try Rules(rows: size.rows, cols: size.cols) } catch { throw UsageError(error) }
        (rules, rulesGiven) = try RulesFlags.rules(arguments, base: rules)
        // A resumed run writes back to its file: that is where its counters continue.
        let out = try arguments[Self.out]
        self.out = out ?? resume ?? "weights-\(rules.sizeLabel).bin"
        outFlag = out == nil && resume != nil ? "resume" : "out"
        games = try arguments[Self.games]
        seconds = try arguments[Self.seconds] ?? (games == nil ? 600 : nil)
        let learningDefaults = TrainCommand.defaultLearning(rows: rules.rows, cols: rules.cols)
        alpha = try arguments[Self.alpha] ?? learningDefaults.alpha
        alphaGiven = arguments.contains(Self.alpha)
        learning = try arguments[Self.learning]
        // Pure TC starts from zero weights, as Jaśkowski (2018) does; OTD and OTD+TC from optimistic ones.
        let optimism = try arguments[Self.optimistic]
        self.optimism = optimism ?? (learning == .tc ? 0 : TrainCommand.defaultOptimism(rows: rules.rows, cols: rules.cols))
        coherenceAlpha = try arguments[Self.coherenceAlpha]
        coherenceFrom = try arguments[Self.coherenceFrom]
        if learning == .tc && alphaGiven {
            throw UsageError("--alpha is TD's learning rate; --learning tc uses --tc-alpha")
        }
        tableShare = try arguments[Self.tableShare]
        tableLearning = try arguments[Self.tableLearning]
        // A resumed file's board and rules are its own: checked when it is read.
        if resume == nil { try TrainCommand.checkTableShare(tableShare, rules: rules) }
        if let spec = try arguments[Self.stages] { stages = try TrainCommand.parseStages(spec, rows: rules.rows, cols: rules.cols) }
        threads = try arguments[Self.threads]
        lanes = try arguments[Self.lanes]
        schedule = try arguments[Self.update]
        seed = try arguments[Self.seed]
        seedGiven = arguments.contains(Self.seed)
        checkpointEvery = try arguments[Self.checkpointEvery]
        metricsPath = try arguments[Self.metrics]
        plotPath = try arguments[Self.plot]
        solutionPath = try arguments[Self.solution]
        metricsEvery = try arguments[Self.metricsEvery]
        force = try arguments[Self.force]
        let patternsText = try arguments[Self.patterns]
        if let resume {
            // What a network is made of comes from the file; only a setting that could apply is accepted.
            if patternsText != nil { throw UsageError("--patterns cannot change a resumed network (the file has its own)") }
            if optimism != nil {
                throw UsageError("--optimistic sets the weights of a new network; --resume \(resume) continues the weights it holds")
            }
        }
        if let named = try arguments[Self.network] {
            guard rules.rows == 4 && rules.cols == 4 else {
                throw UsageError("--network \(named.name) is a network for 4x4 boards, not \(rules.sizeLabel); give other boards --patterns")
            }
            if patternsText != nil { throw UsageError("--network and --patterns both choose the patterns; give one") }
            if let resume { throw UsageError("--network cannot change a resumed network (--resume \(resume) has its own)") }
            patterns = named.patterns
        }
        if let spec = patternsText {
            let valueCount = TuplePattern.defaults(rows: rules.rows, cols: rules.cols).valueCount
            do { patterns = try TuplePattern.parse(spec, rows: rules.rows, cols: rules.cols, valueCount: valueCount) } catch {
                throw UsageError("--patterns: \(error.message)")
            }
        }
    }

    /// Parses `--stages`: tiles separated by commas, as tile exponents.
    ///
    /// - Throws: ``UsageError`` for a tile that is not a power of two from 4 up (32 768 on 4×4),
    ///   thresholds that do not ascend, or too many of them.
    static func parseStages(_ text: String, rows: Int, cols: Int) throws(UsageError) -> [UInt8] {
        var exponents: [UInt8] = []
        let highest = rows == 4 && cols == 4 ? 15 : Int(Rules.maxExponent)
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let tile = Int(item), tile >= 4, tile.nonzeroBitCount == 1, tile.trailingZeroBitCount <= highest else {
                throw UsageError(
                    "--stages takes tiles, powers of two from 4 to \(Board.value(ofExponent: UInt8(min(highest, 62)))) on a \(rows)x\(cols) board, "
                        + "separated by commas; got '\(item)' in '\(text)'")
            }
            exponents.append(UInt8(tile.trailingZeroBitCount))
        }
        if let problem = NTupleNetwork.stageProblem(exponents, rows: rows, cols: cols) {
            let tiles = exponents.map { String(Board.value(ofExponent: $0)) }.joined(separator: ",")
            throw UsageError("--stages \(tiles): \(problem)")
        }
        return exponents
    }

    /// The files this run writes, for the output policy (see ``OutputFiles``).
    var outputs: [OutputFiles.Output] {
        // Running the same `train --out w.bin` line twice is a user who wants more training as often as a fresh start.
        var outputs = [OutputFiles.Output(flag: outFlag, path: out, mayReplace: "resume", otherwise: "or --resume \(out) to train it further")]
        if let metricsPath {
            // A resumed run continues the learning curve of the runs before it.
            outputs.append(.init(flag: "metrics", path: metricsPath, mode: resume == nil ? .replace : .append(header: TrainingMetrics.csvHeader)))
        }
        if let plotPath { outputs.append(.init(flag: "plot", path: plotPath)) }
        return outputs
    }

    /// Refuses a run that would allocate `bytes` more than this process may take, for `what`, on `threads` threads
    /// it starts: past its limit the allocation would stop the process without a word.
    static func checkMemory(_ bytes: Int, for what: String, threads: Int) throws(CommandFailure) {
        if let shortfall = MemoryShortfall.of(holding: bytes, threads: threads) {
            throw CommandFailure(message: "\(what) needs \(byteSize(bytes)) of memory, and \(shortfall); nothing was trained")
        }
    }

    /// The network and counters to start from: the `--resume` file's, or a new network.
    ///
    /// - Throws: ``UsageError`` when `--rows`/`--cols` contradict the file; the file's own errors.
    func start() throws -> (network: NTupleNetwork, metadata: TrainingMetadata, rules: Rules) {
        guard let resume else {
            let featureCount = NTupleNetwork.featureCount(
                patterns: patterns?.count ?? TuplePattern.defaults(rows: rules.rows, cols: rules.cols).patterns.count,
                rows: rules.rows, cols: rules.cols)
            let weights = NTupleNetwork.weightCount(rows: rules.rows, cols: rules.cols, patterns: patterns, stages: (stages?.count ?? 0) + 1)
            try TrainCommand.checkMemory(
                NTupleNetwork.memoryBytes(weights: weights)
                    + TDLearner.memoryBytes(weights: weights, method: learning ?? TrainCommand.defaultLearning(rows: rules.rows, cols: rules.cols).method),
                for: "a new \(rules.sizeLabel) network with its learner", threads: threads + 1)
            // Optimism is a value per board, shared over the features that sum to it.
            let network = NTupleNetwork(
                rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil,
                initialValue: Float(optimism) / Float(featureCount), stageThresholds: stages ?? [],
                afterstates: TrainingSchedule.tableShare(asked: tableShare, rules: rules) > 0 ? AfterstateTable(rows: rules.rows, cols: rules.cols) : nil)
            var metadata = TrainingMetadata(
                games: 0, moves: 0, seed: seed, alpha: alpha, initialValue: optimism, elapsedSeconds: 0,
                rulesVersion: Rules.version, spawnFourProbability: rules.spawnFourProbability)
            metadata.learning = learning ?? TrainCommand.defaultLearning(rows: rules.rows, cols: rules.cols).method
            metadata.trainedRules = rules
            if let coherenceAlpha { metadata.coherenceAlpha = coherenceAlpha }
            if let coherenceFrom { metadata.coherenceFrom = coherenceFrom }
            return (network, metadata, rules)
        }
        var (network, metadata) = try WeightsFile.load(from: resume)
        let rules = metadata.rules(rows: network.rows, cols: network.cols)
        let settings = RulesSettings(rules), asked = RulesSettings(self.rules)
        if let option = rulesGiven.first(where: { $0.value(in: asked) != $0.value(in: settings) }) {
            throw UsageError(
                "--\(option.flag) differs from --resume \(resume), whose games were played with \(option.name) "
                    + "\(option.value(in: settings).flagText); leave it out to continue them")
        }
        if let size, size != (network.rows, network.cols) {
            throw UsageError(
                "--rows/--cols say \(size.rows)x\(size.cols), but --resume \(resume) holds a \(network.rows)x\(network.cols) network; "
                    + "leave them out to continue it")
        }
        if let stages, stages != network.stageThresholds {
            throw UsageError(
                "--stages \(TrainCommand.tilesText(stages)) differs from the stages of --resume \(resume) "
                    + "(\(network.stageThresholds.isEmpty ? "one stage" : TrainCommand.tilesText(network.stageThresholds))); leave it out to continue them")
        }
        if let learning, learning != metadata.learning {
            throw UsageError(
                "--learning \(learning.rawValue) differs from --resume \(resume), which learns by \(metadata.learning.rawValue); "
                    + "leave it out to continue")
        }
        if metadata.learning == .tc && alphaGiven {
            throw UsageError("--alpha is TD's learning rate; --resume \(resume) learns by tc, which uses --tc-alpha")
        }
        if let coherenceAlpha { metadata.coherenceAlpha = coherenceAlpha }
        if let coherenceFrom { metadata.coherenceFrom = coherenceFrom }
        metadata.trainedRules = rules
        try TrainCommand.checkTableShare(tableShare, rules: rules)
        if let table = network.afterstates {
            if let tableShare, tableShare < 1 {
                throw UsageError(
                    "--table-share \(formatFixed(tableShare, digits: 2)): --resume \(resume) holds an afterstate table (\(table.count) afterstates), "
                        + "over which its network no longer learns, so the whole run learns the table; leave --table-share out")
            }
        } else if TrainingSchedule.tableShare(asked: tableShare, rules: rules) > 0 {
            network.attachAfterstateTable()
        }
        // The file's learning rate and seed continue unless this run sets its own; the file then records them.
        if alphaGiven { metadata.alpha = alpha }
        if seedGiven { metadata.seed = seed }
        return (network, metadata, rules)
    }

    /// Refuses `--table-share` above 0 where a table cannot be learned: a board of more than
    /// `AfterstateTable.maxCells` cells, or rules the solver's equations do not model.
    static func checkTableShare(_ tableShare: Double?, rules: Rules) throws(UsageError) {
        guard let tableShare, tableShare > 0 else { return }
        guard AfterstateTable.fits(rows: rules.rows, cols: rules.cols) else {
            throw UsageError(
                "--table-share: an afterstate table is for boards of up to \(AfterstateTable.maxCells) cells (2x4, 3x3 and smaller); "
                    + "a \(rules.sizeLabel) network learns alone")
        }
        if let rule = AfterstateLearner.unsupportedRule(in: rules) { throw UsageError("--table-share: \(rule)") }
    }

    func run() throws -> Int32 {
        let inputs = [resume.map { OutputFiles.Input(flag: "resume", path: $0) }, solutionPath.map { .init(flag: "solution", path: $0) }]
        let claim = try OutputFiles.claim(outputs, inputs: inputs.compactMap { $0 }, force: force, command: "train")
        defer { claim.release() }
        let (network, base, rules) = try start()
        let optimal = try solutionPath.map { path throws -> Double in
            let solution = try Solution.load(from: path)
            guard solution.rules == rules, solution.objective == .score else {
                throw UsageError(
                    "--solution \(path) solves \(solution.rules.sizeLabel) for \(solution.objective.summary) under other rules than this "
                        + "run's \(rules.sizeLabel) games; solve the board with the same rules flags")
            }
            return solution.expectedScore
        }
        if resume != nil {
            try TrainCommand.checkMemory(
                TDLearner.memoryBytes(weights: network.weights.count, method: base.learning), for: "the learner of \(resume!)", threads: threads + 1)
        }
        let alpha = base.alpha, seed = base.seed
        // Lanes pay where a move prefetches its weights: the packed 4×4 board (the README's figures).
        let lanes = self.lanes ?? (network.readsBitboards ? 2 : 1)
        let learner = TDLearner(
            network: network, rules: rules, alpha: Float(alpha), schedule: schedule, method: base.learning,
            coherenceAlpha: Float(base.coherenceAlpha), coherenceStarted: base.coherenceStarted)
        let stagesText = network.stageCount == 1 ? "" : " in \(network.stageCount) stages from \(TrainCommand.tilesText(network.stageThresholds))"
        let shape =
            "\(network.patterns.count) patterns × \(network.symmetryCount) symmetries\(stagesText), "
            + "\(network.weights.count) weights (\((network.weights.count * 4) >> 20) MiB)"
        let method =
            switch base.learning {
            case .td: "TD, α = \(alpha)"
            case .tc: "TC, β = \(base.coherenceAlpha)"
            case .otdThenTC:
                "OTD+TC, α = \(alpha), β = \(base.coherenceAlpha), "
                    + (base.coherenceStarted ? "in TC" : "TC from \(formatFixed(base.coherenceFrom * 100, digits: 0)) % of the run")
            }
        // The network learns first, then the afterstate table over it (on a small board): each part gets its
        // share of the games to reach, else of this run's seconds. A file with a table learns only the table.
        let parts = TrainingSchedule(
            gamesBefore: base.games, games: games, seconds: seconds,
            tableShare: TrainingSchedule.tableShare(of: network, asked: tableShare, rules: rules), coherenceFrom: base.coherenceFrom)
        let share = parts.tableShare
        if let tableLearning, !parts.learnsTable {
            throw UsageError(
                "--table-learning \(tableLearning.rawValue): this \(rules.sizeLabel) run learns no afterstate table "
                    + (network.afterstates == nil && !AfterstateTable.fits(rows: rules.rows, cols: rules.cols)
                        ? "(a table is for boards of up to \(AfterstateTable.maxCells) cells)" : "(--table-share 0)"))
        }
        // Unless asked, a sweep that the clock would cut before its first value, or that the memory cannot hold,
        // gives way to the games; asked, a sweep that cannot fit is refused before the first game.
        let (tableLearning, sweepShortfall) = parts.tableLearning(asked: self.tableLearning, rules: rules, threads: threads + 2)
        if self.tableLearning == .sweep, let sweepShortfall {
            throw CommandFailure(message: "--table-learning sweep: \(sweepShortfall); nothing was trained (--table-learning games needs less)")
        }
        let sweeps = parts.learnsTable && tableLearning == .sweep
        let sweepTooLong =
            parts.learnsTable && self.tableLearning == nil && tableLearning == .games
            ? sweepShortfall.map { " (\($0))" }
                ?? " (a sweep of \(rules.sizeLabel) takes about \(formatFixed(AfterstateSweep.expectedSeconds(rules: rules), digits: 0)) s, "
                + "more than the table's \(formatFixed(parts.tableSeconds ?? 0, digits: 1)) s: --table-learning sweep asks for it)"
            : ""
        // A sweep fills the table with every reachable afterstate: the file's size is known before the first game.
        try checkRoom(for: network, metadata: base, extraAfterstates: sweeps ? Int(OptimalSolver.estimatedAfterstates(rules: rules)) : 0)
        if resume != nil && base.learning.needsAccumulators { Console.error("TC accumulators start again from zero (files do not store them)") }
        // Only what applies: a resumed network's starting value is long gone.
        let start =
            resume.map { "resuming \($0) (\(base.games) games, \(base.moves) moves so far): \(rules.sizeLabel), \(shape)" }
            ?? "training \(rules.sizeLabel): \(shape), optimistic \(formatFixed(optimism, digits: 0))"
        Console.error(
            start
                + ", \(method), \(schedule.rawValue) updates, \(threads) thread\(threads == 1 ? "" : "s") × \(lanes) lane\(lanes == 1 ? "" : "s"), seed \(seed); "
                + "saving to \(out)"
                + (network.afterstates == nil
                    ? ""
                    : sweeps
                        ? "; then every afterstate of the table is valued exactly, within \(formatFixed(100 * share, digits: 0)) % of the run"
                        : "; the afterstate table learns \(formatFixed(100 * share, digits: 0)) % of the run from games, on one thread"
                            + sweepTooLong))
        let metricsFile = try metricsPath.map { path throws(MetricsOutputError) -> MetricsCSVWriter in
            try MetricsCSVWriter(path: path, truncating: resume == nil)
        }
        let report = TrainingReport(
            interval: metricsEvery, gamesBefore: base.games, movesBefore: base.moves,
            secondsBefore: base.elapsedSeconds, file: metricsFile)
        let progress = Progress(total: games, seconds: seconds, unit: "games")
        let out = self.out
        // Ctrl-C or SIGTERM: the games in progress stop within a few thousand moves, then everything is saved.
        let watch = InterruptWatch(onSecond: claim.lockRemoval) { learner.stop.request() }
        defer { watch.cancel() }
        let metadataNow = { @Sendable () -> TrainingMetadata in
            // Measured on 4×4 networks only (see `TileDowngrade.suggestedLimit`), so recorded only there.
            var metadata = report.metadata(base: base, suggestingDowngrade: rules.rows == 4 && rules.cols == 4)
            metadata.coherenceStarted = base.learning == .otdThenTC && learner.learnsByCoherence
            return metadata
        }
        let run = TrainingRun(
            learner: learner, schedule: parts, tableLearning: tableLearning, threads: threads, lanes: lanes, seed: seed,
            checkpoint: checkpointEvery.map { TrainingRun.Checkpoint(every: $0, path: out) })
        var sweepStart = 0.0
        var sweepProgress: LayeredProgress? = nil
        let outcome = try run.run(
            TrainingRun.Hooks(
                metadata: metadataNow,
                game: { result, total in
                    let summary = report.record(result)
                    progress.update(total, detail: summary)
                },
                coherenceStarted: { Console.error("switching to TC learning at game \($0)") },
                tableGamesStarting: { game, tableLearner in
                    Console.error(
                        "learning the afterstate table from game \(game) (\(tableLearner.table.count) afterstates so far; one thread, "
                            + "the network's weights no longer change)")
                },
                sweepStarting: {
                    progress.finish()
                    // The network's games are kept whatever becomes of the sweep (a signal's second stop, a failure).
                    try TrainCommand.save(network, metadata: metadataNow(), to: out)
                    Console.error("saved the network's weights to \(out) before the sweep")
                    sweepStart = SystemClock.monotonicSeconds()
                    sweepProgress = TrainCommand.announceSweep(rules: rules, threads: threads)
                },
                sweepProgress: { sweepProgress?.update($0) }))
        if let swept = outcome.swept {
            sweepProgress?.finish()
            TrainCommand.reportSweep(swept, seconds: SystemClock.monotonicSeconds() - sweepStart, out: out)
        }
        progress.finish()
        let runSeconds = report.elapsed
        switch outcome.halt {
        case .diverged(let game):
            // The weights hold infinities or NaNs: saving them would only replace good weights with garbage.
            let kept =
                checkpointEvery.map { "the last checkpoint (every \($0) games) in \(out) is kept" }
                ?? (resume.map { "\($0) is left as it was" } ?? "nothing was saved")
            throw CommandFailure(
                message: "training diverged at game \(game): a value became infinite or NaN, so the learning rate is too "
                    + "large for this network (try a smaller --alpha or --tc-alpha); \(kept)")
        case .checkpointFailed(let error):
            // The run stopped on a failed checkpoint: its weights are saved where they can be (else a rescue file).
            try TrainCommand.save(network, metadata: metadataNow(), to: out)
            throw CommandFailure(message: "checkpoint failed: \(error); the weights were saved to \(out) on a second try")
        case nil: break
        }
        let metadata = metadataNow()
        try TrainCommand.save(network, metadata: metadata, to: out)
        try report.finish()
        if let plotPath {
            // A resumed run's curve starts where the metrics file of the earlier runs left off.
            let earlier = resume != nil ? metricsPath.flatMap { try? TrainingMetrics.rows(fromCSVFile: $0) } ?? [] : []
            let rows = earlier.filter { $0.games <= base.games } + report.allRows
            let title = "g2048 train \(rules.sizeLabel), α = \(alpha), optimistic \(formatFixed(base.initialValue, digits: 0))"
            let markers =
                (outcome.coherenceStartedAt.map { [(games: $0, label: "TC from here")] } ?? [])
                + (outcome.learnedTable && outcome.tableFrom > base.games
                    ? [(games: outcome.tableFrom, label: outcome.swept == nil ? "table from here" : "table swept here")] : [])
            try LearningCurvePlot.writeSVG(
                rows: rows, title: title, markers: markers, reference: optimal.map { ($0, "optimal play") }, to: plotPath)
        }
        var recent = report.finalSummary(movesPerSecond: Double(metadata.moves - base.moves) / max(runSeconds, 1e-9))
        // The games were the network's; the table swept after them makes another player.
        if outcome.swept != nil { recent += ", the network's games before the sweep" }
        if let optimal {
            recent += " (\(formatFixed(100 * report.recentMeanScore / optimal, digits: 1)) % of optimal play's \(formatFixed(optimal, digits: 2)))"
        }
        Console.output(
            "wrote \(out): \(metadata.games) games, \(metadata.moves) moves, \(formatFixed(metadata.elapsedSeconds, digits: 0)) s of training"
                + (network.afterstates.map { ", a table of \($0.count) afterstates (\(byteSize($0.fileBytes)))" } ?? "") + "; \(recent)")
        if let table = network.afterstates, let refused = table.growthRefused {
            Console.error(
                "note: the afterstate table stopped growing at \(table.count) afterstates, since doubling it would not fit: "
                    + "\(refused); boards it lacks take the network's value")
        }
        if let swept = outcome.swept, swept.complete {
            Console.output(
                "the table holds the exact value of every afterstate these rules reach: greedy play of \(out) is optimal play"
                    + (optimal.map { ", an expected score of \(formatFixed($0, digits: 2))" } ?? ""))
        }
        if let limit = metadata.downgradeLimit {
            Console.output(
                "eval and play search these weights downgrading from the \(Board.value(ofExponent: limit)) tile, the largest a third of the last games "
                    + "reached (--downgrade overrides)")
        }
        guard let signal = watch.signal else { return ExitCode.success }
        let saved = [metricsPath.map { "the learning curve in \($0)" }, plotPath.map { "its plot in \($0)" }].compactMap { $0 }
        Console.error(
            "stopped by \(InterruptWatch.name(signal)): the weights are in \(out)"
                + (saved.isEmpty ? "" : ", " + saved.joined(separator: ", ")) + "; continue with 'g2048 train --resume \(out)'")
        return 128 + signal
    }
}

extension TrainCommand {
    /// Refuses to start a run whose weights file cannot fit where it goes (``OutputFiles/checkRoom(for:needing:)``):
    /// its size is known before the first game, and a run that trains for ten minutes only to fail its save has
    /// lost them. `extraAfterstates`: the afterstates the run will add to the network's table.
    func checkRoom(for network: NTupleNetwork, metadata: TrainingMetadata, extraAfterstates: Int = 0) throws(OutputFileError) {
        let needed = WeightsFile.fileSize(of: network, metadata: metadata) + AfterstateTable.fileBytes(holding: extraAfterstates)
        try OutputFiles.checkRoom(for: outputs[0], needing: needed)
    }

    /// Saves the weights to `out`; when that fails (a disk filled during the run), to a rescue file in the
    /// temporary folder or the home folder, so that the run's work is never lost without a word.
    static func save(_ network: NTupleNetwork, metadata: TrainingMetadata, to out: String) throws {
        let failure: WeightsFileError
        do {
            return try WeightsFile.save(network, metadata: metadata, to: out)
        } catch {
            failure = error
        }
        var tried: [String] = []
        let name = "g2048-rescued-weights-\(SystemProcess.id).bin"
        for folder in [SystemIO.environment("TMPDIR"), "/tmp", SystemIO.environment("HOME")].compactMap({ $0 }) where !folder.isEmpty {
            let rescue = (folder.hasSuffix("/") ? folder : folder + "/") + name
            do {
                try WeightsFile.save(network, metadata: metadata, to: rescue)
            } catch {
                tried.append("\(rescue) (\(error))")
                continue
            }
            throw CommandFailure(
                message: "\(failure); the weights were saved to \(rescue) instead: move them where they belong, or "
                    + "continue with 'g2048 train --resume \(rescue) --out \(out)'")
        }
        throw CommandFailure(message: "\(failure); saving them elsewhere failed too: \(tried.joined(separator: "; ")); the weights are lost")
    }

    /// Says on stderr what the sweep of `rules`'s board about to begin will do, and returns its progress display.
    static func announceSweep(rules: Rules, threads: Int) -> LayeredProgress {
        let estimate = OptimalSolver.estimatedAfterstates(rules: rules)
        Console.error(
            "valuing every afterstate of \(rules.sizeLabel) exactly: one backward sweep of dynamic programming on \(threads) "
                + "thread\(threads == 1 ? "" : "s"), about \(formatEstimate(estimate)) afterstates and "
                + "\(byteSize(AfterstateSweep.estimatedBytes(rules: rules))) "
                + "with the table (estimated); the network's weights no longer change")
        return LayeredProgress.solving(estimate: estimate)
    }

    /// Says on stderr what a sweep of `seconds` did, and how to finish a cut one (resuming `out`).
    static func reportSweep(_ outcome: AfterstateSweep.Outcome, seconds: Double, out: String) {
        let took = formatFixed(seconds, digits: 1)
        if outcome.complete {
            Console.error("valued \(outcome.afterstates) afterstates exactly in \(took) s; nothing is left to learn, so the run ends here")
        } else if let shortfall = outcome.shortfall {
            Console.error(
                "the sweep valued every afterstate in \(took) s, but its table could not be made room for: \(shortfall); the "
                    + "table keeps what it held, and 'g2048 train --resume \(out)' with more memory sweeps again")
        } else if outcome.afterstates == 0 {
            Console.error(
                "the sweep stopped after \(took) s, before any afterstate was valued; the table keeps what it held, and "
                    + "'g2048 train --resume \(out)' sweeps again")
        } else {
            Console.error(
                "the sweep stopped after \(took) s with the \(outcome.afterstates) afterstates of the oldest boards valued exactly; "
                    + "younger boards take the network's values, and 'g2048 train --resume \(out)' sweeps again")
        }
    }

    /// Stage thresholds as tiles: "16384,32768".
    static func tilesText(_ exponents: [UInt8]) -> String { exponents.map { String(Board.value(ofExponent: $0)) }.joined(separator: ",") }
}
