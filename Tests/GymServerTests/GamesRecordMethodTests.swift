import Game2048
import GymCore
import GymGames
import GymJSON
import Memorize
import Testing

@testable import GymPlay
@testable import GymServer

/// `games_record`: a client that kept its seeds and actions gets the record `eval --record` writes, in 2048's own
/// session and in every declared game's.
struct GamesRecordMethodTests {
    /// Plays `seeds` to their ends in `session` through the protocol, the first legal action each step, keeping
    /// what a client keeps: each seed and its actions.
    static func play(_ session: (String, [(String, JSONValue)]) throws -> JSONValue, seeds: [UInt64]) throws -> [JSONValue] {
        // Results hold pre-serialized parts (the hot path's): read as a client reads them.
        func call(_ method: String, _ params: [(String, JSONValue)]) throws -> JSONValue {
            try JSONValue.parse(Array(session(method, params).serialized.utf8))
        }
        return try seeds.map { seed in
            var result = try call("reset", [("seed", .integer(Int128(seed)))])
            var actions: [JSONValue] = []
            while result["terminated"] != .bool(true) && result["truncated"] != .bool(true) {
                guard case .array(let mask)? = result["info"]?["action_mask"] else { throw RPCError.internalError("no mask") }
                let action = try #require(mask.firstIndex(of: .bool(true)))
                actions.append(.integer(Int128(action)))
                result = try call("step", [("action", .integer(Int128(action)))])
            }
            return .object([("seed", .integer(Int128(seed))), ("actions", .array(actions))])
        }
    }

    @Test func twentyFortyEightsSessionWritesTheRecordTheEngineWrites() throws {
        var session = GameSession(config: ServerConfig())
        _ = try session.call("make", params: .object([("rows", 2), ("cols", 3)]))
        let games = try Self.play({ method, params in try session.call(method, params: .object(params)) }, seeds: [4, 5])
        let answer = try session.call("games_record", params: .object([("player", "client"), ("games", .array(games))]))
        guard case .string(let text)? = answer["record"] else { Issue.record("no record in \(answer)"); return }
        let read = try GamesRecord.parse(Array(text.utf8))
        let verified = try read.verify()
        #expect(verified.record.player == "client" && read.games.map(\.seed) == [4, 5])
        #expect(read.values["rows"] == .integer(2) && read.values["cols"] == .integer(3))
        let direct = try GamesRecord(
            game: Game2048Game.declaration, values: read.values, protocolName: nil, player: "client",
            played: read.games.map { ($0.seed, $0.actions) })
        #expect(direct.text == text)
    }

    @Test func aDeclaredGamesSessionWritesItsRecordAndRefusesWhatDoesNotReplay() throws {
        var session = try DeclaredSession(game: MemorizeGame.declaration, options: [("rows", 2), ("cols", 2)], base: nil)
        let games = try Self.play({ method, params in try session.call(method, params) }, seeds: [8])
        let answer = try session.call("games_record", [("player", "client"), ("games", .array(games)), ("protocol", .null)])
        guard case .string(let text)? = answer["record"] else { Issue.record("no record in \(answer)"); return }
        #expect(text.hasPrefix("{\"type\":\"games\",\"format\":\"gym2048-games\",\"version\":1,\"game\":\"memorize\""))
        #expect(try GamesRecord.parse(Array(text.utf8)).verify().record.games.count == 1)
        let refusals: [([(String, JSONValue)], String)] = [
            ([("player", "c"), ("games", .array([.object([("seed", 8), ("actions", .array([0]))])]))], "game 0 (seed 8): the episode goes on"),
            ([("player", "c"), ("games", .array([]))], "games must list at least one game"),
            ([("player", "c"), ("games", .array([.object([("seed", -1), ("actions", .array([]))])]))], "seed must be an integer"),
            ([("player", "c"), ("games", .array(games)), ("protocol", "memorize-4x4-v1")], "the config is not memorize-4x4-v1's: rows is 2"),
            ([("player", ""), ("games", .array(games))], "\"player\" must be 1 to 200 characters"),
            ([("games", .array(games))], "missing player"),
        ]
        for (params, reason) in refusals {
            do {
                _ = try session.call("games_record", params)
                Issue.record("\(params) was recorded")
            } catch {
                #expect(error.message.contains(reason), "\(reason) → \(error.message)")
            }
        }
    }
}
