import Game2048
import GymPlay
import GymSystem

/// `g2048 demo`: what the tool is for, in one command on embedded defaults: a player trained for a minute, its
/// evaluation, and one of its games played out, with the files it leaves named. It runs `train`, `eval` and
/// `play` as they would run from their own command lines, so what it shows is what they do.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Train a player for a minute, evaluate it, and watch one of its games.",
        discussion: """
            Three steps, each a command of its own: 'g2048 train' learns an n-tuple network on the classic 4x4
            game for --seconds (its learning curve as SVG and CSV), 'g2048 eval' plays --games greedy games with
            it, and 'g2048 play --agent ntuple' plays one game, shown move by move in a terminal (its last position
            otherwise) and recorded.
            Everything goes to --dir: weights.bin (256 MiB, the 4x6 network), curve.svg, curve.csv and game.jsonl
            (watch it again with 'g2048 replay'). After a minute on a 2-core machine the player scored 35 000 on
            average and reached 2048 in three games of four; longer training goes much further (docs/LEARNER.md).
            An existing file is kept unless --force.
            """,
        options: [Self.seconds.spec, Self.games.spec, Self.rows.spec, Self.cols.spec, Self.directory.spec, Self.seed.spec, Self.force.spec])

    static let seconds = CommandOption.integer("seconds", help: "Seconds of training.", in: 1...86_400).defaulting(to: 60)
    static let games = CommandOption.integer("games", help: "Games of the evaluation.", in: 1...1_000_000).defaulting(to: 1_000)
    static let rows = CommandOption.boardSize(RulesOption.rows).shown("4")
    static let cols = CommandOption.boardSize(RulesOption.cols).shown("--rows")
    static let directory = CommandOption.text("dir", "folder", help: "Where the files go.").defaulting(to: "g2048-demo")
    static let seed = CommandOption.seed(help: "Seed of the training, the evaluation and the game.").defaulting(to: 1)
    static let force = CommandOption.flag("force", help: "Replace the files of an earlier demo in --dir.")

    var seconds: Int
    var games: Int
    var size: (rows: Int, cols: Int)?
    var directory: String
    var seed: UInt64
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        seconds = try arguments[Self.seconds]
        games = try arguments[Self.games]
        size = try arguments.boardSize(rows: Self.rows, cols: Self.cols)
        directory = try arguments[Self.directory]
        seed = try arguments[Self.seed]
        force = try arguments[Self.force]
    }

    /// The file `name` in the demo's folder.
    func file(_ name: String) -> String { directory + "/" + name }

    /// The three commands, in order, as their own command lines would give them.
    var steps: [(title: String, command: any Command.Type, arguments: [String])] {
        let force = self.force ? ["--force"] : []
        let watching = Terminal.isTerminal(SystemIO.standardOutput)
        let board = size.map { ["--rows", "\($0.rows)", "--cols", "\($0.cols)"] } ?? []
        return [
            (
                "training a player for \(seconds) s", TrainCommand.self,
                [
                    "--seconds", "\(seconds)", "--seed", "\(seed)", "--out", file("weights.bin"), "--metrics", file("curve.csv"),
                    "--plot", file("curve.svg"),
                ] + board + force
            ),
            ("evaluating it over \(games) games", EvalCommand.self, ["--weights", file("weights.bin"), "--games", "\(games)", "--seed", "\(seed)"]),
            (
                "one of its games", PlayCommand.self,
                [
                    "--agent", "ntuple", "--weights", file("weights.bin"), "--seed", "\(seed)", "--delay", watching ? "8" : "0", "--record",
                    file("game.jsonl"),
                ] + force
            ),
        ]
    }

    func run() throws -> Int32 {
        do { try SystemIO.makeDirectories(directory) } catch { throw CommandFailure(message: "--dir: \(error)") }
        for (number, step) in steps.enumerated() {
            Console.error(
                "g2048 demo, \(number + 1) of \(steps.count): \(step.title) (g2048 \(step.command.spec.name) \(step.arguments.joined(separator: " ")))")
            let code = G2048.run(spec: step.command.spec, resultsAreFiles: false, step.arguments) { arguments throws(UsageError) in
                var command = try step.command.init(arguments)
                // Without a terminal to watch it in, the game's moves are in its record: its last position is shown.
                if var play = command as? PlayCommand {
                    play.everyPlainFrame = false
                    command = play
                }
                return command.run
            }
            guard code == ExitCode.success else { return code }
        }
        Console.output(
            """

            Files in \(directory): weights.bin (the network), curve.svg and curve.csv (its learning curve), game.jsonl (the game).
            Next: 'g2048 replay --file \(file("game.jsonl"))' shows the game again, 'g2048 play --hint --weights \(file("weights.bin"))'
            plays with its advice, 'g2048 train --resume \(file("weights.bin")) --seconds 600' learns on.
            """)
        return ExitCode.success
    }
}
