import Game2048
import Game2048Learning
import Game2048Play
import Game2048System

/// `g2048 play`: play in the terminal, get hints, watch an agent, record the game.
///
/// The work is done by `TerminalGame` in Game2048Play; this command validates
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
            board size in $XDG_DATA_HOME/gym2048/best-scores.json (else ~/.local/share/gym2048/); games
            saving at once are merged under a lock, and a corrupted file is kept as best-scores.json.corrupted (then -2, -3, ...).
            The agents' searches look 2 spawn layers ahead with the heuristic, 1 with the network. A game
            recorded with --record is shown again by 'g2048 replay <file>'; an existing record is
            replaced only with --force.

            Agents (--agent): \(Agent.descriptions).
            """,
        options: [
            .option("rows", "n", "Board rows, 2 to 8.", default: "4, or chosen on the start screen"),
            .option("cols", "n", "Board columns, 2 to 8.", default: "--rows"),
            .option("seed", "seed", "Seed of the first game; each restart adds 1.", default: "from the clock, shown on screen"),
            .option("win-tile", "tile", "Tile that shows the win message, or off.", default: "2048"),
            .flag("hint", "Show the move the expectimax search (the network, with --weights) would play."),
            .option("agent", "name", "Watch an agent play: \(Agent.names)."),
            .option("weights", "file", "Weights from 'g2048 train', for --agent ntuple or --hint."),
            .option(
                "downgrade", "tile",
                "Tile-downgrading of the network's search (see 'g2048 eval --help'): on (from 32768), off, or the tile.",
                default: "the weights file's tile, else 32768"),
            .option("delay", "ms", "Milliseconds between the agent's moves.", default: "150, or 0 when stdout is not a terminal"),
            .option("record", "file", "Write the episodes to this JSON Lines file."),
            .flag("force", "Replace an existing --record file."),
        ])

    var rows: Int?
    var cols: Int?
    var seed: UInt64
    var winTile: Int?
    var hint: Bool
    var agent: Agent?
    var weightsPath: String?
    /// `--downgrade`'s limit (`nil` for off), if given: else the weights file's, else the 32768 tile.
    var downgradeFlag: UInt8??
    var delay: Int?
    var recordPath: String?
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let size = try arguments.boardSize()
        (rows, cols) = (size?.rows, size?.cols)
        seed = try arguments.uint64("seed", default: PlayConfiguration.clockSeed())
        winTile = try arguments.winTile(default: 2048)
        hint = arguments.flag("hint")
        if let name = arguments.string("agent") {
            guard let agent = Agent(name: name) else { throw UsageError("--agent must be one of \(Agent.names), got '\(name)'") }
            self.agent = agent
        }
        weightsPath = arguments.string("weights")
        if agent == .ntuple && weightsPath == nil { throw UsageError("--agent ntuple needs --weights <file>") }
        if let agent, hint { throw UsageError("--hint is for playing yourself, not with --agent \(agent.rawValue)") }
        if weightsPath != nil && agent != .ntuple && !hint { throw UsageError("--weights is only used by --agent ntuple and --hint") }
        downgradeFlag = try arguments.downgradeLimit()
        if arguments.string("downgrade") != nil && weightsPath == nil {
            throw UsageError("--downgrade applies to the network's search; give --weights (with --hint or --agent ntuple)")
        }
        delay = try arguments.optionalInt("delay", in: 0...600_000)
        if delay != nil && agent == nil { throw UsageError("--delay sets the pace of --agent; give an agent too") }
        recordPath = arguments.string("record")
        force = arguments.flag("force")
    }

    func run() throws -> Int32 {
        // A game reads its keys on stdin; an agent's game only its restart and quit keys.
        if agent == nil && SystemIO.closedStandardDescriptors.contains(SystemIO.standardInput) {
            Console.error("error: standard input is closed; play reads its keys there (a terminal, a pipe or a file)")
            return ExitCode.failure
        }
        let claim = try OutputFiles.claim(
            recordPath.map { [.init(flag: "record", path: $0)] } ?? [],
            inputs: weightsPath.map { [.init(flag: "weights", path: $0)] } ?? [],
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
        } else if rows == nil && !Terminal.isTerminal(SystemIO.standardInput) {
            (rows, cols) = (4, 4)
        }

        var bestScores: BestScores? = nil
        if let directory = BestScores.defaultDirectory() {
            let loaded = BestScores.load(directory: directory)
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
            player: agent?.rawValue ?? "human")
        let downgradeLimit = ParsedArguments.downgradeLimit(flag: downgradeFlag, recorded: recordedDowngrade)
        var game = TerminalGame(
            configuration: configuration, bestScores: bestScores,
            agent: agent.map { $0.makePlayer(seed: seed ^ 0xA6E7_5EED, network: network, downgradeLimit: downgradeLimit) },
            hinter: hint ? Agent.hintPlayer(network: network, downgradeLimit: downgradeLimit) : nil,
            delay: PlayOutcome.pace(delay),
            recordPath: recordPath)
        return game.run().exitCode()
    }
}
