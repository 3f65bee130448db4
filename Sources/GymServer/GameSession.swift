import Game2048
import GymJSON
import GymGames

/// The server's state: the configuration and the environments, behind the protocol's methods.
///
///     var session = GameSession(config: ServerConfig())
///     let result = try session.call("reset", params: .object([("seed", 42)]))
///
/// Every method validates all of its parameters before it changes anything, so a
/// failed request leaves the session exactly as it was.
public struct GameSession: Sendable {
    /// The current configuration.
    public private(set) var config: ServerConfig
    /// One environment or a vector of them, per `num_envs`.
    var environments: any ServedEnvironments
    /// Whether `reset` has been called since the last `make`.
    public internal(set) var isReset = false
    /// The games `make` may name.
    public let registry: GameRegistry
    /// The session of another registered game, when `make` named one (`"game": "memorize"`); `config` then
    /// waits, unused, for a `make` back to 2048.
    var declared: DeclaredSession?

    /// The name of the game served.
    public var gameName: String { declared?.game.name ?? Game2048Game.declaration.name }

    /// Creates a session with `config`; call `reset` before stepping. `registry` lists the games `make` may name.
    public init(config: ServerConfig, registry: GameRegistry = .standard) {
        self.config = config
        self.registry = registry
        environments = config.numEnvs > 1 ? VectorSession(config: config) : SingleSession(config: config)
    }

    /// Runs one method.
    ///
    /// - Parameters:
    ///   - method: one of ``Methods/names`` (`close` is the dispatcher's, and answers here like `spec`'s sibling).
    ///   - params: the request's `params`, an object or absent.
    /// - Returns: the `result` member of the response.
    /// - Throws: ``RPCError``; the session is unchanged when it throws.
    public mutating func call(_ method: String, params: JSONValue?) throws(RPCError) -> JSONValue {
        let members = try Self.members(of: params)
        if method == "make", let game = try game(in: members) {
            return try make(game, members.filter { $0.0 != "game" })
        }
        // Taken out and put back, not copied: a copy would make the step copy every environment (copy on write).
        if var declared = declared.take() {
            defer { self.declared = declared }
            if method == "make" {
                declared = try DeclaredSession(game: declared.game, options: members, base: declared)
                return declared.spec
            }
            return try declared.call(method, members)
        }
        guard let entry = Self.methods.first(where: { $0.name == method }) else { throw .methodNotFound(method) }
        try entry.check(members)
        return try entry.run(&self, members)
    }

    /// Every method, in documentation order: the one place a method is declared.
    static let methods: [ProtocolMethod<GameSession>] = [
        ProtocolMethod(name: "spec", parameters: []) { session, _ throws(RPCError) in session.spec },
        ProtocolMethod(name: "make", parameters: nil) { session, members throws(RPCError) in
            try session.make(members)
        },
        ProtocolMethod(name: "reset", parameters: ["seed", "seeds", "options"]) { session, members throws(RPCError) in
            try session.reset(members)
        },
        ProtocolMethod(name: "step", parameters: nil) { session, members throws(RPCError) in try session.step(members) },
        ProtocolMethod(name: "afterstates", parameters: []) { session, _ throws(RPCError) in try session.afterstates() },
        ProtocolMethod(name: "get_state", parameters: []) { session, _ throws(RPCError) in try session.getState() },
        ProtocolMethod(name: "set_state", parameters: ["state"]) { session, members throws(RPCError) in
            try session.setState(members)
        },
        ProtocolMethod(name: "render", parameters: ["ansi"]) { session, members throws(RPCError) in try session.render(members) },
        .gamesRecord { session in (session.registry.defaultGame, Dictionary(uniqueKeysWithValues: RulesOption.members(of: session.config.rules))) },
        ProtocolMethod(name: "close", parameters: []) { _, _ throws(RPCError) in .object([("closed", true)]) },
    ]

    /// Refuses a member of `members` not in `names`, naming it, the method and what is allowed.
    static func allowOnly(_ members: [(String, JSONValue)], _ names: [String], _ method: String) throws(RPCError) {
        for (name, _) in members where !names.contains(name) {
            throw .invalidParams("unknown parameter '\(name)' for \(method); parameters are \(names.joined(separator: ", "))")
        }
    }

    // MARK: spec and make

    /// The `spec` result: shapes, bounds, action names and the whole configuration.
    public var spec: JSONValue {
        if let declared { return declared.spec }
        let rows = config.rules.rows, cols = config.rules.cols
        let high = Int(config.rules.largestExponent)
        let encoding = config.observation
        let penalty: Int64 = if case .terminate(let p) = config.rules.invalidAction { p } else { 0 }
        // Each merge creates at most the largest reachable tile, and a move makes at most cells/2 merges.
        let maxReward = Double(config.rules.cellCount / 2) * Double(Int128(1) << high)
        return .object([
            ("protocol", .string(Methods.protocolVersion)),
            ("game", .string(Game2048Game.declaration.name)),
            ("rules_version", .integer(Int128(Rules.version))),
            ("rows", .integer(Int128(rows))), ("cols", .integer(Int128(cols))),
            ("num_envs", .integer(Int128(config.numEnvs))),
            ("actions", .array(Direction.allCases.map { .string($0.name) })),
            (
                "observation",
                .object([
                    ("encoding", .string(config.encoding.rawValue)),
                    ("shape", .array(encoding.shape(rows: rows, cols: cols).map { .integer(Int128($0)) })),
                    ("dtype", .string(encoding.dtype.rawValue)), ("low", 0),
                    ("high", .integer(Int128(encoding.high(largestExponent: config.rules.largestExponent)))),
                ])
            ),
            ("reward_range", .array([.integer(Int128(-penalty)), .double(maxReward)])),
            ("config", config.json),
        ])
    }

    /// The game a `make` names, if it names one.
    func game(in members: [(String, JSONValue)]) throws(RPCError) -> GameDeclaration? {
        guard let value = members.first(where: { $0.0 == "game" })?.1 else { return nil }
        guard let name = value.string, let game = registry.named(name) else {
            throw .invalidOption(
                "game", reason: "must be one of \(registry.games.map { "\"\($0.name)\"" }.joined(separator: ", ")), got \(value.brief)")
        }
        return game
    }

    /// A `make` that names its game: 2048 with `changes` to the configuration it had, or another game from its
    /// defaults with `changes`.
    mutating func make(_ game: GameDeclaration, _ changes: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        guard game.name == Game2048Game.declaration.name else {
            let next = try DeclaredSession(game: game, options: changes, base: nil)
            self = GameSession(config: config, registry: registry)
            declared = next
            return next.spec
        }
        let next = try config.applying(changes)
        self = GameSession(config: next, registry: registry)
        return spec
    }

    mutating func make(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        let next = try config.applying(members)
        self = GameSession(config: next, registry: registry)
        return spec
    }

    // MARK: reset

    mutating func reset(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        let request = try parseReset(members)
        isReset = true
        return environments.reset(seed: request.seed, seeds: request.seeds, board: request.board, encoder: ResultEncoder(config: config))
    }

    /// What a `reset` asks for, its parameters checked: one seed, or one per environment, and a starting board.
    struct ResetRequest {
        var seed: UInt64?
        var seeds: [UInt64?]?
        var board: Board?
    }

    /// A `reset` request's parameters (`seed`, `seeds`, `options`), checked; nothing changes.
    func parseReset(_ members: [(String, JSONValue)]) throws(RPCError) -> ResetRequest {
        var request = ResetRequest()
        for (name, value) in members {
            switch name {
            case "seed": request.seed = value == .null ? nil : try Params.seed(value)
            case "seeds": request.seeds = value == .null ? nil : try Self.parseSeeds(value, count: config.numEnvs)
            default:
                if value == .null { continue }
                let options = try Params.reading { () throws(JSONReadError) in try JSONReader(value, path: "options").members() }
                try Self.allowOnly(options, ["board"], "reset options")
                if let boardValue = options.first(where: { $0.0 == "board" })?.1, boardValue != .null {
                    request.board = try parseBoard(boardValue)
                }
            }
        }
        try Self.checkSeeding(seed: request.seed, seeds: request.seeds)
        return request
    }

    /// Refuses `seed` and `seeds` given together, for every game's `reset`.
    static func checkSeeding(seed: UInt64?, seeds: [UInt64?]?) throws(RPCError) {
        if seed != nil && seeds != nil {
            throw .invalidParams(
                "seed and seeds cannot be given together: seed seeds every environment from one number, "
                    + "seeds gives one seed per environment")
        }
    }

    /// `count` seeds (one per environment), each an unsigned 64-bit integer or null (that environment continues
    /// its stream), for every game's `reset`.
    static func parseSeeds(_ value: JSONValue, count: Int) throws(RPCError) -> [UInt64?] {
        guard let list = value.array else {
            throw .invalidParams("seeds must be a list of \(count) seeds (unsigned 64-bit integers or null), got \(value.brief)")
        }
        guard list.count == count else {
            throw .invalidParams("seeds must have \(count) \(count == 1 ? "entry" : "entries") (one per environment), got \(list.count)")
        }
        var seeds: [UInt64?] = []
        seeds.reserveCapacity(count)
        for (index, item) in list.enumerated() {
            seeds.append(item == .null ? nil : try Params.seed(item, name: "seeds[\(index)]", orNull: true))
        }
        return seeds
    }

    /// A rows×cols list of tile values (a flat list of rows·cols values is accepted too).
    func parseBoard(_ value: JSONValue) throws(RPCError) -> Board {
        do { return try Board(json: value, rules: config.rules) } catch { throw .invalidParams(error.description) }
    }

    // MARK: step

    mutating func step(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        try Self.step(&environments, members, isReset: isReset, encoder: ResultEncoder(config: config))
    }

    /// Steps the environments of either kind, opened as their concrete type so that they step in place.
    static func step(
        _ environments: inout some ServedEnvironments, _ members: [(String, JSONValue)], isReset: Bool,
        encoder: ResultEncoder
    ) throws(RPCError) -> JSONValue {
        try environments.step(members, isReset: isReset, encoder: encoder)
    }

    /// One action: 0…3 or a direction name.
    static func parseAction(_ value: JSONValue, name: String) throws(RPCError) -> Direction {
        switch value {
        case .integer(let i) where i >= 0 && i < 4: return Direction(rawValue: Int(i))!
        case .string(let s): if let d = Direction(name: s) { return d }
        default: break
        }
        throw .invalidParams("\(name) must be 0..3 or up/right/down/left, got \(value.brief)")
    }

    /// `count` actions: a list of 0…3 or names, or a string of `count` digits 0…3 (compact, for throughput).
    static func parseActions(_ value: JSONValue, count: Int) throws(RPCError) -> [Direction] {
        if case .string(let digits) = value {
            let bytes = Array(digits.utf8)
            guard bytes.count == count else {
                throw .invalidParams("actions as a string must have \(count) digits 0..3, got \(bytes.count) characters")
            }
            var actions: [Direction] = []
            actions.reserveCapacity(count)
            for (index, byte) in bytes.enumerated() {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "3") else {
                    throw .invalidParams("actions[\(index)] must be a digit 0..3, got '\(UnicodeScalar(byte))'")
                }
                actions.append(Direction(rawValue: Int(byte - UInt8(ascii: "0")))!)
            }
            return actions
        }
        guard let list = value.array else {
            throw .invalidParams("actions must be a list of \(count) actions or a string of \(count) digits 0..3, got \(value.typeName)")
        }
        guard list.count == count else { throw .invalidParams("actions must have \(count) entries, got \(list.count)") }
        var actions: [Direction] = []
        actions.reserveCapacity(count)
        for (index, item) in list.enumerated() {
            actions.append(try parseAction(item, name: "actions[\(index)]"))
        }
        return actions
    }

    // MARK: afterstates and render

    func afterstates() throws(RPCError) -> JSONValue {
        guard isReset else { throw .notReset() }
        return .object([("afterstates", environments.afterstates(encoder: ResultEncoder(config: config)))])
    }

    func render(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        let ansi = try Self.ansi(members)
        guard isReset else { throw .notReset() }
        return .object([("text", environments.render(encoder: ResultEncoder(config: config), colored: ansi))])
    }

    /// `render`'s `ansi` (false when absent), read alike for every game: true or false, nothing else.
    static func ansi(_ members: [(String, JSONValue)]) throws(RPCError) -> Bool {
        guard let value = members.first(where: { $0.0 == "ansi" })?.1 else { return false }
        return try Params.reading { () throws(JSONReadError) in try JSONReader(value, path: "ansi").bool() }
    }
}
