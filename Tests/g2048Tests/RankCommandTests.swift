import Foundation
import Testing
import TestSupport

@testable import g2048

/// `g2048 rank submit` and `rank show` against a service in the test (one answer per server): what they send, what
/// they print, and every way the exchange fails, through the built binary.
struct RankCommandTests {
    static let row = """
        {"id": 3, "team": "lab \\u00e9", "agent": "ntuple-8", "description": "", "protocol": "2048-4x4-v1", "game": "2048",
         "player": "weights w.bin", "games": 1000, "steps": 31234567, "mean": 152034.25, "standard_error": 1025.5,
         "ci_low": 150024.27, "ci_high": 154044.23, "median": 149820.0, "min": 7012.0, "max": 356412.0,
         "reach": {"2048": 0.99}, "optimal_fraction": null, "suboptimal_moves": null, "games_per_second": null,
         "created": "2026-11-29T13:02:11Z", "bytes": 1523456, "rank": 1}
        """

    /// An answer of `status` with `body` as JSON, for one connection.
    static func answer(_ status: String, _ body: String) -> (Int32) -> Void {
        { connection in
            LoopbackServer.send(connection, "HTTP/1.0 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
    }

    /// A server that answers `status` with `body` as JSON.
    static func answering(_ status: String, _ body: String) -> LoopbackServer {
        LoopbackServer(respond: answer(status, body))
    }

    /// A service that states its largest record (`GET /api/protocols`), then answers the submission with `status`
    /// and `body`.
    static func service(then status: String, _ body: String) -> LoopbackServer {
        LoopbackServer(responses: [answer("200 OK", #"{"protocols": [], "limits": {"max_body_bytes": 67108864}}"#), answer(status, body)])
    }

    static func record(in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("games.jsonl")
        try #require(FileManager.default.createFile(atPath: path, contents: Data("{\"type\":\"games\"}\n{\"type\":\"game\"}\n".utf8)))
        return path
    }

    @Test func submitUploadsTheFileAsItIsAndPrintsTheVerifiedRow() throws {
        let folder = TemporaryDirectory()
        let server = Self.service(then: "201 Created", #"{"id": 3, "rank": 1, "row": \#(Self.row)}"#)
        let result = try G2048Tests.run([
            "rank", "submit", "--url", server.url, "--team", "lab é", "--agent", "ntuple-8", "--description", "8 tuples & a search",
            try Self.record(in: folder),
        ])
        let requests = server.finish().requests.map { String(decoding: $0, as: UTF8.self) }
        let request = try #require(requests.last)
        #expect(requests.count == 2 && requests[0].hasPrefix("GET /api/protocols HTTP/1.1\r\n"))
        #expect(result.stderr == "" && result.status == 0)
        #expect(
            result.stdout == """
                submission 3: rank 1 in 2048-4x4-v1, every game replayed
                rank  team   agent     player         games  mean               median    max     date
                1     lab é  ntuple-8  weights w.bin  1000   152034.3 ± 2010.0  149820.0  356412  2026-11-29

                """)
        #expect(request.hasPrefix("POST /api/submissions?team=lab%20%C3%A9&agent=ntuple-8&description=8%20tuples%20%26%20a%20search HTTP/1.1\r\n"))
        #expect(request.hasSuffix("\r\nContent-Length: 33\r\n\r\n{\"type\":\"games\"}\n{\"type\":\"game\"}\n"))
    }

    @Test func aRefusalIsPrintedOnStderrWithTheServicesReason() throws {
        let folder = TemporaryDirectory()
        let reason = "game 17 (seed 123): the record says score 2040, the replay gives 2036"
        let server = Self.service(then: "400 Bad Request", #"{"error": "\#(reason)"}"#)
        let result = try G2048Tests.run(["rank", "submit", "--url", server.url, "--team", "T", "--agent", "A", try Self.record(in: folder)])
        server.finish()
        #expect(result.status == 1 && result.stdout == "")
        #expect(result.stderr == "error: refused by \(server.url) (HTTP 400): \(reason)\n")
    }

    /// A record larger than the service takes is refused before it is read or sent: the service is asked only its limit.
    @Test func aRecordOverTheServicesLimitIsNotSent() throws {
        let folder = TemporaryDirectory()
        // One answer: a client that went on to send would wait for a second one, and time out.
        let server = LoopbackServer(respond: Self.answer("200 OK", #"{"limits": {"max_body_bytes": 20}}"#))
        let file = try Self.record(in: folder)
        let result = try G2048Tests.run(["rank", "submit", "--url", server.url, "--team", "T", "--agent", "A", "--timeout", "2", file])
        server.finish()
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(file) is 33 bytes; the ranking at \(server.url) takes records of at most 20 bytes\n")

        let silent = LoopbackServer(respond: Self.answer("200 OK", #"{"protocols": []}"#))
        let unstated = try G2048Tests.run(["rank", "submit", "--url", silent.url, "--team", "T", "--agent", "A", file])
        silent.finish()
        #expect(unstated.status == 1)
        #expect(unstated.stderr == "error: \(silent.url) does not state the largest record it takes (limits.max_body_bytes of /api/protocols)\n")
    }

    @Test func anUnreachableSilentOrCutShortServiceFailsInOneLine() throws {
        let folder = TemporaryDirectory()
        let file = try Self.record(in: folder)
        let port = LoopbackServer.closedPort()
        let refused = try G2048Tests.run(["rank", "submit", "--url", "http://127.0.0.1:\(port)", "--team", "T", "--agent", "A", file])
        #expect(refused.status == 1 && refused.stderr == "error: cannot connect to http://127.0.0.1:\(port): Connection refused\n")

        let silent = LoopbackServer { LoopbackServer.waitForClose($0) }
        let timedOut = try G2048Tests.run(["rank", "show", "--url", silent.url, "--timeout", "1"])
        silent.finish()
        #expect(timedOut.status == 1 && timedOut.stderr == "error: \(silent.url) did not answer within 1.0 s (waiting for the response)\n")

        let cut = LoopbackServer { LoopbackServer.send($0, "HTTP/1.0 200 OK\r\nContent-Length: 500\r\n\r\n{\"protocol\": ") }
        let short = try G2048Tests.run(["rank", "show", "--url", cut.url])
        cut.finish()
        #expect(short.status == 1 && short.stderr == "error: the response of \(cut.url) ended after 13 of its 500 body bytes\n")
    }

    @Test func submitChecksItsFileAndFlagsBeforeConnecting() throws {
        let folder = TemporaryDirectory()
        // Nothing listens: a command that connected would say "cannot connect" instead.
        let url = "http://127.0.0.1:\(LoopbackServer.closedPort())"
        let missing = try G2048Tests.run(["rank", "submit", "--url", url, "--team", "T", "--agent", "A", folder.file("none.jsonl")])
        #expect(missing.status == 1 && missing.stderr == "error: cannot open \(folder.file("none.jsonl")): No such file or directory\n")
        #expect(FileManager.default.createFile(atPath: folder.file("empty.jsonl"), contents: Data()))
        let empty = try G2048Tests.run(["rank", "submit", "--url", url, "--team", "T", "--agent", "A", folder.file("empty.jsonl")])
        #expect(empty.status == 1 && empty.stderr == "error: \(folder.file("empty.jsonl")) is empty: there is no record to submit\n")
        let noTeam = try G2048Tests.run(["rank", "submit", "--url", url, "--agent", "A", try Self.record(in: folder)])
        #expect(noTeam.status == 64 && noTeam.stderr.hasPrefix("error: missing --team <name>\nusage: g2048 rank submit <file> "))
        let https = try G2048Tests.run(["rank", "show", "--url", "https://rank.example"])
        #expect(
            https.status == 64 && https.stderr.hasPrefix("error: --url: 'https://rank.example' is not a URL this client can use: only http:// is supported"))
        let variable = try G2048Tests.run(["rank", "show"], environment: ["G2048_RANK_URL": "rank.example:8048"])
        #expect(
            variable.status == 64
                && variable.stderr.hasPrefix("error: $G2048_RANK_URL: 'rank.example:8048' is not a URL this client can use: it must start with http://"))
    }

    /// A server that answers, but not in JSON (another program on the port): said with what it sent.
    @Test func anAnswerThatIsNotJSONIsRefused() throws {
        let server = LoopbackServer { LoopbackServer.send($0, "HTTP/1.0 200 OK\r\nContent-Length: 15\r\n\r\n<html>hi</html>") }
        let result = try G2048Tests.run(["rank", "show", "--url", server.url])
        server.finish()
        #expect(result.status == 1 && result.stderr == "error: \(server.url) answered GET /api/table with something that is not JSON: <html>hi</html>\n")
    }

    @Test func showPrintsTheTableOrTheAnswerAsJSON() throws {
        let answer = #"{"protocol": "2048-4x4-v1", "query": "lab", "rows": [\#(Self.row)]}"#
        let server = Self.answering("200 OK", answer)
        let table = try G2048Tests.run(["rank", "show", "--protocol", "2048-4x4-v1", "--search", "lab"], environment: ["G2048_RANK_URL": server.url])
        #expect(String(decoding: server.finish().request, as: UTF8.self).hasPrefix("GET /api/table?protocol=2048-4x4-v1&q=lab HTTP/1.1\r\n"))
        #expect(table.status == 0 && table.stderr == "")
        #expect(table.stdout.hasPrefix("2048-4x4-v1: 1 submission holding 'lab'\nrank  team   agent "))

        let json = Self.answering("200 OK", answer)
        let printed = try G2048Tests.run(["rank", "show", "--url", json.url, "--json"])
        json.finish()
        #expect(printed.status == 0)
        #expect(
            try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? NSDictionary == JSONSerialization.jsonObject(with: Data(answer.utf8))
                as? NSDictionary)

        // The fraction of optimal play has a column once a row has one (a protocol whose board is solved).
        let solvedRow = Self.row.replacing(#""optimal_fraction": null"#, with: #""optimal_fraction": 0.98765"#)
        let solved = Self.answering("200 OK", #"{"protocol": "2048-3x3-v1", "query": "", "rows": [\#(solvedRow)]}"#)
        let optimal = try G2048Tests.run(["rank", "show", "--url", solved.url])
        solved.finish()
        #expect(optimal.stdout.split(separator: "\n")[1].hasSuffix("max     optimal  date"))
        #expect(optimal.stdout.split(separator: "\n")[2].hasSuffix("356412  98.77 %  2026-11-29"))

        let none = Self.answering("200 OK", #"{"protocol": "2048-3x3-v1", "query": "", "rows": []}"#)
        let emptyTable = try G2048Tests.run(["rank", "show", "--url", none.url])
        none.finish()
        #expect(emptyTable.stdout == "2048-3x3-v1: no submissions\n")
    }

    @Test func rankAloneListsItsSubcommandsAndAnUnknownOneIsAUsageError() throws {
        let group = try G2048Tests.run(["rank"])
        #expect(group.status == 0 && group.stdout == G2048.groups[0].overview + "\n")
        #expect(try G2048Tests.run(["rank", "--help"]).stdout == group.stdout)
        #expect(try G2048Tests.run(["help", "rank"]).stdout == group.stdout)
        #expect(try G2048Tests.run(["help", "rank", "show"]).stdout == RankShowCommand.spec.help + "\n")
        let unknown = try G2048Tests.run(["rank", "list"])
        #expect(unknown.status == 64 && unknown.stderr == "error: unknown subcommand 'rank list' (submit or show)\nsee 'g2048 rank --help'\n")
    }
}
