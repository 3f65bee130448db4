import GymJSON
import GymSystem
import GymCore
import GymGames
import Memorize

/// `g2048 eval --game memorize`: a built-in Memorize player over many seeded games, against the exact
/// expectations of perfect-memory and optimal play.
struct MemorizeEvalCommand: Command {
    static let spec = CommandSpec(
        name: "eval",
        abstract: "Play seeded games of Memorize with a built-in player and report the moves to finish.",
        discussion: """
            A move turns two cards; a game ends when every pair is matched (or at --max-steps cards turned).
            The report gives the mean number of moves and the mean reward, with their standard errors, and
            beside them the exact expectations with perfect memory: the perfect-memory rule's and optimal
            play's (computed by dynamic programming over the cards unseen and the cards known), and
            Velleman & Warrington's asymptotic formula (3 - 2 ln 2)n + 7/8 - 2 ln 2 for n pairs.

            Game i is dealt from the i-th seed derived from --seed, and the players' own random picks come from
            a generator seeded from --seed + 1: a seed gives the same report on every machine.

            Players (--agent): random (a random face-down card), perfect (remembers every card seen; completes
            a known pair at once, else turns an unseen card, completes it if its partner is known, else turns
            another unseen card: optimal play, the exact computation shows), forgetful (perfect, remembering
            only the last --memory cards turned).
            """,
        options: [GameFlag.option.spec, Self.agent.spec, Self.memory.spec] + MemorizeFlags.flags.map(\.spec) + [
            Self.games.spec, Self.seed.spec, Self.json.spec,
        ])

    static let agent = MemorizeFlags.agent(help: "random, perfect or forgetful.").defaulting(to: .perfectMemory, shown: "perfect")
    static let memory = MemorizeFlags.memory
    static let games = CommandOption.integer("games", help: "Games to play.", in: 1...10_000_000).defaulting(to: 10_000)
    static let seed = CommandOption.seed(help: "Seed of the games.").defaulting(to: 1)
    static let json = CommandOption.flag("json", help: "Print the report as one JSON object.")

    var agent: MemorizeAgent
    var rules: MemorizeRules
    var games: Int
    var seed: UInt64
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        agent = try MemorizeFlags.agent(arguments[Self.agent], memory: arguments) ?? .perfectMemory
        rules = try MemorizeFlags.rules(arguments)
        games = try arguments[Self.games]
        seed = try arguments[Self.seed]
        json = try arguments[Self.json]
    }

    func run() throws -> Int32 {
        let optimum = MemorizeOptimum(maxPairs: rules.pairCount)
        let report = MemorizeEvaluation(rules: rules, agent: agent, games: games, seed: seed)
        let pairs = rules.pairCount
        // The expectations hold for a game played to its end: with a step limit they are not what is measured.
        let exact = rules.maxSteps == nil ? Self.expectedMoves(of: agent, pairs: pairs, optimum: optimum) : nil
        let optimal = optimum.optimalMoves(pairs: pairs), formula = MemorizeOptimum.asymptoticMoves(pairs: pairs)
        if json {
            var members: [(String, JSONValue)] = [
                ("game", .string(Game.memorize.rawValue)), ("player", .string(playerName)), ("rows", .integer(Int128(rules.rows))),
                ("cols", .integer(Int128(rules.cols))), ("pairs", .integer(Int128(pairs))), ("games", .integer(Int128(games))),
                ("mean_moves", .double(report.meanMoves)), ("moves_standard_error", .double(report.movesStandardError)),
                ("mean_reward", .double(report.meanReward)), ("reward_standard_error", .double(report.rewardStandardError)),
                ("finished", .integer(Int128(report.finished))),
            ]
            members.append(("exact_moves", exact.map { .double($0) } ?? .null))
            members += [("optimal_moves", .double(optimal)), ("asymptotic_moves", .double(formula))]
            Console.output(JSONValue.object(members).serialized)
        } else {
            var lines = [
                "player          \(playerName)",
                "cards           \(rules.rows)x\(rules.cols), \(pairs) pairs",
                "games           \(games)\(report.finished < games ? ", \(report.finished) finished (the others cut by --max-steps)" : "")",
                "moves           \(formatFixed(report.meanMoves, digits: 3)) ± \(formatFixed(report.movesStandardError, digits: 3)) a game (standard error)",
                "reward          \(formatFixed(report.meanReward, digits: 3)) ± \(formatFixed(report.rewardStandardError, digits: 3)) a game",
            ]
            if let exact { lines.append("expected moves  \(formatFixed(exact, digits: 3)) (exact, this player's rule)") }
            lines.append("optimal moves   \(formatFixed(optimal, digits: 3)) (exact, perfect memory)")
            lines.append("formula         \(formatFixed(formula, digits: 3)) ((3 - 2 ln 2)n + 7/8 - 2 ln 2)")
            Console.output(lines.joined(separator: "\n"))
        }
        return ExitCode.success
    }

    /// The exact expectation of `agent`'s moves, for the players that have one.
    static func expectedMoves(of agent: MemorizeAgent, pairs: Int, optimum: MemorizeOptimum) -> Double? {
        switch agent {
        case .perfectMemory: optimum.perfectMemoryMoves(pairs: pairs)
        case .random, .forgetful: nil
        }
    }

    /// The player as the report names it: `forgetful(4)` with its memory.
    var playerName: String {
        if case .forgetful(let memory) = agent { return "forgetful(\(memory))" }
        return agent.name
    }
}
