import GymCore
import GymJSON

extension DeclaredSession {
    /// The methods every declared game answers, through the same table type as 2048's (`make` is the
    /// session's: it may change the game); `record_members` is theirs alone, as their record lines are.
    static let methods: [ProtocolMethod<DeclaredSession>] = [
        ProtocolMethod(name: "spec", parameters: []) { session, _ throws(RPCError) in session.spec },
        ProtocolMethod(name: "reset", parameters: ["seed", "seeds"]) { session, members throws(RPCError) in
            try session.resetEnvironments(members)
            return session.result(stepped: false)
        },
        ProtocolMethod(name: "step", parameters: nil) { session, members throws(RPCError) in
            try session.step(try session.parseActions(members))
            return session.result(stepped: true)
        },
        ProtocolMethod(name: "render", parameters: ["ansi"]) { session, members throws(RPCError) in
            _ = try GameSession.ansi(members)  // read as 2048's is; a declared game's text has no colours
            guard session.isReset else { throw DeclaredSession.notReset }
            return .object([("text", .string((0..<session.numEnvs).map(session.instance.text(at:)).joined(separator: "\n\n")))])
        },
        ProtocolMethod(name: "record_members", parameters: ["action"]) { session, members throws(RPCError) in
            try session.recordMembers(members)
        },
        .gamesRecord { session in (session.game, session.values) },
        ProtocolMethod(name: "close", parameters: []) { _, _ throws(RPCError) in .object([("closed", true)]) },
    ]

    /// Runs `method`; a method another game has is refused with the ones this game answers.
    mutating func call(_ method: String, _ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        guard let entry = Self.methods.first(where: { $0.name == method }) else {
            guard Methods.names.contains(method) else { throw .methodNotFound(method) }
            // In the order the protocol documents them.
            let answered = Methods.names.filter { name in name == "make" || Self.methods.contains { $0.name == name } }
            throw .invalidParams("\(method) is not a method of \(game.name); a \(game.name) session answers \(answered.listedWithAnd)")
        }
        try entry.check(members)
        return try entry.run(&self, members)
    }

    /// Resets every environment with a `reset`'s `seed` or `seeds`, read as 2048's are, with its messages.
    mutating func resetEnvironments(_ members: [(String, JSONValue)]) throws(RPCError) {
        var seed: UInt64? = nil
        var seeds: [UInt64?]? = nil
        for (name, value) in members where value != .null {
            if name == "seed" { seed = try Params.seed(value) }
            if name == "seeds" { seeds = try GameSession.parseSeeds(value, count: numEnvs) }
        }
        try GameSession.checkSeeding(seed: seed, seeds: seeds)
        // One environment takes the seed itself; a vector's environments take the seeds it stands for.
        let derived: [UInt64?] =
            numEnvs == 1 ? [seed] : seed.map { SplitMix64.seeds(from: $0, count: numEnvs) } ?? Array(repeating: nil, count: numEnvs)
        instance.reset(seeds: seeds ?? derived)
        isReset = true
    }

    /// A `step` request's actions: one integer action, or a list of one per environment, each within the
    /// game's actions. Checked before the state, so a malformed request is refused alike before `reset`.
    func parseActions(_ members: [(String, JSONValue)]) throws(RPCError) -> [Int64] {
        let actionCount = instance.space.actionCount
        let name = numEnvs == 1 ? "action" : "actions"
        try GameSession.allowOnly(members, [name], "step")
        guard let value = members.first?.1 else {
            throw .invalidParams(
                numEnvs == 1
                    ? "action is required: an action from 0 to \(actionCount - 1)"
                    : "actions is required in vector mode: a list of \(numEnvs) actions from 0 to \(actionCount - 1)")
        }
        guard numEnvs > 1 else { return [try action(value, name: name)] }
        guard let list = value.array, list.count == numEnvs else {
            throw .invalidParams("actions must be a list of \(numEnvs) actions from 0 to \(actionCount - 1), got \(value.brief)")
        }
        var actions: [Int64] = []
        actions.reserveCapacity(numEnvs)
        for (index, item) in list.enumerated() { actions.append(try action(item, name: "actions[\(index)]")) }
        return actions
    }

    /// One action: an integer exactly, within the game's actions.
    func action(_ value: JSONValue, name: String) throws(RPCError) -> Int64 {
        let last = instance.space.actionCount - 1
        do {
            return Int64(try JSONReader(value, path: name).integer(in: 0...Int128(last)))
        } catch {
            throw .invalidParams("\(name) must be an action from 0 to \(last), got \(value.brief)")
        }
    }

    /// Steps every environment; nothing changes when it throws.
    ///
    /// - Throws: ``RPCError`` before the first reset, after a single game's end (or a vector's under
    ///   `disabled`), or for an action the game refuses.
    mutating func step(_ actions: [Int64]) throws(RPCError) {
        try actions.withUnsafeBufferPointer { buffer throws(RPCError) in try step(actions: buffer) }
    }
}

extension Array where Element == String {
    /// The names as a sentence lists them: "spec, reset and step".
    var listedWithAnd: String { count < 2 ? joined() : dropLast().joined(separator: ", ") + " and " + last! }
}
