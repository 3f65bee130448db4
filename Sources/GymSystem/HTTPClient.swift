#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 client over POSIX sockets: one request per connection, `Connection: close`, every wait bounded.
///
///     let url = try HTTPURL("http://127.0.0.1:8048")
///     let response = try HTTPClient.exchange("GET", url, target: url.target("/api/table"), timeout: 10)
///     response.status, response.text   // 200, {"rows": …}
///
/// The package's services speak JSON over plain HTTP on a near machine, and a client that needs no package
/// dependency is a hundred lines: resolve (`getaddrinfo`), connect each address in turn without blocking, send the
/// whole request, read the response until it is complete or the server closes. One deadline covers all of it, so
/// that a service that accepts and then says nothing fails in `timeout` seconds, never hangs the command.
package enum HTTPClient {
    /// The largest response read: past it the exchange fails (a table or a verified row is kilobytes).
    package static let maxResponseBytes = 64 << 20

    /// Sends `method target` with `body` (as `contentType`) to `url`'s host and returns the response, whatever its
    /// status.
    ///
    /// - Throws: ``HTTPError``: the host does not resolve, no connection, no whole response within `timeout`
    ///   seconds, a connection reset, a response cut short or not HTTP.
    package static func exchange(
        _ method: String, _ url: HTTPURL, target: String, body: [UInt8] = [], contentType: String? = nil, timeout: Double
    ) throws(HTTPError) -> HTTPResponse {
        let deadline = SystemClock.monotonicSeconds() + timeout
        let socket = try connect(url, deadline: deadline, timeout: timeout)
        defer { close(socket.descriptor) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nConnection: close\r\nAccept: application/json\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        // A server may answer and close before reading all of a body it refuses (too large): its answer counts.
        if let early = try socket.send(Array((head + "\r\n").utf8) + body) { return early }
        return try socket.receive()
    }

    /// A connected socket, and what its failures are worded with.
    struct Connection {
        var descriptor: Int32
        var url: HTTPURL
        var deadline: Double
        var timeout: Double

        /// Sends all of `bytes` (`MSG_NOSIGNAL`: a closed peer is an error, not SIGPIPE); `nil`, or the response of
        /// a server that answered and closed before taking them all.
        func send(_ bytes: [UInt8]) throws(HTTPError) -> HTTPResponse? {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if sent >= 0 {
                    offset += sent
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    try wait(for: Int16(POLLOUT), "sending the request")
                } else if errno != EINTR {
                    let failure = errno
                    if failure == EPIPE || failure == ECONNRESET, let early = try? receive() { return early }
                    throw HTTPError.connectionFailed(url: url.description, reason: systemReason(failure))
                }
            }
            return nil
        }

        /// Reads until the response is complete or the server closes the connection.
        func receive() throws(HTTPError) -> HTTPResponse {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
                if count < 0 {
                    if errno == EINTR { continue }
                    guard errno == EAGAIN || errno == EWOULDBLOCK else {
                        throw HTTPError.connectionFailed(url: url.description, reason: systemReason(errno))
                    }
                    try wait(for: Int16(POLLIN), "waiting for the response")
                    continue
                }
                bytes += chunk[0..<count]
                guard bytes.count <= HTTPClient.maxResponseBytes else {
                    throw HTTPError.badResponse(url: url.description, reason: "is larger than \(byteSize(HTTPClient.maxResponseBytes))")
                }
                do throws(HTTPResponse.ResponseFailure) {
                    if let response = try HTTPResponse.complete(in: bytes, ended: count == 0) { return response }
                } catch {
                    throw HTTPError.badResponse(url: url.description, reason: error.reason)
                }
            }
        }

        /// Waits until the socket is ready for `events`, or fails at the deadline naming `stage`.
        func wait(for events: Int16, _ stage: String) throws(HTTPError) {
            try HTTPClient.wait(descriptor, for: events, until: deadline) { .timedOut(url: url.description, seconds: timeout, stage: stage) }
        }
    }

    /// Connects to the first of `url`'s host's addresses that accepts, without blocking past `deadline`.
    static func connect(_ url: HTTPURL, deadline: Double, timeout: Double) throws(HTTPError) -> Connection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let resolved = getaddrinfo(url.host, String(url.port), &hints, &list)
        guard resolved == 0 else { throw .cannotResolve(host: url.host, reason: String(cString: gai_strerror(resolved))) }
        defer { freeaddrinfo(list) }
        var reason = "the host has no address"
        var address = list
        while let info = address?.pointee {
            address = info.ai_next
            let descriptor = socket(
                info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
            guard descriptor >= 0 else {
                reason = systemReason(errno)
                continue
            }
            if Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 || errno == EINPROGRESS {
                do throws(HTTPError) {
                    try wait(descriptor, for: Int16(POLLOUT), until: deadline) {
                        .timedOut(url: url.description, seconds: timeout, stage: "connecting")
                    }
                } catch {
                    close(descriptor)
                    throw error
                }
                var failure: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 && failure == 0 {
                    return Connection(descriptor: descriptor, url: url, deadline: deadline, timeout: timeout)
                }
                reason = systemReason(failure)
            } else {
                reason = systemReason(errno)
            }
            close(descriptor)
        }
        throw .cannotConnect(url: url.description, reason: reason)
    }

    /// Waits until `descriptor` is ready for `events` (or in error, which the next call reports), or fails with
    /// `timedOut()` at `deadline`.
    static func wait(_ descriptor: Int32, for events: Int16, until deadline: Double, timedOut: () -> HTTPError) throws(HTTPError) {
        while true {
            let left = deadline - SystemClock.monotonicSeconds()
            guard left > 0 else { throw timedOut() }
            var watched = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&watched, 1, Int32(min(left * 1000, 1e9).rounded(.up)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { return }
        }
    }
}
