import GymSystem
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP client against a server in the test: what it sends, what it reads, and each way an exchange fails.
struct HTTPClientTests {
    static func exchange(
        _ server: LoopbackServer, _ method: String = "GET", target: String = "/", body: String = "", timeout: Double = 5
    ) throws(HTTPError) -> HTTPResponse {
        let url = try HTTPURL(server.url)
        return try HTTPClient.exchange(method, url, target: target, body: Array(body.utf8), contentType: "text/plain", timeout: timeout)
    }

    @Test func aPostSendsItsBodyAndReadsAResponseThatComesInPieces() throws {
        let json = #"{"rank":1,"team":"T"}"#
        let server = LoopbackServer { connection in
            LoopbackServer.send(
                connection, "HTTP/1.0 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)", piece: 7)
        }
        let url = try HTTPURL(server.url)
        let target = url.target("/api/submissions", query: [("team", "T one"), ("agent", "é&=")])
        let response = try Self.exchange(server, "POST", target: target, body: "line 1\nline 2\n")
        #expect(response.status == 201 && response.reason == "Created" && response.isSuccess)
        #expect(response.header("content-type") == "application/json")
        #expect(response.text == json)
        let request = String(decoding: server.finish().request, as: UTF8.self)
        #expect(request.hasPrefix("POST /api/submissions?team=T%20one&agent=%C3%A9%26%3D HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: 127.0.0.1:\(server.port)\r\n") && request.contains("\r\nConnection: close\r\n"))
        #expect(request.contains("\r\nContent-Type: text/plain\r\nContent-Length: 14\r\n\r\nline 1\nline 2\n"))
    }

    @Test func aBodyWithoutContentLengthRunsToTheEndOfTheConnection() throws {
        let server = LoopbackServer { LoopbackServer.send($0, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{\"error\": \"no such page\"}") }
        let response = try Self.exchange(server)
        server.finish()
        #expect(response.status == 404 && !response.isSuccess)
        #expect(response.text == #"{"error": "no such page"}"#)
    }

    @Test func aRefusedConnectionNamesTheAddress() throws {
        let port = LoopbackServer.closedPort()
        let url = try HTTPURL("http://127.0.0.1:\(port)")
        #expect(throws: HTTPError.cannotConnect(url: "http://127.0.0.1:\(port)", reason: "Connection refused")) {
            try HTTPClient.exchange("GET", url, target: "/", timeout: 5)
        }
        #expect(
            "\(HTTPError.cannotConnect(url: "http://127.0.0.1:9", reason: "Connection refused"))" == "cannot connect to http://127.0.0.1:9: Connection refused")
    }

    @Test func aServerThatSaysNothingTimesOut() throws {
        let server = LoopbackServer { LoopbackServer.waitForClose($0) }
        let start = SystemClock.monotonicSeconds()
        #expect(throws: HTTPError.timedOut(url: server.url, seconds: 0.3, stage: "waiting for the response")) { try Self.exchange(server, timeout: 0.3) }
        #expect(SystemClock.monotonicSeconds() - start < 2)
        server.finish()
        #expect("\(HTTPError.timedOut(url: "http://h:1", seconds: 0.3, stage: "connecting"))" == "http://h:1 did not answer within 0.3 s (connecting)")
    }

    /// A response cut short is refused, never taken whole: in its body, in its headers, or before anything came.
    @Test(arguments: [
        ("HTTP/1.0 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", "ended after 10 of its 100 body bytes"),
        ("HTTP/1.0 200 OK\r\nContent-Le", "ended inside its headers, after 27 bytes"),
        ("", "was empty: the connection closed before any answer"),
        ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "is not HTTP/1.x: its first line is 'SSH-2.0-OpenSSH_9.2'"),
        (
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "is sent with Transfer-Encoding: chunked, which this client does not read"
        ),
    ])
    func aResponseThatIsNotWholeIsRefused(sent: String, reason: String) throws {
        let server = LoopbackServer { LoopbackServer.send($0, sent) }
        #expect(throws: HTTPError.badResponse(url: server.url, reason: reason)) { try Self.exchange(server) }
        server.finish()
    }

    /// A server that refuses a body without reading it (too large) and closes: its answer is what the client gets.
    @Test func anAnswerBeforeTheWholeBodyWasTakenIsRead() throws {
        let server = LoopbackServer(readsBody: false) { connection in
            LoopbackServer.send(connection, "HTTP/1.0 413 Payload Too Large\r\nContent-Length: 17\r\n\r\n{\"error\":\"large\"}")
            shutdown(connection, Int32(SHUT_WR))
            usleep(200_000)
        }
        let response = try Self.exchange(server, "POST", body: String(repeating: "x", count: 8 << 20))
        server.finish()
        #expect(response.status == 413 && response.text == #"{"error":"large"}"#)
    }

    @Test func urlsAreParsedAndRefusedPrecisely() throws {
        let plain = try HTTPURL("http://127.0.0.1:8048")
        #expect((plain.host, plain.port, plain.path, plain.description) == ("127.0.0.1", 8048, "", "http://127.0.0.1:8048"))
        let mounted = try HTTPURL("HTTP://rank.example/ladder/")
        #expect((mounted.host, mounted.port, mounted.path) == ("rank.example", 80, "/ladder"))
        #expect(mounted.target("/api/table", query: [("q", "a b/c")]) == "/ladder/api/table?q=a%20b%2Fc")
        let six = try HTTPURL("http://[::1]:9000/")
        #expect((six.host, six.port, six.description) == ("::1", 9000, "http://[::1]:9000"))
        let refusals = [
            ("https://x", "only http:// is supported, not https://"), ("localhost:8048", "it must start with http://"),
            ("x", "it must start with http://"), ("http://", "the host is missing"), ("http://h:0", "the port must be a number from 1 to 65535, got '0'"),
            ("http://h:80a", "the port must be a number from 1 to 65535, got '80a'"), ("http://u@h", "it may not hold a user name or password"),
            ("http://h/?q=1", "it may have a path, but no query or fragment"), ("http://[::1", "the IPv6 address has no closing ]"),
        ]
        for (text, reason) in refusals {
            #expect(throws: HTTPError.invalidURL(text, reason: reason)) { try HTTPURL(text) }
        }
        #expect("\(HTTPError.invalidURL("https://x", reason: "r"))" == "'https://x' is not a URL this client can use: r")
    }

    @Test func anUnknownHostIsNamed() throws {
        let url = try HTTPURL("http://no-such-host.invalid:8048")
        do {
            _ = try HTTPClient.exchange("GET", url, target: "/", timeout: 5)
            Issue.record("an unknown host was reached")
        } catch {
            guard case .cannotResolve(let host, _) = error else { throw error }
            #expect(host == "no-such-host.invalid")
        }
    }
}
