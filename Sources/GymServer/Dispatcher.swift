import GymJSON
/// Turns request lines into response lines: JSON-RPC 2.0 framing around a ``GameSession``.
///
///     var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
///     dispatcher.handle(#"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":7}}"#)
///     // {"jsonrpc":"2.0","id":1,"result":{"observation":…,"info":…}}
///
/// Transport-free, so tests feed it strings in-process; ``StdioTransport``
/// connects it to stdin and stdout. A valid request without an `id` is a
/// notification: it runs and gets no response. An invalid request always gets
/// one, with `"id": null` when its id could not be read. A batch (a JSON array)
/// gets an array of responses, written element by element as each request runs,
/// so a batch never holds more than one response in memory.
public struct Dispatcher: Sendable {
    /// The game state behind the methods.
    public private(set) var session: GameSession
    /// Set once `close` has been answered: the transport should stop.
    public private(set) var isClosed = false
    /// The deepest JSON nesting accepted.
    public var maxDepth = JSONValue.defaultMaxDepth
    /// The most requests one batch may hold: a longer batch is refused whole, with one error, rather than answered
    /// with millions of replies (a line of 64 MiB can hold some 25 million empty requests).
    public static let maxBatchCount = 10_000

    /// Creates a dispatcher around `session`.
    public init(session: GameSession) { self.session = session }

    /// Handles one line of text; returns the response line (without newline), or `nil` when none is due.
    public mutating func handle(_ line: String) -> String? {
        handle(line: Array(line.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Handles one line of bytes; returns the response line (without newline), or `nil` when none is due.
    public mutating func handle(line: [UInt8]) -> [UInt8]? {
        var output = MemoryOutput()
        handle(line: line, to: &output)
        guard output.bytes.last == 0x0A else { return nil }
        output.bytes.removeLast()
        return output.bytes
    }

    /// Handles one line of bytes, writing its response line (with its newline) to `output`
    /// piece by piece; writes nothing when no response is due. Stops early when `output` fails.
    public mutating func handle<Output: ResponseOutput>(line: [UInt8], to output: inout Output) {
        // Blank lines carry nothing; skipping them lets a client end a message with "\r\n" or an extra newline.
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        var writer = ResponseWriter(output: output)
        defer { output = writer.output }
        let request: JSONValue
        do {
            request = try JSONValue.parse(line, maxDepth: maxDepth, numberTextKey: "id")
        } catch {
            writer.write(reply: .error(id: .null, .parseError(error.description)))
            return writer.endLine()
        }
        guard case .array(let batch) = request else {
            let reply = reply(to: request)
            guard case .none = reply else {
                writer.write(reply: reply)
                return writer.endLine()
            }
            return
        }
        guard !batch.isEmpty else {
            writer.write(reply: .error(id: .null, .invalidRequest("empty batch")))
            return writer.endLine()
        }
        guard batch.count <= Dispatcher.maxBatchCount else {
            let reason = "a batch holds at most \(Dispatcher.maxBatchCount) requests, got \(batch.count); none was run"
            writer.write(reply: .error(id: .null, .invalidRequest(reason)))
            return writer.endLine()
        }
        var opened = false
        for element in batch where writer.isWriting {
            let reply = reply(to: element)
            if case .none = reply { continue }
            writer.write(byte: opened ? UInt8(ascii: ",") : UInt8(ascii: "["))
            opened = true
            writer.write(reply: reply)
        }
        if opened {
            writer.write(byte: UInt8(ascii: "]"))
            writer.endLine()
        }
    }

    /// The response to a line longer than the transport's limit, which was skipped unread (without newline).
    public static func lineTooLong(limit: Int) -> [UInt8] {
        var output = MemoryOutput()
        var writer = ResponseWriter(output: output)
        writer.write(reply: .error(id: .null, .invalidRequest("line longer than \(limit) bytes (see --max-line-bytes); skipped")))
        output = writer.output
        return output.bytes
    }

    /// What one request gets.
    enum Reply {
        /// Nothing: the request was a notification.
        case none
        /// A successful call.
        case result(id: JSONValue, JSONValue)
        /// A failure.
        case error(id: JSONValue, RPCError)
    }

    /// The members a request may have.
    static let envelopeMembers = ["jsonrpc", "id", "method", "params"]

    /// Validates and runs one request object.
    ///
    /// JSON-RPC 2.0: only a *valid* request without `id` is a notification; an invalid
    /// one is answered with `-32600`, and with `"id": null` unless its id could be read.
    mutating func reply(to request: JSONValue) -> Reply {
        guard case .object(let members) = request else {
            return .error(id: .null, .invalidRequest("a request must be an object, got \(request.typeName)"))
        }
        var id: JSONValue = .null
        let idValues = members.filter { $0.0 == "id" }.map(\.1)
        if idValues.count == 1 {
            switch idValues[0] {
            case .string, .raw, .integer, .double, .null: id = idValues[0]
            default: return .error(id: .null, .invalidRequest("id must be a string, a number or null, got \(idValues[0].typeName)"))
            }
        }
        var names = Set<String>()
        for (name, _) in members where !names.insert(name).inserted {
            return .error(id: id, .invalidRequest("duplicate member '\(name)'"))
        }
        for (name, _) in members where !Dispatcher.envelopeMembers.contains(name) {
            return .error(id: id, .invalidRequest("unknown member '\(name)'"))
        }
        guard request["jsonrpc"] == .string("2.0") else {
            return .error(id: id, .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard let method = request["method"]?.string else {
            return .error(id: id, .invalidRequest("method must be a string"))
        }
        let params = request["params"]
        switch params {
        case nil, .object?, .array?: break
        case let other?:
            return .error(id: id, .invalidRequest("params must be an object or an array when present, got \(other.typeName)"))
        }
        // A valid request from here on: without an id it is a notification, which runs but is not answered.
        let isNotification = idValues.isEmpty
        guard !isClosed else {
            return isNotification ? .none : .error(id: id, .invalidRequest("the server is closing"))
        }
        do throws(RPCError) {
            if let duplicate = params?.firstDuplicateKey {
                throw RPCError.invalidParams("duplicate parameter '\(duplicate)'")
            }
            let result = try session.call(method, params: params)
            if method == "close" { isClosed = true }
            return isNotification ? .none : .result(id: id, result)
        } catch {
            return isNotification ? .none : .error(id: id, error)
        }
    }
}

/// Where a ``Dispatcher`` writes response lines.
public protocol ResponseOutput {
    /// Appends the next bytes of the current response; returns false when the output has failed
    /// (the dispatcher then stops writing, and stops running the rest of a batch).
    mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// A response output in memory, for tests and in-process callers.
public struct MemoryOutput: ResponseOutput, Sendable {
    /// Everything written so far.
    public var bytes: [UInt8] = []

    /// Creates an empty output.
    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        self.bytes.append(contentsOf: bytes)
        return true
    }
}

/// Writes replies to an output without building them whole: results that are
/// already text (`JSONValue.raw(_:)`) go out as they are, and only the small
/// parts around them are serialized.
struct ResponseWriter<Output: ResponseOutput> {
    var output: Output
    /// False once the output has failed.
    private(set) var isWriting = true

    init(output: Output) { self.output = output }

    mutating func write(bytes: [UInt8]) {
        guard isWriting else { return }
        isWriting = bytes.withUnsafeBytes { output.write($0) }
    }

    mutating func write(byte: UInt8) { write(bytes: [byte]) }

    mutating func endLine() { write(byte: 0x0A) }

    /// A JSON value, streaming the raw text and the elements of large arrays and objects.
    mutating func write(value: JSONValue) {
        switch value {
        case .raw(let text): write(bytes: text)
        case .array(let elements):
            write(byte: UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { write(byte: UInt8(ascii: ",")) }
                write(value: element)
            }
            write(byte: UInt8(ascii: "]"))
        case .object(let members):
            write(byte: UInt8(ascii: "{"))
            for (index, (key, element)) in members.enumerated() {
                var json = JSONWriter()
                if index > 0 { json.punctuation(",") }
                json.key(key)
                write(bytes: json.bytes)
                write(value: element)
            }
            write(byte: UInt8(ascii: "}"))
        default:
            var json = JSONWriter()
            json.write(value)
            write(bytes: json.bytes)
        }
    }

    /// One response object (no newline); nothing for ``Dispatcher/Reply/none``.
    mutating func write(reply: Dispatcher.Reply) {
        switch reply {
        case .none: return
        case .result(let id, let result):
            var json = JSONWriter()
            json.raw(#"{"jsonrpc":"2.0","id":"#)
            json.write(id)
            json.raw(#","result":"#)
            write(bytes: json.bytes)
            write(value: result)
            write(byte: UInt8(ascii: "}"))
        case .error(let id, let error):
            var json = JSONWriter()
            json.write(.object([("jsonrpc", "2.0"), ("id", id), ("error", error.json)]))
            write(bytes: json.bytes)
        }
    }
}
