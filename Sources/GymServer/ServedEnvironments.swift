import Game2048
import GymJSON

/// The environments a ``GameSession`` serves: one (``SingleSession``) or a batch (``VectorSession``).
///
/// The protocol's methods are written once against this interface; what differs between one
/// environment and a vector (the `step` parameter, seeding, the result layout) lives in the two types.
protocol ServedEnvironments: Sendable {
    /// What one `step` acts with: a direction, or one per environment.
    associatedtype Actions

    /// The environments for `config`, not yet reset.
    init(config: ServerConfig)

    /// The `step` parameter that carries the actions: `action` or `actions`.
    static var actionParameter: String { get }
    /// The message when `step` is called without ``actionParameter``.
    var missingActions: String { get }
    /// The actions that a `step` parameter's value asks for.
    func parseActions(_ value: JSONValue) throws(RPCError) -> Actions

    /// Resets every environment (from `board` when given) and returns the `reset` result.
    ///
    /// - Parameters:
    ///   - seed: one seed for the whole session, or `nil`.
    ///   - seeds: one seed (or `nil`, continue the stream) per environment; not given together with `seed`.
    ///   - board: a board already validated against the rules.
    ///   - encoder: writes the observations in the session's encoding.
    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, encoder: ResultEncoder) -> JSONValue
    /// Steps every environment and returns the `step` result; changes nothing when it throws.
    mutating func step(_ actions: Actions, encoder: ResultEncoder) throws(RPCError) -> JSONValue
    /// The `afterstates` list: one environment's four afterstates, or a list of them per environment.
    func afterstates(encoder: ResultEncoder) -> JSONValue
    /// The `render` text: every board, separated by blank lines.
    func render(encoder: ResultEncoder, colored: Bool) -> JSONValue

    /// What `set_state` takes, for messages: "one state object", "a list of 4 state objects, …".
    var stateShape: String { get }
    /// The `get_state` result's `state`: one environment's state, or a list of them per environment.
    func states(encode: (EnvironmentState) -> JSONValue) -> JSONValue
    /// Restores the states that `value` gives (each read by `parse` at its path) and returns the
    /// report of the restored environments, as `reset` gives it; changes nothing when it throws.
    mutating func restore(
        _ value: JSONValue, parse: (JSONValue, String) throws(RPCError) -> EnvironmentState, encoder: ResultEncoder
    ) throws(RPCError) -> JSONValue

    /// As ``reset(seed:seeds:board:encoder:)``, its results written into caller-owned buffers.
    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, into buffers: VectorStepBuffers)
    /// Steps every environment with its action (each checked to be 0…3), the results written into
    /// caller-owned buffers; changes nothing when it throws.
    mutating func step(_ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers) throws(RPCError)
}

extension ServedEnvironments {
    /// A `step` request's parameters checked and parsed, then the environments stepped: parameters
    /// are checked before the state, so a malformed request is refused the same way before `reset`.
    mutating func step(_ members: [(String, JSONValue)], isReset: Bool, encoder: ResultEncoder) throws(RPCError) -> JSONValue {
        try GameSession.allowOnly(members, [Self.actionParameter], "step")
        guard let value = members.first?.1 else { throw .invalidParams(missingActions) }
        let actions = try parseActions(value)
        guard isReset else { throw .notReset() }
        return try step(actions, encoder: encoder)
    }
}

/// One environment: `num_envs` 1.
struct SingleSession: ServedEnvironments {
    var environment: Environment

    init(config: ServerConfig) { environment = Environment(rules: config.rules) }

    static let actionParameter = "action"
    var missingActions: String { "action is required: 0..3 or up/right/down/left" }

    func parseActions(_ value: JSONValue) throws(RPCError) -> Direction {
        try GameSession.parseAction(value, name: "action")
    }

    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, encoder: ResultEncoder) -> JSONValue {
        let seed = seeds.map { $0[0] } ?? seed
        // The board was validated against the rules, so this cannot throw.
        let start = board.flatMap { try? environment.reset(seed: seed, board: $0) } ?? environment.reset(seed: seed)
        return .object([
            ("observation", encoder.observation(start.observation)),
            ("terminated", .bool(environment.isOver)),
            ("info", encoder.info(start.info, moves: [])),
        ])
    }

    mutating func step(_ action: Direction, encoder: ResultEncoder) throws(RPCError) -> JSONValue {
        guard !environment.isOver else { throw .episodeOver() }
        let moves = encoder.config.info.contains(.moves) ? environment.movements(action) : []
        let step: Step
        do {
            step = try environment.step(action)
        } catch {
            throw .illegalAction(error.description)
        }
        return encoder.step(step, moves: step.info.invalid ? [] : moves)
    }

    func afterstates(encoder: ResultEncoder) -> JSONValue { encoder.afterstates(environment) }

    func render(encoder: ResultEncoder, colored: Bool) -> JSONValue { encoder.render([environment.board], colored: colored) }
}

/// A batch of environments: `num_envs` 2 or more.
struct VectorSession: ServedEnvironments {
    var vector: VectorEnvironment

    init(config: ServerConfig) {
        // Only the info the session reports is recorded: each field costs a write per environment per step.
        vector = VectorEnvironment(
            rules: config.rules, count: config.numEnvs, autoresetMode: config.autoresetMode,
            infoFields: Set(config.info.compactMap(\.field)))
    }

    static let actionParameter = "actions"
    var missingActions: String {
        "actions is required in vector mode: a list of \(vector.count) actions (0..3 or up/right/down/left)"
    }

    func parseActions(_ value: JSONValue) throws(RPCError) -> [Direction] {
        try GameSession.parseActions(value, count: vector.count)
    }

    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, encoder: ResultEncoder) -> JSONValue {
        let perEnvironment = perEnvironment(seed: seed, seeds: seeds)
        if let board {
            // The board was validated against the rules, so this cannot throw.
            try? vector.reset(seeds: perEnvironment, board: board)
        } else {
            vector.reset(seeds: perEnvironment)
        }
        return encoder.vectorResult(vector, stepped: false, moves: nil)
    }

    mutating func step(_ actions: [Direction], encoder: ResultEncoder) throws(RPCError) -> JSONValue {
        let moves: [[TileMovement]]? =
            encoder.config.info.contains(.moves)
            ? (0..<vector.count).map { index in
                let environment = vector.environment(at: index)
                // An environment about to be autoreset ignores its action.
                return environment.currentPhase == .running ? environment.movements(actions[index]) : []
            } : nil
        // Stepped in place (this is the only reference to its buffers); a failed step changes nothing.
        do {
            try vector.step(actions)
        } catch {
            throw Self.rpcError(error)
        }
        return encoder.vectorResult(vector, stepped: true, moves: moves)
    }

    /// The per-environment seeds of a reset: one seed for the batch becomes the seeds it stands for.
    func perEnvironment(seed: UInt64?, seeds: [UInt64?]?) -> [UInt64?] {
        seeds ?? seed.map { VectorEnvironment.seeds(from: $0, count: vector.count) } ?? Array(repeating: nil, count: vector.count)
    }

    /// The protocol's error for a step the vector refused.
    static func rpcError(_ error: VectorStepError) -> RPCError {
        switch error {
        case .illegalAction: .illegalAction(error.description)
        case .episodesOver: .episodeOver(error.description)
        }
    }

    func afterstates(encoder: ResultEncoder) -> JSONValue {
        .array((0..<vector.count).map { encoder.afterstates(vector.environment(at: $0)) })
    }

    func render(encoder: ResultEncoder, colored: Bool) -> JSONValue {
        encoder.render((0..<vector.count).lazy.map { vector.observation(at: $0) }, colored: colored)
    }
}
