/// Why an HTTP exchange with a service failed, in one line that names the service.
///
///     do { _ = try HTTPClient.exchange(.get, url, "/api/table", timeout: 5) } catch { print("error: \(error)") }
///     // error: cannot connect to http://127.0.0.1:8048: Connection refused
///
/// An answer the service gave (a 4xx with its reason) is no error here: it is an ``HTTPResponse``; this type is
/// for what kept an answer from arriving whole.
package enum HTTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The address is not an `http://host[:port][/path]` URL; `reason` says what is wrong.
    case invalidURL(String, reason: String)
    /// The host name does not resolve (`getaddrinfo`'s reason).
    case cannotResolve(host: String, reason: String)
    /// No address of the host accepted a connection (the system's reason for the last one tried).
    case cannotConnect(url: String, reason: String)
    /// The exchange took longer than `seconds`; `stage` is what it was waiting for.
    case timedOut(url: String, seconds: Double, stage: String)
    /// Sending or receiving failed (the system's reason: a reset connection, …).
    case connectionFailed(url: String, reason: String)
    /// What came back is not a whole HTTP response: cut short, not HTTP, or too large.
    case badResponse(url: String, reason: String)

    package var description: String {
        switch self {
        case .invalidURL(let text, let reason): "'\(text)' is not a URL this client can use: \(reason)"
        case .cannotResolve(let host, let reason): "cannot resolve the host \(host): \(reason)"
        case .cannotConnect(let url, let reason): "cannot connect to \(url): \(reason)"
        case .timedOut(let url, let seconds, let stage):
            "\(url) did not answer within \(formatFixed(seconds, digits: seconds < 10 ? 1 : 0)) s (\(stage))"
        case .connectionFailed(let url, let reason): "the connection to \(url) failed: \(reason)"
        case .badResponse(let url, let reason): "the response of \(url) \(reason)"
        }
    }
}
