import Game2048
import GymGames
import GymJSON
import Game2048Network
import Game2048Search
import Game2048Solver
import GymPlay
import GymSystem

/// `g2048 eval`: measure a player over many seeded games.
struct EvalCommand: Command {
    static let spec = CommandSpec(
        name: "eval",
        abstract: "Play seeded games with trained weights or a built-in player and report the scores.",
        discussion: """
            With --weights the n-tuple network plays: --depth 0 is greedy over afterstates, --depth 1 and more search that many spawn layers by expectimax (a 2 with
            0.9, a 4 with 0.1 on every empty cell) with a transposition cache; the heuristic expectimax searches
            2 layers by default. The built-in players play on any board (--rows, --cols); the network plays on
            the board it was trained for. The rules flags (--spawn-four-probability and those after it) set the
            games' rules: a network plays by the rules it was trained under, which its weights file records,
            and a flag that changes one is noted on stderr.

            A search visits at most --nodes chance nodes per move: it deepens one layer at a time up to --depth
            and plays the move of the deepest layer that fits, so every depth finishes in bounded time per move,
            and, as the budget counts nodes rather than seconds, the same seed gives the same games on any machine.

            On a 4x4 board the network searches the packed board with a fixed transposition table (4 MiB a game).

            --prune values a chance node by the evaluator instead of expanding it when the spawns that lead to it
            are less likely than the given probability (as nneonneo/2048-ai's probability cutoff; deterministic).

            --downgrade values a board holding a tile at or above the given one as the same board with every tile
            above its largest missing tile halved, so the network sees a shape it was trained on (tile-downgrading,
            Guei, Chen & Wu 2022). By default the tile is the weights file's: train records the largest tile that a
            third of its last 1000 games reached (8192 after an hour, 4096 after a few minutes) for 4x4 networks
            trained from an optimistic initial value, which overrate boards past that; else 32768.

            Game i is seeded from --seed alone, so results do not depend on --threads. Progress (games, moves,
            ETA) goes to stderr, redrawn every 0.2 s on a terminal and a line every 10 s otherwise, counting
            the moves within a game for searches and montecarlo; G2048_PROGRESS=off hides it and
            G2048_PROGRESS=<seconds> sets the interval.

            On a board solved by 'g2048 solve', --agent optimal --solution FILE plays the optimal moves, and
            --exact --solution FILE computes any player's expected score exactly (no games, no noise), its
            fraction of the optimal score and its share of moves that are not optimal (docs/SOLVER.md). It asks
            the player its move on every board the player reaches, layer by layer (boards of one tile sum),
            then values them: its progress counts the solution's afterstates of the layers passed, then the
            layers valued. A search asked tens of millions of boards (3x3) takes hours.

            \(EvalRecording.discussion)

            Players (--agent): \(Agent.descriptions).
            """,
        options: [
            GameFlag.option.spec,
            Self.weights.spec, Self.solution.spec, Self.agent.spec, Self.depth.spec, Self.nodes.spec, Self.prune.spec, Self.downgrade.spec,
            Self.rows.spec, Self.cols.spec,
        ] + RulesFlags.flags.map(\.spec) + [Self.games.spec, Self.seed.spec, Self.threads.spec, Self.exact.spec, Self.json.spec]
            + EvalRecording.specs)

    static let weights = CommandOption.text("weights", "file", help: "A weights file written by 'g2048 train'.")
    static let solution = CommandOption.text("solution", "file", help: "A solution file written by 'g2048 solve', for --agent optimal.")
    static let agent = CommandOption.choice("agent", "name", help: "\(Agent.names).", of: Agent.self)
        .shown("ntuple with --weights, optimal with --solution, else expectimax")
    static let depth = CommandOption.integer("depth", help: "Expectimax depth (0 = greedy over afterstates).", in: 0...4)
        .shown("0 with --weights, 2 for expectimax")
    static let nodes = CommandOption.integer("nodes", help: "Most chance nodes searched per move (1 to 10000000).", in: 1...10_000_000)
        .defaulting(to: Expectimax.defaultNodeBudget)
    static let prune = CommandOption.number(
        "prune", "probability",
        help: "Value a chance node by the evaluator when the spawns leading to it are less likely than this (0 = off, up to 1).",
        in: 0...1
    ).defaulting(to: Expectimax.defaultPruneBelow, shown: "\(Expectimax.defaultPruneBelow)")
    static let downgrade = CommandOption.downgrade(
        help: "Tile-downgrading of the network's search: on (from 32768), off, or the tile (8 to 32768) from which boards are downgraded."
    ).shown("the weights file's tile, else 32768")
    static let rows = CommandOption.boardSize(RulesOption.rows).shown("4, or the network's")
    static let cols = CommandOption.boardSize(RulesOption.cols).shown("--rows")
    static let games = CommandOption.integer("games", help: "Games to play.", in: 1...10_000_000).defaulting(to: 1000)
    static let seed = CommandOption.seed(help: "Seed of the games.").defaulting(to: 1)
    static let threads = CommandOption.integer("threads", help: "Games played at once.", in: 1...256)
        .defaulting(to: SystemInfo.processorCount, shown: "number of CPUs")
    static let exact = CommandOption.flag(
        "exact", help: "With --solution: compute the player's expected score exactly on the solved board instead of playing games.")
    static let json = CommandOption.flag("json", help: "Print the report as one JSON object.")

    var agent: Agent
    var weightsPath: String?
    var solutionPath: String?
    var depth: Int
    var nodes: Int
    var pruneBelow: Double
    /// `--downgrade`'s limit (`nil` for off), if given: else the weights file's, else the 32768 tile.
    var downgradeFlag: UInt8??
    /// `--rows`/`--cols` as given, if given.
    var size: (rows: Int, cols: Int)?
    /// The rules of the games: the flags' on the default rules (a network's games start from its file's rules).
    var rules: Rules
    /// The rules flags given: they change a network's rules, with a note that says so.
    var rulesGiven: [RulesOption] = []
    var games: Int
    var seed: UInt64
    var threads: Int
    var exact: Bool
    var json: Bool
    /// `--protocol`'s: it set the rules, the games and the seed.
    var evaluation: EvaluationProtocol?
    var recordPath: String?
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        weightsPath = try arguments[Self.weights]
        solutionPath = try arguments[Self.solution]
        let agent = try arguments[Self.agent] ?? (weightsPath != nil ? .ntuple : solutionPath != nil ? .optimal : .expectimax)
        self.agent = agent
        exact = try arguments[Self.exact]
        if agent.needsSolution && solutionPath == nil { throw UsageError("--agent optimal needs --solution <file> (written by 'g2048 solve')") }
        if exact && solutionPath == nil { throw UsageError("--exact needs --solution <file>: the solved board it computes on") }
        if exact && agent == .montecarlo { throw UsageError("--exact needs a player whose move a board decides; montecarlo's rollouts are random") }
        if !agent.needsSolution && solutionPath != nil && !exact {
            throw UsageError("--solution is used by --agent optimal, or by any player with --exact")
        }
        if agent.needsNetwork && weightsPath == nil { throw UsageError("--agent \(agent.rawValue) needs --weights <file>") }
        if !agent.needsNetwork && weightsPath != nil {
            throw UsageError(
                "--weights is only used by --agent ntuple, which searches with the network when given --depth N "
                    + "(expectimax over N spawn layers); --agent \(agent.rawValue) plays without it")
        }
        // Greedy over afterstates is what the network was trained for; the heuristic needs a look ahead.
        depth = try arguments[Self.depth] ?? (agent == .ntuple ? 0 : agent.defaultDepth)
        let searchers = Agent.allCases.filter(\.searches).map(\.rawValue).joined(separator: " and ")
        if depth != 0 && !agent.searches { throw UsageError("--depth applies to the \(searchers) players, not \(agent.rawValue)") }
        nodes = try arguments[Self.nodes]
        if arguments.contains(Self.nodes) && !agent.searches {
            throw UsageError("--nodes applies to the \(searchers) players, not \(agent.rawValue)")
        }
        pruneBelow = try arguments[Self.prune]
        downgradeFlag = try arguments[Self.downgrade]
        for (flag, given) in [("prune", arguments.contains(Self.prune)), ("downgrade", arguments.contains(Self.downgrade))]
        where given && !agent.searches {
            throw UsageError("--\(flag) applies to the \(searchers) players, not \(agent.rawValue)")
        }
        if arguments.contains(Self.downgrade) && !agent.needsNetwork {
            throw UsageError("--downgrade applies to the network's search (--agent ntuple), not \(agent.rawValue)")
        }
        size = try arguments.boardSize(rows: Self.rows, cols: Self.cols)
        let size = size ?? (4, 4)
        do { rules = try Rules(rows: size.rows, cols: size.cols) } catch { throw UsageError(error) }
        (rules, rulesGiven) = try RulesFlags.rules(arguments, base: rules)
        games = try arguments[Self.games]
        seed = try arguments[Self.seed]
        threads = try arguments[Self.threads]
        json = try arguments[Self.json]
        let fixed =
            [("rows", Self.rows), ("cols", Self.cols)].map { ($0, arguments.contains($1)) }
            + [("games", arguments.contains(Self.games)), ("seed", arguments.contains(Self.seed))] + rulesGiven.map { ($0.flag, true) }
        evaluation = try EvalRecording.evaluationProtocol(arguments, game: Game2048Game.declaration, fixed: fixed)
        if let evaluation {
            do { rules = try RulesOption.rules(from: evaluation.values) } catch { throw UsageError(error) }
            (self.size, games, seed) = ((rules.rows, rules.cols), evaluation.games, evaluation.seed)
        }
        recordPath = try arguments[EvalRecording.record]
        force = try arguments[EvalRecording.force]
        if exact && recordPath != nil { throw UsageError("--record writes the games played; --exact plays none") }
    }

    func run() throws -> Int32 {
        var rules = self.rules
        let claim = try EvalRecording.claim(
            recordPath, force: force,
            inputs: (weightsPath.map { [.init(flag: "weights", path: $0)] } ?? []) + (solutionPath.map { [.init(flag: "solution", path: $0)] } ?? []))
        defer { claim.release() }
        let loaded = try weightsPath.map(WeightsFile.load(from:))
        let solution = try solutionPath.map(Solution.load(from:))
        if let solution {
            if let size, size != (solution.rules.rows, solution.rules.cols) {
                throw UsageError("--rows/--cols say \(size.rows)x\(size.cols), but --solution is for \(solution.rules.sizeLabel) boards")
            }
            if !rulesGiven.isEmpty {
                throw UsageError("--solution plays by the rules it was solved under; solve again with other rules flags")
            }
            if let evaluation, solution.rules != rules {
                throw UsageError("--solution was solved under other rules than --protocol \(evaluation.name)'s")
            }
            rules = solution.rules
            Console.error("loaded \(solutionPath!): \(rules.sizeLabel), optimal expected score \(formatFixed(solution.expectedScore, digits: 2))")
        }
        let downgradeLimit = CommandOption<UInt8??>.downgradeLimit(flag: downgradeFlag, recorded: loaded?.metadata.downgradeLimit)
        if let weightsPath, let loaded {
            let (network, metadata) = loaded
            if let size, size != (network.rows, network.cols) {
                throw UsageError("--rows/--cols say \(size.rows)x\(size.cols), but --weights \(weightsPath) is for \(network.rows)x\(network.cols) boards")
            }
            // Under a protocol the network plays by the protocol's rules, whatever it was trained under.
            rules = try EvalCommand.rules(
                trained: metadata.rules(rows: network.rows, cols: network.cols), flags: rules, given: evaluation == nil ? rulesGiven : RulesOption.all)
            let searching = EvalCommand.downgradeDescription(downgradeLimit, fromFile: downgradeFlag == nil && metadata.downgradeLimit != nil)
            Console.error(
                "loaded \(weightsPath): \(network.rows)x\(network.cols), \(network.patterns.count) patterns"
                    + (network.afterstates.map { ", a table of \($0.count) afterstates" } ?? "")
                    + ", trained \(metadata.games) games; \(searching)")
            if let solution {
                guard (network.rows, network.cols) == (solution.rules.rows, solution.rules.cols) else {
                    throw UsageError("--weights \(weightsPath) is for \(network.rows)x\(network.cols) boards, --solution for \(solution.rules.sizeLabel)")
                }
                rules = solution.rules  // the solved game's rules: the exact evaluation is of those
            }
        }
        let seed = self.seed, depth = self.depth, nodes = self.nodes, agent = self.agent, weights = loaded?.network
        let solved = solution
        let prune = pruneBelow
        let logs = recordPath == nil ? [] : (0..<games).map { _ in ActionLog() }
        let makePlayer: @Sendable (Int) -> any Player = { game in
            let player = agent.makePlayer(
                seed: seed &+ UInt64(game), network: weights, solution: solved, depth: depth, nodeBudget: nodes,
                pruneBelow: prune, downgradeLimit: downgradeLimit)
            return logs.isEmpty ? player : RecordingPlayer(player: player, log: logs[game])
        }
        if exact, let solution {
            let player = makePlayer(0)
            // The random and greedy players' draws treat mirrored boards alike: one board of each class suffices.
            let (moves, symmetric): (PolicyMoves, Bool) =
                switch agent {
                case .random: (Solution.randomMoves(rules: rules), true)
                case .greedy: (Solution.greedyMoves(rules: rules), true)
                default: (Solution.moves(threads: threads, rules: rules) { makePlayer(0) }, false)
                }
            // A search player's exact evaluation asks it tens of millions of boards: minutes to hours. The
            // solution's afterstates of the layers passed measure the work done (the middle layers hold most).
            let total = solution.afterstates(beforeLayer: solution.layerSizes.count)
            let progress = LayeredProgress(forward: Progress(total: total, unit: "afterstates of the solution")) {
                (
                    solution.afterstates(beforeLayer: $0.layers),
                    "layer \($0.layers)/\($0.totalLayers), the player's moves on \($0.afterstates) afterstates"
                )
            }
            let evaluation = try solution.evaluate(symmetric: symmetric, threads: threads, moves, progress: progress.update)
            progress.finish()
            Console.output(
                json
                    ? evaluation.json(player: player.name, board: rules.sizeLabel, objective: solution.objective)
                    : EvalCommand.text(evaluation, player: player.name, rules: rules, objective: solution.objective))
            return ExitCode.success
        }
        let progress = Progress(total: games, unit: "games")
        // Moves are counted one by one only where a move is slow enough for it to cost nothing.
        let slowMoves = agent == .montecarlo || depth > 0
        let report = try Evaluation.run(
            rules: rules, games: games, seed: seed, threads: threads, makePlayer: makePlayer,
            progressEveryMove: slowMoves
        ) { done in
            progress.update(done.games, detail: "\(done.moves) moves")
        }
        progress.finish()
        if let recordPath {
            try EvalRecording.write(
                recordPath, game: Game2048Game.declaration, values: Dictionary(uniqueKeysWithValues: RulesOption.members(of: rules)),
                protocol: evaluation, player: report.player, seeds: VectorEnvironment.seeds(from: seed, count: games), actions: logs.map(\.actions))
        }
        Console.output(json ? report.json(board: rules.sizeLabel) : EvalCommand.text(report, rules: rules))
        return ExitCode.success
    }

    /// The rules a network plays by: those it was trained under, with the rules flags given; a difference is said
    /// on stderr (a note, not an error: evaluating a player under other rules is a fair question to ask).
    static func rules(trained: Rules, flags: Rules, given: [RulesOption]) throws(UsageError) -> Rules {
        var settings = RulesSettings(trained)
        let asked = RulesSettings(flags)
        for option in given { option.assign(option.value(in: asked), to: &settings, checkingRange: false) }
        let rules: Rules
        do { rules = try settings.rules() } catch { throw RulesFlags.usageError(error) }
        let changed = RulesOption.all.filter { $0.value(in: RulesSettings(rules)) != $0.value(in: RulesSettings(trained)) }
        if !changed.isEmpty {
            let differences = changed.map { option in
                "\(option.name) \(option.value(in: RulesSettings(rules)).flagText) "
                    + "(trained with \(option.value(in: RulesSettings(trained)).flagText))"
            }
            Console.error("note: the network plays under other rules than it was trained under: \(differences.joined(separator: ", "))")
        }
        return rules
    }

    /// "downgrading from 8192 (the weights file's)", "downgrading off", …: how the network's search values
    /// boards past its training, for the line that reports the loaded weights.
    static func downgradeDescription(_ limit: UInt8?, fromFile: Bool) -> String {
        guard let limit else { return "downgrading off" }
        return "downgrading from \(Board.value(ofExponent: limit))" + (fromFile ? " (the weights file's)" : "")
    }

    static func text(_ report: EvaluationReport, rules: Rules) -> String {
        var lines = [
            "player        \(report.player)",
            "board         \(rules.sizeLabel)",
            "games         \(report.games.count)",
            "mean score    \(formatFixed(report.meanScore, digits: 1)) ± \(formatFixed(report.standardError, digits: 1)) (standard error)",
            "median score  \(formatFixed(report.medianScore, digits: 1))",
            "max score     \(report.maxScore)",
        ]
        for tile in report.milestones {
            lines.append("reached \(String(tile).padding(6))\(formatFixed(100 * report.reachRate(tile), digits: 1)) %")
        }
        lines.append("moves/s       \(formatFixed(report.movesPerSecond, digits: 0)) (\(formatFixed(report.seconds, digits: 1)) s)")
        return lines.joined(separator: "\n")
    }

    static func text(_ evaluation: PolicyEvaluation, player: String, rules: Rules, objective: OptimalSolver.Objective) -> String {
        let worth = objective == .score ? "score" : "win rate"
        func label(_ text: String) -> String { text.padding(max(16, text.count + 1)) }
        return [
            "player          \(player)",
            "board           \(rules.sizeLabel) (solved for \(objective.summary))",
            label("expected \(worth)") + "\(formatFixed(evaluation.expectedScore, digits: objective == .score ? 2 : 6)) (exact)",
            label("optimal \(worth)") + "\(formatFixed(evaluation.optimalScore, digits: objective == .score ? 2 : 6))",
            "of optimal      \(formatFixed(100 * evaluation.fractionOfOptimal, digits: 2)) %",
            "moves           \(formatFixed(evaluation.expectedMoves, digits: 1)) a game, \(formatFixed(100 * evaluation.suboptimalShare, digits: 2)) % of them not optimal",
            "states          \(evaluation.reachableStates) reached, \(formatFixed(100 * evaluation.suboptimalStateShare, digits: 2)) % of them with a move not optimal",
        ].joined(separator: "\n")
    }
}
