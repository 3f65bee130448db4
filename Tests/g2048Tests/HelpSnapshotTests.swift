import Foundation
import Testing

@testable import g2048

/// Every `--help` text, byte for byte, against the files in Snapshots/: a change to an option's
/// declaration that changes what a user reads shows up here as a diff to review.
///
/// To accept an intended change: `swift run g2048 <command> --help > Tests/g2048Tests/Snapshots/help-<command>.txt`.
struct HelpSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func snapshot(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(arguments: G2048.commands.map { $0.spec.name })
    func subcommandHelpIsUnchanged(command: String) throws {
        let spec = try #require(G2048.commands.first { $0.spec.name == command }).spec
        #expect(spec.help + "\n" == (try Self.snapshot("help-\(command).txt")))
    }

    @Test func overviewIsUnchanged() throws {
        #expect(G2048.overview + "\n" == (try Self.snapshot("help.txt")))
    }
}
