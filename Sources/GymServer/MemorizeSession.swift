import Game2048
import GymJSON
import GymCore
import GymGames
import Memorize

/// Memorize as the protocol serves it (`make` with `"game": "memorize"`): `spec`, `make`, `reset`, `step`,
/// `render` and `close`, with results shaped as 2048's are (an observation in the board's shape, a reward, the
/// two flags, an info object; lists of them in vector mode).
///
/// Its options are the game's table (`MemorizeOption.all`) and the door's `num_envs` and `autoreset_mode`,
/// read through their declarations (`EnvironmentOption.numEnvs`, `EnvironmentOption.autoresetMode`).
struct MemorizeSession: Sendable {
    /// The game's rules.
    let rules: MemorizeRules
    /// `num_envs`: 1 serves one environment, more a vector.
    let numEnvs: Int
    /// `autoreset_mode`, in vector mode.
    let autoresetMode: AutoresetMode
    /// The environments.
    var environments: Environments
    /// Whether `reset` has been called since `make`.
    var isReset = false

    /// One environment, or a vector of them.
    enum Environments: Sendable {
        case single(MemorizeEnvironment)
        case vector(MemorizeVectorEnvironment)
    }

    /// The door's options beside the game's, by their 2048 declarations: the same names, ranges and cases.
    static let doorOptions = [EnvironmentOption.numEnvs, EnvironmentOption.autoresetMode]

    /// The most environments one Memorize session holds: 64 cards each, a response stays far below the limit.
    static let numEnvsRange = 1...4_096

    /// A session with these options (JSON by name) as changes to `base` (`nil`: the default game); `game` is not
    /// among them.
    ///
    /// - Throws: ``RPCError`` naming the first unknown or invalid option.
    init(options: [(String, JSONValue)], base: MemorizeSession?) throws(RPCError) {
        var settings = MemorizeSettings(base?.rules ?? MemorizeRules())
        var numEnvs = base?.numEnvs ?? 1, autoresetMode = base?.autoresetMode ?? .nextStep
        for (name, json) in options {
            if let option = MemorizeOption.named(name) {
                option.assign(try option.constraint.read(json, name: name), to: &settings)
            } else if name == EnvironmentOption.numEnvs.name {
                let range = Self.numEnvsRange
                guard case .integer(let count) = try OptionConstraint.integer(range, nullable: false).read(json, name: name) else { continue }
                numEnvs = count
            } else if name == EnvironmentOption.autoresetMode.name,
                case .string(let text) = try EnvironmentOption.autoresetMode.read(json), let mode = AutoresetMode(rawValue: text)
            {
                autoresetMode = mode
            } else {
                throw .invalidParams(
                    "unknown option '\(name)' for memorize; options are "
                        + (MemorizeOption.all.map(\.name) + Self.doorOptions.map(\.name)).joined(separator: ", "))
            }
        }
        do {
            rules = try settings.rules()
        } catch {
            switch error {
            case .outOfRange(let option, let message): throw .invalidOption(option, reason: String(message.dropFirst(option.count + 1)))
            case .cardCount: throw .invalidOption("rows", reason: "and cols: \(error)")
            }
        }
        self.numEnvs = numEnvs
        self.autoresetMode = autoresetMode
        environments =
            numEnvs == 1
            ? .single(MemorizeEnvironment(rules: rules))
            : .vector(MemorizeVectorEnvironment(rules: rules, count: numEnvs, autoresetMode: autoresetMode))
    }

    /// The options and their values, game's first, in declaration order.
    var config: JSONValue {
        let settings = MemorizeSettings(rules)
        return .object(
            [("game", .string(Game.memorize.rawValue))] + MemorizeOption.all.map { ($0.name, JSONValue($0.value(in: settings))) }
                + [
                    (EnvironmentOption.numEnvs.name, .integer(Int128(numEnvs))),
                    (EnvironmentOption.autoresetMode.name, .string(autoresetMode.rawValue)),
                ])
    }

    /// The `spec` result: the game, shapes, bounds, the action count and the configuration.
    var spec: JSONValue {
        .object([
            ("protocol", .string(Methods.protocolVersion)),
            ("game", .string(Game.memorize.rawValue)),
            ("rows", .integer(Int128(rules.rows))), ("cols", .integer(Int128(rules.cols))),
            ("num_envs", .integer(Int128(numEnvs))),
            ("actions", .integer(Int128(rules.cardCount))),
            (
                "observation",
                .object([
                    ("encoding", "codes"), ("shape", .array([.integer(Int128(rules.rows)), .integer(Int128(rules.cols))])),
                    ("dtype", "uint8"), ("low", 0), ("high", .integer(Int128(CardView.maxCode(pairs: rules.pairCount)))),
                ])
            ),
            ("reward_range", .array([.double(0 - rules.mismatchPenalty), .double(1)])),
            ("config", config),
        ])
    }

    /// Before the first reset: what to call, before Memorize's own methods (it has no `set_state`).
    static let notReset = RPCError.notReset("call reset before step or render")

    /// Runs `method`; the methods 2048 alone has are refused by name.
    mutating func call(_ method: String, _ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        switch method {
        case "spec":
            try GameSession.allowOnly(members, [], method)
            return spec
        case "reset": return try reset(members)
        case "step": return try step(members)
        case "render":
            try GameSession.allowOnly(members, ["ansi"], method)
            _ = try GameSession.ansi(members)  // read as 2048's is, though Memorize's text has no colours
            guard isReset else { throw Self.notReset }
            return .string(texts.joined(separator: "\n\n"))
        case "close":
            try GameSession.allowOnly(members, [], method)
            return .object([("closed", true)])
        case "afterstates", "get_state", "set_state":
            throw .invalidParams("\(method) is 2048's; a memorize session answers spec, make, reset, step, render and close")
        default: throw .methodNotFound(method)
        }
    }

    /// The cards of every environment, as a person reads them.
    var texts: [String] {
        switch environments {
        case .single(let env): [env.text]
        case .vector(let vector): vector.environments.map(\.text)
        }
    }

    mutating func reset(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        try resetEnvironments(members)
        switch environments {
        case .single(let env):
            return .object([("observation", observation(env.observation)), ("terminated", false), ("info", info(env.info))])
        case .vector(let vector):
            return .object([
                ("observation", .array(vector.environments.map { observation($0.observation) })),
                ("terminated", .array(Array(repeating: false, count: numEnvs))),
                ("info", .array(vector.infos.map(info))),
            ])
        }
    }

    /// Resets every environment with a `reset`'s `seed` or `seeds`, read as 2048's are, with its messages: what
    /// both the protocol's `reset` and the buffers' do.
    mutating func resetEnvironments(_ members: [(String, JSONValue)]) throws(RPCError) {
        try GameSession.allowOnly(members, ["seed", "seeds"], "reset")
        var seed: UInt64? = nil
        var seeds: [UInt64?]? = nil
        for (name, value) in members where value != .null {
            if name == "seed" { seed = try Params.seed(value) }
            if name == "seeds" { seeds = try GameSession.parseSeeds(value, count: numEnvs) }
        }
        try GameSession.checkSeeding(seed: seed, seeds: seeds)
        isReset = true
        switch environments {
        case .single(var env):
            env.reset(seed: seeds?[0] ?? seed)
            environments = .single(env)
        case .vector(var vector):
            if let seeds {
                for index in 0..<numEnvs { vector.reset(index: index, seed: seeds[index]) }
            } else {
                vector.reset(seed: seed)
            }
            environments = .vector(vector)
        }
    }

    mutating func step(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        let name = numEnvs == 1 ? "action" : "actions"
        try GameSession.allowOnly(members, [name], "step")
        guard let value = members.first?.1 else {
            throw .invalidParams(
                numEnvs == 1 ? "action is required: a card, 0 to \(rules.cardCount - 1)" : "actions is required in vector mode: a list of \(numEnvs) cards")
        }
        let cards: [Int]
        if numEnvs == 1 {
            cards = [try card(value, name: name)]
        } else {
            guard let list = value.array, list.count == numEnvs else {
                throw .invalidParams("actions must be a list of \(numEnvs) cards, got \(value.brief)")
            }
            var parsed: [Int] = []
            for (index, item) in list.enumerated() { parsed.append(try card(item, name: "actions[\(index)]")) }
            cards = parsed
        }
        let single = try stepEnvironments(cards)
        switch environments {
        case .single(let env):
            let step = single!
            return .object([
                ("observation", observation(env.observation)), ("reward", .double(step.reward)), ("terminated", .bool(step.terminated)),
                ("truncated", .bool(step.truncated)), ("info", info(step.info)),
            ])
        case .vector(let vector):
            var result: [(String, JSONValue)] = [
                ("observation", .array(vector.environments.map { observation($0.observation) })),
                ("reward", .array(vector.rewards.map { .double($0) })),
                ("terminated", .array(vector.terminations.map { .bool($0) })),
                ("truncated", .array(vector.truncations.map { .bool($0) })),
                ("info", .array(vector.infos.map(info))),
            ]
            if autoresetMode == .sameStep {
                result.append(("final_observation", .array(vector.finalObservations.map { $0.map(observation) ?? .null })))
            }
            return .object(result)
        }
    }

    /// Turns `cards` (one per environment, checked against the deck), what both the protocol's `step` and the
    /// buffers' do; the single environment's step, whose reward and flags it does not keep.
    ///
    /// - Throws: ``RPCError`` before the first reset, after a single game's end, or for a card that is not face
    ///   down; nothing changes then.
    mutating func stepEnvironments(_ cards: [Int]) throws(RPCError) -> MemorizeStep? {
        guard isReset else { throw Self.notReset }
        switch environments {
        case .single(var env):
            guard !env.isOver else { throw .episodeOver() }
            let step: MemorizeStep
            do { step = try env.step(cards[0]) } catch { throw .illegalAction(error.description) }
            environments = .single(env)
            return step
        case .vector(var vector):
            do { try vector.step(cards) } catch {
                switch error {
                case .illegalCard: throw .illegalAction(error.description)
                case .episodesOver: throw .episodeOver(error.description)
                }
            }
            environments = .vector(vector)
            return nil
        }
    }

    /// A card of a `step`: an integer exactly, within the deck.
    func card(_ value: JSONValue, name: String) throws(RPCError) -> Int {
        do {
            return Int(try JSONReader(value, path: name).integer(in: 0...Int128(rules.cardCount - 1)))
        } catch {
            throw .invalidParams("\(name) must be a card from 0 to \(rules.cardCount - 1), got \(value.brief)")
        }
    }

    /// The codes as nested rows.
    func observation(_ codes: [UInt8]) -> JSONValue {
        .array((0..<rules.rows).map { row in .array(codes[(row * rules.cols)..<((row + 1) * rules.cols)].map { .integer(Int128($0)) }) })
    }

    /// The info object: the legal cards as booleans, then the counters.
    func info(_ info: MemorizeInfo) -> JSONValue {
        .object([
            ("action_mask", .array((0..<rules.cardCount).map { .bool(info.actionMask.contains($0)) })),
            ("pairs_matched", .integer(Int128(info.pairsMatched))), ("mismatches", .integer(Int128(info.mismatches))),
            ("moves", .integer(Int128(info.moves))), ("steps", .integer(Int128(info.steps))),
        ])
    }
}
