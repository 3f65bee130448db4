import GymCore
import GymJSON

/// The in-process door of every declared game: `reset` and `step` with their results written into caller-owned
/// columns (one address per column of ``declaredColumns``, in its order; `nil` is not written), the parameters
/// checked by the protocol's code with its messages.
extension GameSession {
    /// The columns a declared game's `reset` and `step` write, and its number of environments; `nil` for 2048's
    /// session, whose buffers are `VectorStepBuffers`.
    public var declaredColumns: (columns: GameColumns, numEnvs: Int)? { declared.map { ($0.columns, $0.numEnvs) } }

    /// The declared game's space, `nil` for 2048's session.
    public var declaredSpace: GameSpace? { declared?.instance.space }

    /// `reset` of a declared game with the protocol's parameters (`seed`, `seeds`), its results written into
    /// `columns`.
    ///
    /// - Throws: ``RPCError`` as `call("reset", params:)` would; nothing changes then.
    public mutating func reset(params: JSONValue?, into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>) throws(RPCError) {
        // Taken out and put back, not copied: a copy would make the step copy every environment (copy on write).
        guard var session = declared.take() else { throw .invalidParams("a 2048 session's buffers are VectorStepBuffers") }
        defer { declared = session }
        let members = try Self.members(of: params)
        try DeclaredSession.methods.first { $0.name == "reset" }!.check(members)
        try session.resetEnvironments(members)
        session.instance.write(into: columns)
    }

    /// `step` of a declared game with one action per environment, its results written into `columns`.
    ///
    /// - Throws: ``RPCError`` as `call("step", params:)` would for the same actions; nothing changes then.
    public mutating func step(actions: UnsafeBufferPointer<Int64>, into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>) throws(RPCError) {
        guard var session = declared.take() else { throw .invalidParams("a 2048 session's buffers are VectorStepBuffers") }
        defer { declared = session }
        guard actions.count == session.numEnvs else { throw .invalidParams("actions must have \(session.numEnvs) entries, got \(actions.count)") }
        let last = Int64(session.instance.space.actionCount - 1)
        if let index = actions.firstIndex(where: { $0 < 0 || $0 > last }) {
            // Refused by the protocol's reader of an action, in its words.
            _ = try session.action(.integer(Int128(actions[index])), name: session.numEnvs == 1 ? "action" : "actions[\(index)]")
        }
        try session.step(actions: actions)
        session.instance.write(into: columns)
    }
}

extension DeclaredSession {
    /// Steps with actions already in a buffer.
    mutating func step(actions: UnsafeBufferPointer<Int64>) throws(RPCError) {
        guard isReset else { throw Self.notReset }
        do {
            try instance.step(actions: actions)
        } catch {
            switch error {
            case .illegalAction(_, let reason): throw .illegalAction(numEnvs == 1 ? reason : error.description)
            case .episodesOver: throw numEnvs == 1 ? .episodeOver() : .episodeOver(error.description)
            }
        }
    }
}
