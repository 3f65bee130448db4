import Foundation
import Testing
@testable import GymServer

/// The method table is the one declaration of the protocol's methods: the error message and the
/// protocol document agree with it.
struct ProtocolMethodTests {
    /// The text of a file of this package, found from this test file's path.
    static func packageFile(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first column of the markdown table under `heading`, without backticks.
    static func firstColumn(of heading: String, in text: String) throws -> [String] {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading))
        let table = lines[(start + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        return table.dropFirst(2).map { row in
            row.split(separator: "|", omittingEmptySubsequences: false)[1].trimmingCharacters(in: .whitespaces)
                .replacingOccurrences(of: "`", with: "")
        }
    }

    @Test func theProtocolDocumentListsExactlyTheTablesMethods() throws {
        let documented = try Self.firstColumn(of: "## Methods", in: Self.packageFile("docs/PROTOCOL.md"))
        #expect(documented == Methods.names)
    }

    @Test func anUnknownMethodIsAnsweredWithTheTablesNames() throws {
        var session = GameSession(config: ServerConfig())
        #expect(throws: RPCError.methodNotFound("jump")) { try session.call("jump", params: nil) }
        #expect(
            RPCError.methodNotFound("jump").message
                == "method not found: 'jump'; methods are \(Methods.names.joined(separator: ", "))")
    }

    /// Each method refuses a parameter it does not take, by the list the table declares.
    @Test(arguments: [
        ("spec", "spec takes no parameters, got 'x'"), ("afterstates", "afterstates takes no parameters, got 'x'"),
        ("close", "close takes no parameters, got 'x'"),
        ("reset", "unknown parameter 'x' for reset; parameters are seed, seeds, options"),
        ("render", "unknown parameter 'x' for render; parameters are ansi"),
        ("step", "unknown parameter 'x' for step; parameters are action"),
    ])
    func unknownParametersAreRefusedByName(method: String, message: String) throws {
        var session = GameSession(config: ServerConfig())
        #expect(throws: RPCError.invalidParams(message)) { try session.call(method, params: .object([("x", 1)])) }
    }
}
