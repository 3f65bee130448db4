import GymCore
import GymGames
import GymJSON
import TestGames
import Testing

@testable import GymServer

/// A declared game's records through the protocol: `spec`'s `record` is the game's layout, and `record_members`
/// gives the values the game's own declaration gives for environment 0 (what a replay outside Swift compares).
struct RecordMembersTests {
    static let registry = GameRegistry.standard.adding(GuessTheNumber.declaration)

    static func call(_ session: inout GameSession, _ method: String, _ params: [(String, JSONValue)] = []) throws(RPCError) -> JSONValue {
        try session.call(method, params: .object(params))
    }

    static func session(_ game: String, _ options: [(String, JSONValue)] = []) throws -> GameSession {
        var session = GameSession(config: ServerConfig(), registry: registry)
        _ = try call(&session, "make", [("game", .string(game))] + options)
        return session
    }

    static func names(_ names: [String]) -> JSONValue { .array(names.map { .string($0) }) }

    @Test(arguments: ["memorize", GuessTheNumber.declaration.name])
    func specGivesTheDeclaredLayout(game: String) throws {
        var session = try Self.session(game)
        let layout = try #require(Self.registry.games.first { $0.name == game }).recordLayout
        let record = try Self.call(&session, "spec")["record"]
        #expect(record?["action"] == .string(layout.action))
        #expect(record?["header"] == Self.names(layout.header) && record?["step"] == Self.names(layout.step))
        #expect(record?["end"] == Self.names(layout.end))
        #expect(record?["options_before"] == .object(EpisodeOption.beforeInvalidActionPolicies.map { ($0.name, JSONValue($0.value)) }))
    }

    @Test func membersAreTheDeclarationsAfterEachStep() throws {
        let options: [(String, JSONValue)] = [("rows", 2), ("cols", 3)]
        var session = try Self.session("memorize", options)
        var game = try #require(Self.registry.games.first { $0.name == "memorize" }).make(
            ["rows": .integer(2), "cols": .integer(3)], count: 1, autoresetMode: .disabled)
        _ = try Self.call(&session, "reset", [("seed", 9)])
        game.reset(seeds: [9])
        let recorded = try #require(game.recorded)
        let start = try Self.call(&session, "record_members")
        #expect(start["start"] == .array(recorded.startMembers(at: 0).map(\.json)))
        #expect(start["step"] == nil, "no step members without the action taken")
        for card in [0, 1, 2, 3] {
            _ = try Self.call(&session, "step", [("action", .integer(Int128(card)))])
            try [Int64(card)].withUnsafeBufferPointer { actions in try game.step(actions: actions) }
            let members = try Self.call(&session, "record_members", [("action", .integer(Int128(card)))])
            #expect(members["step"] == .array(recorded.stepMembers(at: 0, after: card).map(\.json)))
            #expect(members["end"] == .array(game.recorded!.endMembers(at: 0).map(\.json)))
        }
    }

    @Test func aGameWithoutMembersOfItsOwnGivesNone() throws {
        var session = try Self.session(GuessTheNumber.declaration.name)
        _ = try Self.call(&session, "reset", [("seed", 1)])
        let members = try Self.call(&session, "record_members", [("action", 0)])
        #expect(members == .object([("start", .array([])), ("end", .array([])), ("step", .array([]))]))
    }

    @Test(
        arguments: [
            ([] as [(String, JSONValue)], false, "not reset: call reset before record_members"),
            ([("action", 6)], true, "action must be an action from 0 to 5, got 6"),
            ([("card", 1)], true, "unknown parameter"),
        ] as [([(String, JSONValue)], Bool, String)])
    func refusals(params: [(String, JSONValue)], reset: Bool, message: String) throws {
        var session = try Self.session("memorize", [("rows", 2), ("cols", 3)])
        if reset { _ = try Self.call(&session, "reset", [("seed", 1)]) }
        do {
            _ = try Self.call(&session, "record_members", params)
            Issue.record("accepted \(params)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func twoThousandFortyEightHasNoRecordMembers() throws {
        var session = GameSession(config: ServerConfig(), registry: Self.registry)
        do {
            _ = try Self.call(&session, "record_members")
            Issue.record("2048 answered record_members")
        } catch {
            #expect(error.code == -32601)
        }
    }
}
