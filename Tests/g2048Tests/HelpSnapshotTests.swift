import Foundation
import GymGames
import Testing

@testable import g2048

/// Every `--help` text, byte for byte, against the files in Snapshots/: a change to an option's
/// declaration that changes what a user reads shows up here as a diff to review.
///
/// To accept an intended change: `swift run g2048 <command> --help > Tests/g2048Tests/Snapshots/help-<command>.txt`
/// (`g2048 rank submit --help > …/help-rank-submit.txt`, `g2048 rank > …/help-rank.txt`).
struct HelpSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func snapshot(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(arguments: G2048.commands.map { $0.spec.name })
    func subcommandHelpIsUnchanged(command: String) throws {
        let spec = try #require(G2048.commands.first { $0.spec.name == command }).spec
        // A command of a group (`rank submit`) has its file too: help-rank-submit.txt.
        #expect(spec.help + "\n" == (try Self.snapshot("help-\(command.replacing(" ", with: "-")).txt")))
    }

    /// What `g2048 rank` prints: help-rank.txt.
    @Test(arguments: G2048.groups.map(\.name))
    func groupOverviewIsUnchanged(group: String) throws {
        let overview = try #require(G2048.groups.first { $0.name == group }).overview
        #expect(overview + "\n" == (try Self.snapshot("help-\(group).txt")))
        let long = overview.split(separator: "\n").filter { $0.count > helpWidth }
        #expect(long.isEmpty, "g2048 \(group) has lines over \(helpWidth) columns: \(long)")
    }

    /// The generic commands of every game but 2048 (`eval --game memorize`): `help-<game>-<command>.txt`.
    @Test func gameCommandHelpIsUnchanged() throws {
        for game in GameRegistry.standard.games where game.name != GameFlag.twentyFortyEight {
            for command in GameFlag.commands {
                let help = command.spec(for: game, registry: .standard).help
                #expect(help + "\n" == (try Self.snapshot("help-\(game.name)-\(command.name).txt")))
                let long = help.split(separator: "\n").filter { $0.count > helpWidth }
                #expect(long.isEmpty, "\(game.name) \(command.name) --help has lines over \(helpWidth) columns: \(long)")
            }
        }
    }

    @Test func overviewIsUnchanged() throws {
        #expect(G2048.overview + "\n" == (try Self.snapshot("help.txt")))
    }

    /// `eval --help` once had a 150-column paragraph: every help line fits a terminal of 100 columns.
    @Test(arguments: [("g2048", G2048.overview)] + G2048.commands.map { ($0.spec.name, $0.spec.help) })
    func everyHelpLineFitsInOneHundredColumns(command: String, help: String) {
        let long = help.split(separator: "\n").filter { $0.count > helpWidth }
        #expect(long.isEmpty, "\(command) --help has lines over \(helpWidth) columns: \(long)")
    }

    /// Wrapping breaks at spaces, indents the lines after the first, and keeps a word too long for a line whole.
    @Test func wrappingBreaksAtSpacesUnderTheIndent() {
        #expect(wrap("  --a  one two three", width: 12, indent: "     ") == ["  --a  one", "     two", "     three"])
        #expect(wrap("short", width: 12, indent: "  ") == ["short"])
        #expect(wrap("a verylongwordindeed b", width: 8, indent: " ") == ["a", " verylongwordindeed", " b"])
    }

    /// Plain `g2048` is a newcomer asking what the tool does: the overview on stdout, exit 0.
    @Test func bareCommandPrintsTheOverviewAndSucceeds() throws {
        let result = try G2048Tests.run([])
        #expect(result.status == 0)
        #expect(result.stdout == G2048.overview + "\n")
        #expect(result.stderr.isEmpty)
    }
}
