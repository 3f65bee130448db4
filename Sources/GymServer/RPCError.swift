import GymJSON
/// A JSON-RPC error: the code, computed in one place, and a message that says what to fix.
///
///     RPCError.invalidParams("action must be 0..3 or up/right/down/left, got 7").code   // -32602
///
/// Codes -32700…-32603 are JSON-RPC 2.0's; -32001…-32003 are this server's
/// state errors, documented in docs/PROTOCOL.md.
public enum RPCError: Error, Hashable, Sendable {
    /// The line is not valid JSON (or not valid UTF-8). Answered with `id: null`.
    case parseError(String)
    /// Valid JSON, but not a JSON-RPC 2.0 request (or a line over the size limit).
    case invalidRequest(String)
    /// No such method.
    case methodNotFound(String)
    /// A parameter is missing, of the wrong type, or out of range.
    case invalidParams(String)
    /// A `make` option (or `g2048 serve` flag) out of range or of the wrong type: its protocol name and
    /// what is wrong with the value ("must be an integer from 2 to 8, got 9"). Code -32602, with the option in `data`.
    case invalidOption(String, reason: String)
    /// An option `make` does not have. Code -32602, with the option in `data`.
    case unknownOption(String)
    /// A bug in the server; the state is unchanged.
    case internalError(String)
    /// `step`, `afterstates`, `get_state` or `render` before the first `reset` (or after `make`): what to call
    /// first, before what (a game names only its own methods).
    case notReset(String = "call reset (or set_state) before step, afterstates, get_state or render")
    /// `step` on an environment whose episode has ended: a single environment, or
    /// environments of a vector under `autoreset_mode: "disabled"` (the message names them).
    case episodeOver(String = "the episode has ended; call reset")
    /// An illegal action under `invalid_action: "reject"`; nothing changed.
    case illegalAction(String)
    /// In-process only (the C ABI): a handle that was never made, or was destroyed.
    case invalidHandle(Int64)
    /// In-process only (the C ABI): a handle made by process `owner`, used in a child it forked.
    case inheritedHandle(Int64, owner: Int32)

    /// The JSON-RPC error code.
    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidParams, .invalidOption, .unknownOption: -32602
        case .internalError: -32603
        case .notReset: -32001
        case .episodeOver: -32002
        case .illegalAction: -32003
        case .invalidHandle, .inheritedHandle: -32004
        }
    }

    /// The human-readable message.
    public var message: String {
        switch self {
        case .parseError(let reason): "parse error: \(reason)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .methodNotFound(let method):
            "method not found: '\(method)'; methods are \(Methods.names.joined(separator: ", "))"
        case .invalidParams(let reason): "invalid params: \(reason)"
        case .invalidOption(let option, let reason): "invalid params: \(option) \(reason)"
        case .unknownOption(let option):
            "invalid params: unknown option '\(option)'; options are \(ServerOption.names.joined(separator: ", "))"
        case .internalError(let reason): "internal error: \(reason)"
        case .notReset(let reason): "not reset: \(reason)"
        case .episodeOver(let reason): "episode over: \(reason)"
        case .illegalAction(let reason): "illegal action: \(reason)"
        case .invalidHandle(let handle):
            "invalid handle: \(handle) is not a live handle of this kind (never made, destroyed, or a player's where a session's is needed, or the other way round)"
        case .inheritedHandle(let handle, let owner):
            "invalid handle: \(handle) was made in process \(owner), and this process is a child it forked; make a new "
                + "handle here (the parent's handle may be in use by one of its threads, which the child does not have)"
        }
    }

    /// The `data` member of the error: for an option error, the option and whether it is `unknown`
    /// or has an `invalid` value, so that a client needs no message text to tell them apart.
    public var data: JSONValue? {
        switch self {
        case .invalidOption(let option, _): .object([("option", .string(option)), ("reason", "invalid")])
        case .unknownOption(let option): .object([("option", .string(option)), ("reason", "unknown")])
        default: nil
        }
    }

    /// The `error` member of a response.
    public var json: JSONValue {
        .object([("code", .integer(Int128(code))), ("message", .string(message))] + (data.map { [("data", $0)] } ?? []))
    }
}
