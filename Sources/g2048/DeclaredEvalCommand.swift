import GymCore
import GymGames
import GymJSON
import GymPlay
import GymSystem

/// `g2048 eval --game NAME` for every game but 2048: one of the game's players over many seeded games, reported
/// as every game is (reward, steps, games finished) and as the game adds (`GameDeclaration.report`).
struct DeclaredEvalCommand: GameCommand {
    static let name = "eval"

    static func spec(for game: GameDeclaration, registry: GameRegistry) -> CommandSpec {
        CommandSpec(
            name: name,
            abstract: "Play seeded games of \(game.name) with a built-in player and report how they went.",
            discussion: """
                \(game.name): \(game.summary). The report gives the mean reward and steps of a game, with their
                standard errors, and the games finished (the others cut by a step limit)\(game.report == nil ? "" : ", and what the game adds").

                Game i starts from the i-th seed derived from --seed, and the player's own random picks come
                from a generator seeded from --seed + 1: a seed gives the same report on every machine.

                \(EvalRecording.discussion)

                Players (--agent): \(GameFlags.descriptions(game)).
                """,
            options: [GameFlag.spec(registry), agent(game).spec] + GameFlags.playerOptions(game).map { GameFlags.flag($0).spec }
                + game.options.map { GameFlags.flag($0).spec } + [games.spec, seed.spec, json.spec] + EvalRecording.specs)
    }

    static func agent(_ game: GameDeclaration) -> CommandOption<PlayerDeclaration?> {
        GameFlags.agent(game, help: "\(game.players.map(\.name).listedWithOr).").shown(game.players[0].name)
    }
    static let games = CommandOption.integer("games", help: "Games to play.", in: 1...10_000_000).defaulting(to: 10_000)
    static let seed = CommandOption.seed(help: "Seed of the games.").defaulting(to: 1)
    static let json = CommandOption.flag("json", help: "Print the report as one JSON object.")

    let game: GameDeclaration
    let player: PlayerDeclaration
    let own: [String: OptionValue]
    let values: [String: OptionValue]
    let instance: any GameInstance
    let games: Int
    let seed: UInt64
    let json: Bool
    let evaluation: EvaluationProtocol?
    let recordPath: String?
    let force: Bool

    init(_ arguments: ParsedArguments, game: GameDeclaration) throws(UsageError) {
        self.game = game
        let chosen = try arguments[Self.agent(game)]
        player = chosen ?? game.players[0]
        own = try GameFlags.playerValues(player, game: game, in: arguments)
        let given = try GameFlags.values(of: game.options, in: arguments)
        let fixed =
            [("games", arguments.contains(Self.games)), ("seed", arguments.contains(Self.seed))]
            + game.options.filter { given[$0.name] != nil }.map { ($0.flag, true) }
        evaluation = try EvalRecording.evaluationProtocol(arguments, game: game, fixed: fixed)
        values = evaluation?.values ?? game.defaults.merging(given) { $1 }
        instance = try GameFlags.make(game, values)
        if let evaluation {
            (games, seed) = (evaluation.games, evaluation.seed)
        } else {
            (games, seed) = (try arguments[Self.games], try arguments[Self.seed])
        }
        json = try arguments[Self.json]
        recordPath = try arguments[EvalRecording.record]
        force = try arguments[EvalRecording.force]
    }

    func run() throws -> Int32 {
        let claim = try EvalRecording.claim(recordPath, force: force, inputs: [])
        defer { claim.release() }
        var actions: [[Int]]? = recordPath == nil ? nil : []
        let tally = try Self.evaluate(player.make(game: values, own: own), in: instance, games: games, seed: seed, actions: &actions)
        let label = player.label(own: player.options.reduce(into: [:]) { $0[$1.name] = own[$1.name] ?? $1.defaultValue })
        if let recordPath, let actions {
            try EvalRecording.write(
                recordPath, game: game, values: values, protocol: evaluation, player: label, seeds: SplitMix64.seeds(from: seed, count: games),
                actions: actions)
        }
        var members: [(String, OptionValue)] = [
            ("game", .string(game.name)), ("player", .string(label)), ("games", .integer(tally.games)),
            ("mean_reward", .number(tally.reward.mean)), ("reward_standard_error", .number(tally.reward.squaredStandardError.squareRoot())),
            ("mean_steps", .number(tally.steps.mean)), ("steps_standard_error", .number(tally.steps.squaredStandardError.squareRoot())),
            ("finished", .integer(tally.finished)),
        ]
        members += game.report?(values, player, tally) ?? []
        if json {
            Console.output(JSONValue.object(members.map { ($0, JSONValue($1)) }).serialized)
        } else {
            Console.output(members.map { key, value in key.padding(24) + Self.text(value) }.joined(separator: "\n"))
        }
        return ExitCode.success
    }

    /// A value as the text report shows it: numbers with three decimals.
    static func text(_ value: OptionValue) -> String {
        switch value {
        case .number(let number): formatFixed(number, digits: 3)
        case .null: "none"
        default: value.flagText
        }
    }

    /// Plays `games` games of `player` in `instance` (one environment): game `g` from the `g`-th seed derived
    /// from `seed`, the player's own draws from a generator seeded from `seed + 1`; each game's actions are
    /// appended to `actions` when it is not `nil`.
    static func evaluate(
        _ player: any GamePlayer, in instance: any GameInstance, games: Int, seed: UInt64, actions: inout [[Int]]?
    ) throws -> EvaluationTally {
        var (player, instance) = (player, instance)
        var results = GameResults(space: instance.space, count: 1)
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        var seeds = SplitMix64(seed: seed)
        let counters = instance.space.info.filter { $0.width == 1 && $0.type == .int64 }.map(\.name)
        var tally = EvaluationTally()
        let recording = actions != nil
        for _ in 0..<games {
            instance.reset(seeds: [seeds.next()])
            results.read(instance)
            player.reset()
            var (total, steps) = (0.0, 0)
            var outcome = StepOutcome(reward: 0, terminated: false, truncated: false)
            var played: [Int] = []
            while !outcome.terminated && !outcome.truncated {
                let action = Int64(player.choose(results, index: 0, using: &choices))
                if recording { played.append(Int(action)) }
                try [action].withUnsafeBufferPointer { actions throws(GameRefusal) in try instance.step(actions: actions) }
                results.read(instance)
                outcome = results.outcome(at: 0)
                total += outcome.reward
                steps += 1
            }
            if recording { actions?.append(played) }
            tally.games += 1
            if outcome.terminated { tally.finished += 1 }
            tally.reward.add(total)
            tally.steps.add(Double(steps))
            for name in counters { tally.finalInfo[name, default: MeanEstimate()].add(Double(results.integer(name, at: 0) ?? 0)) }
        }
        return tally
    }
}
