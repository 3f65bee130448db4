import GymCore
import GymGames
import GymJSON
import GymPlay

extension ProtocolMethod {
    /// `games_record`: the games record (docs/RECORDS.md) of games the client played in this session's game and
    /// options, written by the engine from what the client kept: each game's reset seed and its actions. Every
    /// game is replayed to write what it gave, so an agent in any language records exactly as `g2048 eval
    /// --record` does. Params: `player`, `games` (a list of `{"seed", "actions"}`, the actions a list of
    /// integers), and `protocol` (a name, or null).
    static func gamesRecord(_ game: @escaping @Sendable (Session) -> (GameDeclaration, [String: OptionValue])) -> ProtocolMethod {
        ProtocolMethod(name: "games_record", parameters: ["player", "games", "protocol"]) { session, members throws(RPCError) in
            let (declaration, values) = game(session)
            let params = JSONReader(.object(members))
            let (player, protocolName, played) = try Params.reading { () throws(JSONReadError) in
                let player = try params.member("player").string()
                var protocolName: String? = nil
                if let given = try params.optionalMember("protocol"), given.value != .null { protocolName = try given.string() }
                let games = try params.member("games").array().map { game throws(JSONReadError) -> (seed: UInt64, actions: [Int]) in
                    try game.allowOnly(["seed", "actions"])
                    let seed = UInt64(try game.member("seed").integer(in: 0...Int128(UInt64.max)))
                    let actions = try game.member("actions").array().map { action throws(JSONReadError) in
                        Int(try action.integer(in: 0...Int128(ActionText.capacity - 1)))
                    }
                    return (seed, actions)
                }
                return (player, protocolName, games)
            }
            guard !played.isEmpty else { throw .invalidParams("games must list at least one game") }
            do throws(GamesRecordError) {
                let record = try GamesRecord(game: declaration, values: values, protocolName: protocolName, player: player, played: played)
                try record.checkWritten()
                return .object([("record", .string(record.text))])
            } catch {
                throw .invalidParams(error.description)
            }
        }
    }
}
