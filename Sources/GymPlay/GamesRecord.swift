import GymCore
import GymGames
import GymJSON

/// A player's games, compactly: a header line and one line a game holding its seed, its actions (one character
/// each, ``ActionText``) and what the player claims came of them. Nothing else is needed to replay a game, so a
/// ranking replays every one and keeps only what the replay gives; 1 000 4×4 games of a trained player take about
/// 2 MB, where episode records (a line a step) take a hundred times as much.
///
///     {"type":"games","format":"gym2048-games","version":1,"game":"2048","protocol":"2048-4x4-v1","config":{…},"player":"greedy","games":1000}
///     {"type":"game","index":0,"seed":…,"steps":86,"score":736,"outcome":"terminated","end":{"score":736,"max_tile":64,"steps":86},"actions":"3032…"}
///
/// Written by `g2048 eval --record`, Python's `evaluate(…, record=)` and the C ABI's `g2048_games_record`; read
/// and replayed by ``parse(_:registry:)``, ``verify(against:)``, `g2048 replay` and `g2048_games_verify`.
package struct GamesRecord: Sendable {
    /// The header's `format`.
    package static let format = "gym2048-games"
    /// The version this build writes and the newest it reads.
    package static let version = 1
    /// The most games a record may hold.
    package static let maxGames = 10_000_000
    /// The largest record read, in bytes.
    package static let maxBytes = 1 << 30

    /// The game.
    package var game: GameDeclaration
    /// Every option's value.
    package var values: [String: OptionValue]
    /// The evaluation protocol the games were played under, by name (`EvaluationProtocol`), or `nil`.
    package var protocolName: String?
    /// Who played.
    package var player: String
    /// The games, in order.
    package var games: [Game]

    /// One game: its seed, its actions and what they gave.
    package struct Game: Hashable, Sendable {
        /// The seed of the episode's reset.
        package var seed: UInt64
        /// Every action, in order.
        package var actions: [Int]
        /// What the actions gave (claimed by the record, or given by a replay).
        package var result: GameOutcome
    }

    /// A record of `games` played by `player`, each game's result computed by replaying it: what every writer
    /// writes, so that a record is never written with results its actions do not give.
    ///
    /// - Throws: ``GamesRecordError`` when a game does not replay (an action refused, an episode that ends early
    ///   or does not end).
    package init(
        game: GameDeclaration, values: [String: OptionValue], protocolName: String?, player: String,
        played: [(seed: UInt64, actions: [Int])]
    ) throws(GamesRecordError) {
        self.init(game: game, values: game.defaults.merging(values) { $1 }, protocolName: protocolName, player: player, games: [])
        var replayer = try GameReplayer(game: game, values: self.values)
        for (index, game) in played.enumerated() {
            let result = try replayer.replay(seed: game.seed, actions: game.actions, game: index)
            games.append(Game(seed: game.seed, actions: game.actions, result: result))
        }
    }

    /// A record as read, before any replay.
    package init(game: GameDeclaration, values: [String: OptionValue], protocolName: String?, player: String, games: [Game]) {
        (self.game, self.values, self.protocolName, self.player, self.games) = (game, values, protocolName, player, games)
    }

    /// The record's text: JSON Lines, each line ended by `\n`.
    package var text: String {
        var text = headerLine + "\n"
        for (index, game) in games.enumerated() { text += line(game, index: index) + "\n" }
        return text
    }

    var headerLine: String {
        JSONValue.object([
            ("type", "games"), ("format", .string(Self.format)), ("version", .integer(Int128(Self.version))),
            ("game", .string(game.name)), ("protocol", protocolName.map(JSONValue.string) ?? .null),
            ("config", configJSON), ("player", .string(player)), ("games", .integer(Int128(games.count))),
        ]).serialized
    }

    /// Every option's value, in the game's order.
    var configJSON: JSONValue { JSONValue(options: values, of: game) }

    func line(_ game: Game, index: Int) -> String {
        JSONValue.object([
            ("type", "game"), ("index", .integer(Int128(index))), ("seed", .integer(Int128(game.seed))),
            ("steps", .integer(Int128(game.result.steps))), ("score", game.result.scoreJSON),
            ("outcome", .string(game.result.outcome.rawValue)),
            ("end", .object(game.result.end.map { ($0.name, .integer(Int128($0.value))) })),
            ("actions", .string(ActionText.text(game.actions))),
        ]).serialized
    }
}

/// What came of a game: what a record line claims and a replay gives, compared member by member.
package struct GameOutcome: Hashable, Sendable {
    /// How an episode ended.
    package enum Ending: String, Hashable, Sendable, CaseIterable {
        /// By the rules.
        case terminated
        /// Cut by a step limit.
        case truncated
    }

    /// The steps taken.
    package var steps: Int
    /// The score, as the game's `RankingMeasure` defines it.
    package var score: Double
    /// Whether the score is an integer column (written without a fraction).
    package var isIntegerScore: Bool
    /// How the episode ended.
    package var outcome: Ending
    /// The game's integer info columns at the end, in the game's order.
    package var end: [EndMember]

    /// One integer info column's value at the end.
    package struct EndMember: Hashable, Sendable {
        package var name: String
        package var value: Int
    }

    var scoreJSON: JSONValue { isIntegerScore ? .integer(Int128(score)) : .double(score) }
}

/// Why a games record cannot be read, or does not replay as it says: the game, when one is at fault, and why.
package struct GamesRecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line at fault (1-based), or 0.
    package var line: Int
    /// The game at fault (0-based), or `nil`.
    package var game: Int?
    /// The seed of that game, when known.
    package var seed: UInt64?
    /// Why.
    package var reason: String

    package init(line: Int = 0, game: Int? = nil, seed: UInt64? = nil, _ reason: String) {
        (self.line, self.game, self.seed, self.reason) = (line, game, seed, reason)
    }

    package init(_ error: RecordError) { self.init(line: error.line, error.reason) }

    /// "line 3: game 1 (seed 42): step 7: action 3 (left) is not legal: nothing moves".
    package var description: String {
        var text = line > 0 ? "line \(line): " : ""
        if let game { text += "game \(game)" + (seed.map { " (seed \($0))" } ?? "") + ": " }
        return text + reason
    }
}
