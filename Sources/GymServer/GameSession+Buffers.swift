import Game2048
import GymJSON

/// The in-process door: `reset` and `step` with their results written into caller-owned buffers instead of a
/// JSON result, for the C ABI and the bindings over it. The parameters are the protocol's, checked by the same
/// code with the same messages, and the session is the same one `call(_:params:)` answers, so both paths can
/// be mixed on one session.
extension GameSession {
    /// `reset` with the protocol's parameters (`seed`, `seeds`, `options`), its results written into `buffers`
    /// (`num_envs` entries each; observations as exponents).
    ///
    /// - Throws: ``RPCError`` as `call("reset", params:)` would; nothing changes then.
    public mutating func reset(params: JSONValue?, into buffers: VectorStepBuffers) throws(RPCError) {
        try requireBuffers()
        let members = try Self.members(of: params)
        try Self.method(named: "reset").check(members)
        let request = try parseReset(members)
        isReset = true
        Self.reset(&environments, request, into: buffers)
    }

    /// `step` with one action per environment given as 64-bit integers (the columns calls'), each refused by the
    /// protocol's words unless 0…3, its results written into `buffers`.
    ///
    /// - Throws: ``RPCError`` as `call("step", params:)` would for the same actions; nothing changes then.
    public mutating func step(_ actions: UnsafeBufferPointer<Int64>, into buffers: VectorStepBuffers) throws(RPCError) {
        // An action beyond a byte is named as given; every other refusal (the game, the count) is the byte step's,
        // in its order, and comes before the clamped values are read.
        if declared == nil, actions.count == config.numEnvs, let index = actions.firstIndex(where: { $0 < 0 || $0 > 3 }) {
            _ = try Self.parseAction(.integer(Int128(actions[index])), name: actions.count == 1 ? "action" : "actions[\(index)]")
        }
        try actions.map { UInt8(clamping: $0) }.withUnsafeBufferPointer { bytes throws(RPCError) in try step(bytes, into: buffers) }
    }

    /// `step` with one action (0…3) per environment, its results written into `buffers`.
    ///
    /// - Throws: ``RPCError`` as `call("step", params:)` would for the same actions; nothing changes then.
    public mutating func step(_ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers) throws(RPCError) {
        try requireBuffers()
        guard actions.count == config.numEnvs else {
            throw .invalidParams("actions must have \(config.numEnvs) entries, got \(actions.count)")
        }
        let name: (Int) -> String = config.numEnvs == 1 ? { _ in "action" } : { "actions[\($0)]" }
        for index in actions.indices where actions[index] > 3 {
            _ = try Self.parseAction(.integer(Int128(actions[index])), name: name(index))
        }
        guard isReset else { throw .notReset() }
        try Self.step(&environments, actions, into: buffers)
    }

    /// Refuses 2048's buffers when the session serves another game, which writes its declared columns.
    public func requireBuffers() throws(RPCError) {
        if let declared {
            throw .invalidParams(
                "a \(declared.game.name) session writes its declared columns (reset(params:into:), step(actions:into:)), not 2048's")
        }
    }

    /// The members of a request's `params` (none when it is absent or null).
    static func members(of params: JSONValue?) throws(RPCError) -> [(String, JSONValue)] {
        guard let params, params != .null else { return [] }
        return try Params.reading { () throws(JSONReadError) in try JSONReader(params, path: "params").members() }
    }

    static func method(named name: String) -> ProtocolMethod<GameSession> { methods.first { $0.name == name }! }

    /// Resets the environments of either kind, opened as their concrete type so that they change in place.
    static func reset(_ environments: inout some ServedEnvironments, _ request: ResetRequest, into buffers: VectorStepBuffers) {
        environments.reset(seed: request.seed, seeds: request.seeds, board: request.board, into: buffers)
    }

    static func step(
        _ environments: inout some ServedEnvironments, _ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers
    ) throws(RPCError) {
        try environments.step(actions, into: buffers)
    }
}

extension SingleSession {
    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, into buffers: VectorStepBuffers) {
        let seed = seeds.map { $0[0] } ?? seed
        // The board was validated against the rules, so this cannot throw.
        let start = board.flatMap { try? environment.reset(seed: seed, board: $0) } ?? environment.reset(seed: seed)
        buffers.clearFinals(count: 1, cells: start.observation.cellCount)
        buffers.write(observation: start.observation, reward: 0, terminated: environment.isOver, truncated: false, info: start.info, at: 0)
    }

    mutating func step(_ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers) throws(RPCError) {
        guard !environment.isOver else { throw .episodeOver() }
        let step: Step
        do {
            step = try environment.step(Direction(rawValue: Int(actions[0]))!)
        } catch {
            throw .illegalAction(error.description)
        }
        buffers.clearFinals(count: 1, cells: step.observation.cellCount)
        buffers.write(
            observation: step.observation, reward: step.reward, terminated: step.terminated, truncated: step.truncated,
            info: step.info, at: 0)
    }
}

extension VectorSession {
    mutating func reset(seed: UInt64?, seeds: [UInt64?]?, board: Board?, into buffers: VectorStepBuffers) {
        // The board was validated against the rules, so this cannot throw.
        try? vector.reset(seeds: perEnvironment(seed: seed, seeds: seeds), board: board, into: buffers)
    }

    mutating func step(_ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers) throws(RPCError) {
        do {
            try vector.step(actions, into: buffers)
        } catch {
            throw Self.rpcError(error)
        }
    }
}
