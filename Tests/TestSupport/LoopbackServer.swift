#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP server on 127.0.0.1 at a free port, for testing a client: for each connection in turn it reads one
/// request whole, then does what the test says with the connection (answer, answer in pieces, say nothing, close
/// early).
///
///     let server = LoopbackServer { connection in LoopbackServer.send(connection, "HTTP/1.0 200 OK\r\n\r\nhi") }
///     // … the client under test connects to server.port …
///     server.finish().request   // the bytes of the request it got
public final class LoopbackServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private var thread = pthread_t()
    private let responses: [(Int32) -> Void]
    private let readsBody: Bool
    /// The bytes of each request (head and body) in order, once ``finish()`` returned.
    public private(set) var requests: [[UInt8]] = []
    /// The first request's bytes.
    public var request: [UInt8] { requests.first ?? [] }

    /// Starts listening for one connection; `respond` gets it once the request is read (its head, and its body too
    /// unless `readsBody` is false), and the connection is closed after it returns.
    public convenience init(readsBody: Bool = true, respond: @escaping (Int32) -> Void) {
        self.init(readsBody: readsBody, responses: [respond])
    }

    /// Starts listening for as many connections as `responses`, one after the other: the first is answered by
    /// the first response, and so on.
    public init(readsBody: Bool = true, responses: [(Int32) -> Void]) {
        self.responses = responses
        self.readsBody = readsBody
        (listener, port) = Self.bindLoopback()
        precondition(listen(listener, 4) == 0, "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let server = Unmanaged<LoopbackServer>.fromOpaque(context!).takeRetainedValue()
                for respond in server.responses {
                    guard let request = server.serve(respond) else { break }
                    server.requests.append(request)
                }
                return nil
            }, context)
    }

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Waits for the connections to be served and closed (or for none to come for ten seconds), and returns the
    /// server (its ``requests``).
    @discardableResult
    public func finish() -> LoopbackServer {
        pthread_join(thread, nil)
        close(listener)
        return self
    }

    /// Accepts one connection, reads its request and answers it with `respond`; the request, or `nil` when no
    /// connection came.
    private func serve(_ respond: (Int32) -> Void) -> [UInt8]? {
        // A test that never connects (it failed first) ends here in ten seconds, not never.
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, 10_000) == 1 else { return nil }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return nil }
        defer { close(connection) }
        var bytes: [UInt8] = []
        var bodyLength: Int? = nil
        while true {
            if let end = Self.headerEnd(bytes) {
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingPrefix(" ")) }
                bodyLength = end + (readsBody ? length ?? 0 : 0)
            }
            if let bodyLength, bytes.count >= bodyLength { break }
            guard case .some(let chunk) = Self.receive(connection), !chunk.isEmpty else { break }
            bytes += chunk
        }
        respond(connection)
        return bytes
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (3..<bytes.count).first { bytes[$0 - 3...$0].elementsEqual([13, 10, 13, 10]) }.map { $0 + 1 }
    }

    /// One `recv` from `connection`: its bytes (empty at the end), or `nil` when it failed.
    public static func receive(_ connection: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
        return count < 0 ? nil : Array(chunk[0..<count])
    }

    /// Sends `text` on `connection`, in pieces of `piece` bytes with a millisecond between them when given.
    public static func send(_ connection: Int32, _ text: String, piece: Int? = nil) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = min(piece ?? bytes.count, bytes.count - offset)
            let sent = bytes[offset..<(offset + count)].withUnsafeBytes { Glibc.send(connection, $0.baseAddress!, count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
            if piece != nil { usleep(1000) }
        }
    }

    /// Reads `connection` until the client closes it: a server that says nothing.
    public static func waitForClose(_ connection: Int32) {
        while let chunk = receive(connection), !chunk.isEmpty {}
    }

    /// A port on 127.0.0.1 where nothing listens (bound, then closed): connecting to it is refused.
    public static func closedPort() -> Int {
        let (descriptor, port) = bindLoopback()
        close(descriptor)
        return port
    }

    /// A TCP socket bound to 127.0.0.1 at a free port, and the port.
    private static func bindLoopback() -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) == 0 && getsockname(descriptor, $0, &size) == 0 }
        }
        precondition(bound, "cannot bind on 127.0.0.1: \(String(cString: strerror(errno)))")
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
