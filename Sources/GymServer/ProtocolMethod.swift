import GymJSON

/// One method of the protocol: its name, the parameters it accepts and what runs it on a `Session` (2048's
/// ``GameSession``, or any declared game's `DeclaredSession`).
///
/// ``GameSession/methods`` is the one list of them: the session dispatches through it, and
/// everything that names the methods (``Methods/names``, the `-32601` message, `g2048 serve --help`)
/// reads it, so adding a method is one entry there plus its handler.
struct ProtocolMethod<Session>: Sendable {
    /// The name a request gives in `method`.
    let name: String
    /// The parameter names it accepts, checked before it runs; `nil` when the handler checks them
    /// itself (`step`, whose parameter depends on single or vector mode).
    let parameters: [String]?
    /// Runs the method on a session with the request's parameters (the members of `params`).
    let run: @Sendable (inout Session, [(String, JSONValue)]) throws(RPCError) -> JSONValue

    /// Refuses a parameter this method does not take, naming it and the ones it does.
    func check(_ members: [(String, JSONValue)]) throws(RPCError) {
        guard let parameters else { return }
        if parameters.isEmpty, let (name, _) = members.first {
            throw .invalidParams("\(self.name) takes no parameters, got '\(name)'")
        }
        try GameSession.allowOnly(members, parameters, name)
    }
}

/// The method names the server answers, in documentation order, and the protocol's version.
public enum Methods {
    /// Every method, from `GameSession.methods`.
    public static let names = GameSession.methods.map(\.name)
    /// The protocol's version, reported by `spec`; it changes when a method or field changes.
    public static let protocolVersion = "1.0"
}
