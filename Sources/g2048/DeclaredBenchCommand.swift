import GymCore
import GymGames
import GymJSON
import GymSystem

/// `g2048 bench --game NAME` for every game but 2048: steps per second of a vector of the game's environments
/// under random legal actions, through the same made game (`any GameInstance`) every door drives.
struct DeclaredBenchCommand: GameCommand {
    static let name = "bench"

    static func spec(for game: GameDeclaration, registry: GameRegistry) -> CommandSpec {
        // The game's flags between --game and the measurement's own.
        let flags =
            [GameFlag.spec(registry)] + game.options.map { GameFlags.flag($0).spec }
            + [envs.spec, BenchCommand.seconds.spec, BenchCommand.steps.spec, BenchCommand.seed.spec, json.spec]
        let discussion = """
            Every step of the vector steps each environment (with next_step autoreset) and writes every
            result column, as the protocol and the C ABI do. Build with -c release:
            swift run -c release g2048 bench --game \(game.name)

            --steps N steps until at least N steps (whole steps of every environment), the same work on
            every run, for counting instructions at two step counts. The JSON record carries the CPU model
            and cache sizes beside the figures.
            """
        return CommandSpec(
            name: name, abstract: "Measure \(game.name)'s environment steps per second with a random legal-action agent.",
            discussion: discussion, options: flags)
    }

    static let envs = CommandOption.integer("envs", help: "Environments in the vector.", in: 1...1_000_000).defaulting(to: 64)
    static let json = CommandOption.flag("json", help: "Print one JSON object instead of a line.")

    let game: GameDeclaration
    let instance: any GameInstance
    let envs: Int
    let budget: BenchBudget
    let seed: UInt64
    let json: Bool

    init(_ arguments: ParsedArguments, game: GameDeclaration) throws(UsageError) {
        self.game = game
        envs = try arguments[Self.envs]
        instance = try GameFlags.make(game, try GameFlags.values(of: game.options, in: arguments), count: envs, autoresetMode: .nextStep)
        budget = try BenchBudget(arguments)
        seed = try arguments[BenchCommand.seed]
        json = try arguments[Self.json]
    }

    func run() throws -> Int32 {
        var game = instance
        var results = GameResults(space: game.space, count: envs)
        var player = RandomLegalPlayer()
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        game.reset(seeds: SplitMix64.seeds(from: seed, count: envs))
        results.read(game)
        var actions = [Int64](repeating: 0, count: envs)
        var steps = 0
        let clock = Stopwatch()
        repeat {
            for index in 0..<envs { actions[index] = Int64(player.choose(results, index: index, using: &choices)) }
            try actions.withUnsafeBufferPointer { actions throws(GameRefusal) in try game.step(actions: actions) }
            results.read(game)
            steps += envs
        } while budget.continues(steps: steps, clock: clock)
        let (elapsed, cpu) = (clock.wall, clock.cpu)
        let (rate, cpuRate) = (Double(steps) / elapsed, Double(steps) / max(cpu, 1e-9))
        if json {
            Console.output(
                JSONValue.object([
                    ("game", .string(self.game.name)), ("envs", .integer(Int128(envs))), ("seconds", .double(elapsed)),
                    ("cpu_seconds", .double(cpu)), ("steps", .integer(Int128(steps))), ("steps_per_second", .double(rate)),
                    ("steps_per_cpu_second", .double(cpuRate)), ("machine", .object(BenchRecord.machine)),
                ]).serialized)
        } else {
            let vector = "\(envs) environment\(envs == 1 ? "" : "s")"
            Console.output(
                "\(self.game.name), \(vector): \(formatFixed(rate, digits: 0)) steps/s, \(formatFixed(cpuRate, digits: 0)) per CPU second "
                    + "(\(steps) steps in \(formatFixed(elapsed, digits: 2)) s)")
        }
        return ExitCode.success
    }
}
