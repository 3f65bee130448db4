import Game2048
import GymJSON
import Game2048Network
import Game2048Solver
import GymPlay
import GymSystem

/// `g2048 play`: play in the terminal, get hints, watch an agent, record the game.
///
/// The work is done by `TerminalGame` in GymPlay; this command validates
/// the flags, loads the weights and the best scores, and maps the outcome to an exit code.
struct PlayCommand: Command {
    static let spec = CommandSpec(
        name: "play",
        abstract: "Play 2048 in the terminal, with hints, or watch an agent play.",
        discussion: """
            Keys: arrows, WASD or hjkl move, r restarts, q quits. Without --rows/--cols a start screen
            picks the size (2x2 to 6x6) when stdin is a terminal; otherwise the board is 4x4. From a
            pipe, each input line is one key or action name (up, down, left, right, w, a, s, d, h, j,
            k, l, r, q) and the end of input quits; when stdout is not a terminal every board is printed
            as plain text. Reaching --win-tile shows a message and play goes on. Best scores are kept per
            board size in $XDG_DATA_HOME/gym2048/best-scores.json (else ~/.local/share/gym2048/), a watched
            agent's apart, in agents/<agent>/best-scores.json there, and a script's (keys from a pipe or a file)
            in agents/scripted/best-scores.json; games saving at once are
            merged under a lock, and a corrupted file is kept as best-scores.json.corrupted (then -2, -3, ...).

            The agents' searches look 2 spawn layers ahead with the heuristic, 1 with the network. A game
            recorded with --record is shown again by 'g2048 replay <file>'; an existing record is
            replaced only with --force.

            Agents (--agent): \(Agent.descriptions).
            """,
        options: [
            GameFlag.option.spec,
            Self.rows.spec, Self.cols.spec, Self.seed.spec, Self.winTile.spec, Self.hint.spec,
            Self.agent.spec, Self.weights.spec, Self.solution.spec, Self.downgrade.spec, Self.delay.spec, Self.record.spec, Self.force.spec,
            Self.bestScores.spec,
        ] + Self.rulesFlags.map(\.flag.spec))

    /// The rules flags of `train` and `eval` (`RulesFlags`, from `RulesOption.all`) but --win-tile, which play
    /// has as its message tile.
    static let rulesFlags = zip(RulesFlags.options, RulesFlags.flags).filter { $0.0.name != RulesOption.winTile.name }
        .map { (option: $0.0, flag: $0.1) }

    static let rows = CommandOption.boardSize(RulesOption.rows).shown("4, or chosen on the start screen")
    static let cols = CommandOption.boardSize(RulesOption.cols).shown("--rows")
    static let seed = CommandOption.seed(help: "Seed of the first game; each restart adds 1.").shown("from the clock, shown on screen")
    static let winTile = CommandOption.winTile(help: "Tile that shows the win message, or off.").defaulting(to: 2048 as Int?)
    static let hint = CommandOption.flag("hint", help: "Show the move the expectimax search (the network, with --weights) would play.")
    static let agent = CommandOption.choice("agent", "name", help: "Watch an agent play: \(Agent.names).", of: Agent.self)
    static let weights = CommandOption.text("weights", "file", help: "Weights from 'g2048 train', for --agent ntuple or --hint.")
    static let solution = CommandOption.text("solution", "file", help: "A solution from 'g2048 solve', for --agent optimal.")
    static let downgrade = CommandOption.downgrade(
        help: "Tile-downgrading of the network's search (see 'g2048 eval --help'): on (from 32768), off, or the tile."
    ).shown("the weights file's tile, else 32768")
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between the agent's moves.", in: 0...600_000)
        .shown("150, or 0 when stdout is not a terminal")
    static let record = CommandOption.text("record", "file", help: "Write the episodes to this JSON Lines file.")
    static let force = CommandOption.flag("force", help: "Replace an existing --record file.")
    static let bestScores = CommandOption.flag(
        "best-scores", help: "Keep best scores without a terminal too (a script's apart from a person's).")

    var rows: Int?
    var cols: Int?
    var seed: UInt64
    var winTile: Int?
    var hint: Bool
    var agent: Agent?
    var weightsPath: String?
    var solutionPath: String?
    /// `--downgrade`'s limit (`nil` for off), if given: else the weights file's, else the 32768 tile.
    var downgradeFlag: UInt8??
    var delay: Int?
    var recordPath: String?
    var force: Bool
    /// `--best-scores`: keep them though no terminal is in or out.
    var keepsBestScoresAnyway: Bool
    /// Whether every frame is printed when stdout is no terminal (`demo` shows the last one only).
    var everyPlainFrame = true
    /// The rules options given by flags, over the classic game's (the size is the start screen's or --rows').
    var rules: RulesSettings

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let size = try arguments.boardSize(rows: Self.rows, cols: Self.cols)
        (rows, cols) = (size?.rows, size?.cols)
        seed = try arguments[Self.seed] ?? PlayConfiguration.clockSeed()
        winTile = try arguments[Self.winTile]
        hint = try arguments[Self.hint]
        agent = try arguments[Self.agent]
        weightsPath = try arguments[Self.weights]
        if agent == .ntuple && weightsPath == nil { throw UsageError("--agent ntuple needs --weights <file>") }
        solutionPath = try arguments[Self.solution]
        if agent == .optimal && solutionPath == nil { throw UsageError("--agent optimal needs --solution <file> (written by 'g2048 solve')") }
        if solutionPath != nil && agent != .optimal { throw UsageError("--solution is only used by --agent optimal") }
        if let agent, hint { throw UsageError("--hint is for playing yourself, not with --agent \(agent.rawValue)") }
        if weightsPath != nil && agent != .ntuple && !hint { throw UsageError("--weights is only used by --agent ntuple and --hint") }
        downgradeFlag = try arguments[Self.downgrade]
        if arguments.contains(Self.downgrade) && weightsPath == nil {
            throw UsageError("--downgrade applies to the network's search; give --weights (with --hint or --agent ntuple)")
        }
        delay = try arguments[Self.delay]
        if delay != nil && agent == nil { throw UsageError("--delay sets the pace of --agent; give an agent too") }
        recordPath = try arguments[Self.record]
        force = try arguments[Self.force]
        keepsBestScoresAnyway = try arguments[Self.bestScores]
        rules = RulesSettings(Rules())
        for (option, flag) in Self.rulesFlags {
            if let value = try arguments[flag] { option.assign(value, to: &rules, checkingRange: false) }
        }
        // Every size the game may be played on: the one given, or each the start screen offers.
        if let refused = PlayConfiguration.refusedSize(of: rules, rows: rows, cols: cols) {
            let onScreen = rows == nil ? " (on the start screen's \(refused.rows)x\(refused.cols); give --rows and --cols)" : ""
            throw UsageError(RulesFlags.usageError(refused.error).message + onScreen)
        }
    }

    func run() throws -> Int32 {
        // A game reads its keys on stdin; an agent's game only its restart and quit keys.
        if agent == nil && SystemIO.closedStandardDescriptors.contains(SystemIO.standardInput) {
            Console.error("error: standard input is closed; play reads its keys there (a terminal, a pipe or a file)")
            return ExitCode.failure
        }
        let claim = try OutputFiles.claim(
            recordPath.map { [.init(flag: "record", path: $0)] } ?? [],
            inputs: (weightsPath.map { [.init(flag: "weights", path: $0)] } ?? []) + (solutionPath.map { [.init(flag: "solution", path: $0)] } ?? []),
            force: force, command: "play")
        defer { claim.release() }
        var network: NTupleNetwork? = nil
        var rows = self.rows, cols = self.cols
        var recordedDowngrade: UInt8? = nil
        if let weightsPath {
            let loaded = try WeightsFile.load(from: weightsPath)
            network = loaded.network
            recordedDowngrade = loaded.metadata.downgradeLimit
            let size = "\(network!.rows)x\(network!.cols)"
            if let rows, let cols, rows != network!.rows || cols != network!.cols {
                Console.error(
                    "error: --weights \(weightsPath) is for \(size) boards, not \(rows)x\(cols)\n"
                        + "usage: \(PlayCommand.spec.usage)\nsee 'g2048 play --help'")
                return ExitCode.usage
            }
            (rows, cols) = (network!.rows, network!.cols)
        }
        let solution = try solutionPath.map(Solution.load(from:))
        if let solution, let solutionPath {
            if let rows, let cols, rows != solution.rules.rows || cols != solution.rules.cols {
                Console.error(
                    "error: --solution \(solutionPath) is for \(solution.rules.sizeLabel) boards, not \(rows)x\(cols)\n"
                        + "usage: \(PlayCommand.spec.usage)\nsee 'g2048 play --help'")
                return ExitCode.usage
            }
            (rows, cols) = (solution.rules.rows, solution.rules.cols)
        } else if weightsPath == nil && rows == nil && !Terminal.isTerminal(SystemIO.standardInput) {
            (rows, cols) = (4, 4)
        }

        var bestScores: BestScores? = nil
        // Best scores are a person's record of play: without a terminal in or out (a pipe, a script, a
        // benchmark) none are kept unless asked, so that automation leaves no files in the home folder.
        let keepsBestScores =
            keepsBestScoresAnyway || Terminal.isTerminal(SystemIO.standardInput) || Terminal.isTerminal(SystemIO.standardOutput)
        if !keepsBestScores {
        } else if let data = BestScores.defaultDirectory() {
            // A person's best scores are a person's: an agent's and a script's (keys from a pipe or a file) go apart.
            let scripted = agent == nil && !Terminal.isTerminal(SystemIO.standardInput)
            let loaded = BestScores.load(directory: BestScores.directory(data, agent: agent?.rawValue ?? (scripted ? "scripted" : nil)))
            if let problem = loaded.problem { Console.error("warning: " + problem) }
            bestScores = loaded.scores
            if loaded.isCorrupted {
                do { try bestScores!.save() } catch { Console.error("warning: \(error)") }
            }
        } else {
            Console.error("warning: neither XDG_DATA_HOME nor HOME is an absolute path; best scores will not be saved")
        }

        let configuration = PlayConfiguration(
            rows: rows, cols: cols, targetTile: winTile, seed: seed,
            player: agent?.rawValue ?? "human", rules: rules)
        let downgradeLimit = CommandOption<UInt8??>.downgradeLimit(flag: downgradeFlag, recorded: recordedDowngrade)
        var game = TerminalGame(
            configuration: configuration, bestScores: bestScores,
            agent: agent.map { $0.makePlayer(seed: seed ^ 0xA6E7_5EED, network: network, solution: solution, downgradeLimit: downgradeLimit) },
            hinter: hint ? Agent.hintPlayer(network: network, downgradeLimit: downgradeLimit) : nil,
            delay: PlayOutcome.pace(delay),
            recordPath: recordPath)
        game.everyPlainFrame = everyPlainFrame
        return game.run().exitCode()
    }
}
