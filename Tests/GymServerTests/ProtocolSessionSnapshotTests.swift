import Foundation
import Testing

@testable import GymServer

/// A recorded protocol session: every method, every `make` option and every kind of error, replayed
/// through the dispatcher and compared byte for byte with the responses `g2048 serve` gave.
///
/// To accept an intended change: `swift run g2048 serve < session.requests.jsonl > session.responses.jsonl`
/// in Tests/GymServerTests/Snapshots.
struct ProtocolSessionSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func lines(_ name: String) throws -> [String] {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func everyResponseIsUnchanged() throws {
        let requests = try Self.lines("session.requests.jsonl")
        let expected = try Self.lines("session.responses.jsonl")
        var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
        let responses = requests.compactMap { dispatcher.handle($0) }
        #expect(responses.count == expected.count)
        for (index, (response, recorded)) in zip(responses, expected).enumerated() {
            #expect(response == recorded, "response \(index + 1) differs")
        }
    }
}
