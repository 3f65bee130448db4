import GymCore
import GymGames
import GymJSON

extension GamesRecord {
    /// The longest player name a record may give.
    package static let maxPlayerLength = 200

    /// Reads a games record, checking every member of every line; nothing is replayed yet (``verify(against:)``).
    ///
    /// - Throws: ``GamesRecordError`` naming the line: not JSON, a missing, mistyped, out-of-range or unknown
    ///   member, a game out of sequence, an actions text with a character that is no action of the game or a
    ///   length other than `steps`, fewer or more games than the header says, or a file cut inside a line.
    package static func parse(_ bytes: some Collection<UInt8>, registry: GameRegistry = .standard) throws(GamesRecordError) -> GamesRecord {
        let bytes = Array(bytes)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        let cutOff = bytes.last != UInt8(ascii: "\n")
        if !cutOff { lines.removeLast() }
        guard let first = lines.firstIndex(where: { !isBlank($0) }) else {
            throw GamesRecordError("an empty record: a games record starts with its header line")
        }
        var (record, expected) = try header(lines[first], number: first + 1, cutOff: cutOff && first == lines.count - 1, registry: registry)
        // The lines there are, not the count a header claims: a forged header must not reserve gigabytes.
        record.games.reserveCapacity(min(expected, lines.count - first - 1))
        let replayer = try GameReplayer(game: record.game, values: record.values)
        for index in (first + 1)..<lines.count where !isBlank(lines[index]) {
            let number = index + 1
            guard record.games.count < expected else {
                throw GamesRecordError(line: number, "a line after the \(expected) games the header announces")
            }
            let fields = try object(lines[index], number: number, cutOff: cutOff && index == lines.count - 1)
            record.games.append(
                try game(fields, index: record.games.count, replayer: replayer, isIntegerScore: record.game.ranking.scoreColumn != nil))
        }
        if cutOff, let last = lines.last, !isBlank(last) {
            throw GamesRecordError(line: lines.count, "truncated record: the last line has no end of line")
        }
        guard record.games.count == expected else {
            throw GamesRecordError(
                "truncated record: the header announces \(expected) games, the file holds \(record.games.count)")
        }
        return record
    }

    /// Whether `bytes` start as a games record (a header line of `"type":"games"`) rather than as an episode
    /// record: what `g2048 replay` reads a file as.
    package static func starts(_ bytes: [UInt8]) -> Bool {
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
        return (try? JSONValue.parse(line))?["type"] == .string("games")
    }

    /// Why `player` cannot name a record's player, or `nil`: the reader's rule, which every writer checks too.
    static func playerRefusal(_ player: String) -> String? {
        let allowed =
            !player.isEmpty && player.count <= maxPlayerLength
            && !player.unicodeScalars.contains { $0.properties.generalCategory == .control }
        return allowed ? nil : "\"player\" must be 1 to \(maxPlayerLength) characters, none a control character"
    }

    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } }

    static func object(_ line: ArraySlice<UInt8>, number: Int, cutOff: Bool) throws(GamesRecordError) -> Fields {
        do {
            return Fields(json: try JSONValue.parse(line), line: number)
        } catch {
            throw GamesRecordError(line: number, cutOff ? "truncated record: the last line is incomplete (\(error))" : "not valid JSON (\(error))")
        }
    }

    /// The header: the record without its games, and the number of games it announces.
    static func header(_ line: ArraySlice<UInt8>, number: Int, cutOff: Bool, registry: GameRegistry) throws(GamesRecordError)
        -> (record: GamesRecord, games: Int)
    {
        let fields = try object(line, number: number, cutOff: cutOff)
        do throws(RecordError) {
            try fields.allowOnly(["type", "format", "version", "game", "protocol", "config", "player", "games"])
            guard try fields.string("type") == "games" else { throw fields.error("\"type\" must be \"games\": a games record starts with its header") }
            guard try fields.string("format") == format else { throw fields.error("\"format\" must be \"\(format)\"") }
            let version = try fields.integer("version", in: 1...Int128(Int.max))
            guard version <= Self.version else {
                throw fields.error("version \(version) is newer than this build reads (\(Self.version)): update Gym2048")
            }
            let name = try fields.string("game")
            guard let game = registry.named(name) else { throw fields.error("unknown game \"\(name)\" (the games are \(registry.names))") }
            let protocolName: String?
            if try fields.member("protocol") == .null { protocolName = nil } else { protocolName = try fields.string("protocol") }
            let values = try fields.object("config").gameOptions(of: game)
            let player = try fields.string("player")
            if let refusal = playerRefusal(player) { throw fields.error(refusal) }
            let count = try fields.integer("games", in: 1...Int128(maxGames))
            return (GamesRecord(game: game, values: values, protocolName: protocolName, player: player, games: []), Int(count))
        } catch {
            throw GamesRecordError(error)
        }
    }

    static func game(_ fields: Fields, index: Int, replayer: GameReplayer, isIntegerScore: Bool) throws(GamesRecordError) -> Game {
        let (names, actionCount) = (replayer.endNames, replayer.actionCount)
        do throws(RecordError) {
            try fields.allowOnly(["type", "index", "seed", "steps", "score", "outcome", "end", "actions"])
            guard try fields.string("type") == "game" else { throw fields.error("\"type\" must be \"game\" after the header") }
            let number = try fields.integer("index", in: 0...Int128(maxGames))
            guard number == index else { throw fields.error("game \(number) where game \(index) was expected: games are numbered in order from 0") }
            let seed = UInt64(try fields.integer("seed", in: 0...Int128(UInt64.max)))
            let steps = Int(try fields.integer("steps", in: 0...Int128(Int32.max)))
            let score = try fields.number("score")
            let outcome = try fields.reading { () throws(JSONReadError) in try fields.reader.member("outcome").choice(of: GameOutcome.Ending.self) }
            let endFields = try fields.object("end")
            try endFields.allowOnly(Set(names))
            var end: [GameOutcome.EndMember] = []
            for name in names {
                end.append(GameOutcome.EndMember(name: name, value: Int(try endFields.integer(name, in: Int128(Int64.min)...Int128(Int64.max)))))
            }
            let text = try fields.string("actions")
            let actions: [Int]
            switch ActionText.actions(text, count: actionCount) {
            case .success(let decoded): actions = decoded
            case .failure(let bad):
                throw fields.error("\"actions\": the character at offset \(bad.offset) is not one of the game's \(actionCount) actions")
            }
            guard actions.count == steps else { throw fields.error("\"actions\" holds \(actions.count) actions, \"steps\" says \(steps)") }
            let result = GameOutcome(steps: steps, score: score, isIntegerScore: isIntegerScore, outcome: outcome, end: end)
            return Game(seed: seed, actions: actions, result: result)
        } catch {
            throw GamesRecordError(error)
        }
    }
}
