import Game2048JSON
/// Turns request lines into response lines: JSON-RPC 2.0 framing around a ``GameSession``.
///
///     var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
///     dispatcher.handle(#"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":7}}"#)
///     // {"jsonrpc":"2.0","id":1,"result":{"observation":…,"info":…}}
///
/// Transport-free, so tests feed it strings in-process; ``StdioTransport``
/// connects it to stdin and stdout. Notifications (requests without an `id`)
/// run but get no response; a batch (a JSON array) gets an array of responses.
public struct Dispatcher: Sendable {
    /// The game state behind the methods.
    public private(set) var session: GameSession
    /// Set once `close` has been answered: the transport should stop.
    public private(set) var isClosed = false
    /// The deepest JSON nesting accepted.
    public var maxDepth = JSONValue.defaultMaxDepth

    /// Creates a dispatcher around `session`.
    public init(session: GameSession) { self.session = session }

    /// Handles one line of text; returns the response line (without newline), or `nil` when none is due.
    public mutating func handle(_ line: String) -> String? {
        handle(line: Array(line.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Handles one line of bytes; returns the response line (without newline), or `nil` when none is due.
    public mutating func handle(line: [UInt8]) -> [UInt8]? {
        // Blank lines carry nothing; skipping them lets a client end a message with "\r\n" or an extra newline.
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
        let request: JSONValue
        do {
            request = try JSONValue.parse(line, maxDepth: maxDepth)
        } catch {
            return Dispatcher.encode(Dispatcher.errorResponse(id: .null, .parseError(error.description)))
        }
        guard case .array(let batch) = request else {
            return handle(request).map(Dispatcher.encode)
        }
        guard !batch.isEmpty else {
            return Dispatcher.encode(Dispatcher.errorResponse(id: .null, .invalidRequest("empty batch")))
        }
        let responses = batch.compactMap { handle($0) }
        return responses.isEmpty ? nil : Dispatcher.encode(.array(responses))
    }

    /// The response to a line longer than the transport's limit, which was skipped unread.
    public static func lineTooLong(limit: Int) -> [UInt8] {
        encode(errorResponse(id: .null, .invalidRequest("line longer than \(limit) bytes (see --max-line-bytes); skipped")))
    }

    /// Handles one request object; `nil` for a notification.
    mutating func handle(_ request: JSONValue) -> JSONValue? {
        guard case .object(let members) = request else {
            return Dispatcher.errorResponse(id: .null, .invalidRequest("a request must be an object, got \(request.typeName)"))
        }
        let idMember = members.first(where: { $0.0 == "id" })
        var id: JSONValue = .null
        if let idValue = idMember?.1 {
            switch idValue {
            case .string, .integer, .double, .null: id = idValue
            default: return Dispatcher.errorResponse(id: .null, .invalidRequest("id must be a string, a number or null, got \(idValue.typeName)"))
            }
        }
        let isNotification = idMember == nil
        for (name, _) in members where !["jsonrpc", "id", "method", "params"].contains(name) {
            return isNotification ? nil : Dispatcher.errorResponse(id: id, .invalidRequest("unknown member '\(name)'"))
        }
        guard request["jsonrpc"] == .string("2.0") else {
            return isNotification ? nil : Dispatcher.errorResponse(id: id, .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard let method = request["method"]?.string else {
            return isNotification ? nil : Dispatcher.errorResponse(id: id, .invalidRequest("method must be a string"))
        }
        guard !isClosed else {
            return isNotification ? nil : Dispatcher.errorResponse(id: id, .invalidRequest("the server is closing"))
        }
        do {
            let result = try session.call(method, params: request["params"])
            if method == "close" { isClosed = true }
            return isNotification ? nil : .object([("jsonrpc", "2.0"), ("id", id), ("result", result)])
        } catch {
            return isNotification ? nil : Dispatcher.errorResponse(id: id, error)
        }
    }

    static func errorResponse(id: JSONValue, _ error: RPCError) -> JSONValue {
        .object([("jsonrpc", "2.0"), ("id", id), ("error", error.json)])
    }

    static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }
}
