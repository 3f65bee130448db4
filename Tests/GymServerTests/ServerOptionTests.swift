import Game2048
import GymJSON
import Testing
@testable import GymServer

/// The option table is the one declaration of the server's options: `make`, `spec`, the `serve`
/// flags and the protocol document all follow it.
struct ServerOptionTests {
    /// The lines of a document's table, from its header to its last row.
    static func documentedTable(_ file: String = "docs/PROTOCOL.md", header: String = "| option | flag | default | allowed |") throws -> String {
        let lines = try ProtocolMethodTests.packageFile(file).split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0 == header })
        return lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
    }

    @Test func theEnvironmentGuidesRulesTableIsTheTables() throws {
        let table = ServerOption.rulesMarkdownTable
        let documented = try Self.documentedTable("docs/ENVIRONMENT.md", header: String(table.prefix { $0 != "\n" }))
        #expect(documented == table, "docs/ENVIRONMENT.md should hold:\n\(table)")
    }

    @Test func theProtocolDocumentsOptionsTableIsTheTables() throws {
        let documented = try Self.documentedTable()
        #expect(documented == ServerOption.markdownTable, "docs/PROTOCOL.md should hold:\n\(ServerOption.markdownTable)")
    }

    @Test func specReportsEveryOptionInTableOrder() {
        let config = ServerConfig().json
        #expect(config.object?.map(\.0) == ServerOption.names)
        // The rules options are RulesOption's, in its order.
        #expect(ServerOption.all.compactMap(\.rules?.name) == RulesOption.all.map(\.name))
    }

    /// A rules option is declared once: its server option's flag, placeholder, help and note are the
    /// rules option's, and its range is the one `make` enforces.
    @Test(arguments: RulesOption.all.map(\.name))
    func rulesOptionsServerEntryIsMadeFromIt(name: String) throws {
        let rules = try #require(RulesOption.named(name))
        let option = try #require(ServerOption.all.first { $0.name == name })
        #expect(option.rules?.name == name)
        #expect(option.flag == rules.flag && option.valueName == rules.valueName && option.note == rules.note)
        #expect(option.help.hasPrefix(rules.help))
        if case .integer(let range, nullable: false) = rules.constraint {
            let above = Int128(range.upperBound) + 1
            #expect(throws: RPCError.invalidOption(name, reason: "must be an integer from \(range.lowerBound) to \(range.upperBound), got \(above)")) {
                try ServerConfig().applying([(name, .integer(above))])
            }
        }
    }

    /// Each option reads back what it reports: `make` with `spec`'s config changes nothing.
    @Test func makeWithTheReportedConfigIsTheSameConfig() throws {
        let changed = try ServerConfig().applying([
            ("rows", 3), ("win_tile", 64), ("invalid_action", "terminate"),
            ("invalid_action_penalty", 5), ("observation", "onehot"), ("num_envs", 3),
        ])
        let members = try #require(changed.json.object)
        #expect(try ServerConfig().applying(members) == changed)
    }

    /// A flag's text becomes the JSON value of its option.
    @Test(arguments: [
        ("rows", "5", JSONValue.integer(5)), ("win-tile", "off", .null), ("max-steps", "9", .integer(9)),
        ("spawn-four-probability", "0.5", .double(0.5)), ("info", "score,won", .array(["score", "won"])),
        ("observation", "values", .string("values")),
    ])
    func flagTextBecomesTheOptionsValue(flag: String, text: String, value: JSONValue) throws {
        let option = try #require(ServerOption.all.first { $0.flag == flag })
        #expect(option.value(ofFlag: text) == value)
    }

    /// Every rules error names its option by the protocol's name, and its flag by the CLI's.
    @Test(arguments: [
        (RulesError.Field.spawnFourProbability, "spawn_four_probability", "spawn-four-probability"),
        (.initialTiles, "initial_tiles", "initial-tiles"), (.winTile, "win_tile", "win-tile"), (.maxSteps, "max_steps", "max-steps"),
        (.penalty, "invalid_action_penalty", "penalty"), (.rows, "rows", "rows"), (.cols, "cols", "cols"),
    ])
    func rulesFieldsHaveTheirProtocolNames(field: RulesError.Field, name: String, flag: String) {
        #expect(RulesOption.name(of: field) == name)
        #expect(RulesOption.option(of: field)?.flag == flag)
    }

    /// Each field but the board's is exactly one option's; the board's is none.
    @Test func everyRulesFieldBelongsToOneOption() {
        for field in RulesError.Field.allCases {
            #expect(RulesOption.all.filter { $0.field == field }.count == (field == .board ? 0 : 1), "\(field)")
        }
        #expect(RulesOption.name(of: .board) == "board")
    }
}
