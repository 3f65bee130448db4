// Games records through the C ABI: the published evaluation protocols, a record written from seeds and actions,
// and a record verified by replaying every game, so that a program in any language records and ranks alike.
import CGym2048
import GymCore
import GymGames
import GymJSON
import GymPlay

/// The published protocols as JSON, written once.
nonisolated(unsafe) let protocolsCString = staticCString(
    JSONValue.array(
        EvaluationProtocol.standard.map { evaluation in
            JSONValue.object([
                ("name", .string(evaluation.name)), ("summary", .string(evaluation.summary)), ("game", .string(evaluation.game.name)),
                ("config", JSONValue(options: evaluation.values, of: evaluation.game)),
                ("seed", .integer(Int128(evaluation.seed))), ("games", .integer(Int128(evaluation.games))),
            ])
        }
    ).serialized)

nonisolated(unsafe) let actionAlphabetCString = staticCString(String(decoding: ActionText.alphabet, as: UTF8.self))

@_cdecl("g2048_action_alphabet")
public func g2048ActionAlphabet() -> UnsafePointer<CChar> { UnsafePointer(actionAlphabetCString) }

@_cdecl("g2048_protocols")
public func g2048Protocols() -> UnsafePointer<CChar> { UnsafePointer(protocolsCString) }

@_cdecl("g2048_games_verify")
public func g2048GamesVerify(
    _ data: UnsafePointer<UInt8>?, _ length: Int64, _ protocolName: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        guard let result else { throw .argument("result must not be NULL") }
        guard length >= 0, length == 0 || data != nil else { throw .argument("data must not be NULL, and length must be 0 or more") }
        var required: EvaluationProtocol? = nil
        if let protocolName {
            let name = String(cString: protocolName)
            guard let named = EvaluationProtocol.named(name) else {
                throw .argument("unknown protocol \"\(name)\" (the protocols are \(EvaluationProtocol.names))")
            }
            required = named
        }
        let bytes = UnsafeBufferPointer(start: data, count: Int(length))
        do throws(GamesRecordError) {
            result.pointee = ThreadText.answer(try GamesRecord.parse(bytes).verify(against: required).json)
        } catch {
            throw .argument(error.description)
        }
    }
}

@_cdecl("g2048_games_record")
public func g2048GamesRecord(
    _ game: UnsafePointer<CChar>?, _ config: UnsafePointer<CChar>?, _ protocolName: UnsafePointer<CChar>?,
    _ player: UnsafePointer<CChar>?, _ games: Int64, _ seeds: UnsafePointer<UInt64>?, _ lengths: UnsafePointer<Int64>?,
    _ actions: UnsafePointer<UInt8>?, _ text: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        guard let game, let config, let player, let text else { throw .argument("game, config, player and text must not be NULL") }
        let registry = GameRegistry.standard
        let name = String(cString: game)
        guard let declaration = registry.named(name) else { throw .argument("unknown game \"\(name)\" (the games are \(registry.names))") }
        guard games >= 1, games <= Int64(GamesRecord.maxGames) else { throw .argument("games must be 1 to \(GamesRecord.maxGames), got \(games)") }
        guard let seeds, let lengths else { throw .argument("seeds and lengths must not be NULL") }
        let values = try optionValues(of: declaration, json: String(cString: config))
        var played: [(seed: UInt64, actions: [Int])] = []
        var offset = 0
        for index in 0..<Int(games) {
            let count = Int(lengths[index])
            guard count >= 0, count <= Int(Int32.max) else { throw .argument("lengths[\(index)] must be 0 to \(Int32.max), got \(count)") }
            guard count == 0 || actions != nil else { throw .argument("actions must not be NULL") }
            played.append((seeds[index], (0..<count).map { Int(actions![offset + $0]) }))
            offset += count
        }
        do throws(GamesRecordError) {
            let record = try GamesRecord(
                game: declaration, values: values, protocolName: protocolName.map { String(cString: $0) }, player: String(cString: player),
                played: played)
            try record.checkWritten()
            text.pointee = ThreadText.answer(record.text)
        } catch {
            throw .argument(error.description)
        }
    }
}

/// Every option of `game` from a JSON object of `make`'s options (the others at their defaults), each checked.
func optionValues(of game: GameDeclaration, json: String) throws(CallError) -> [String: OptionValue] {
    let reader: JSONReader
    do {
        reader = JSONReader(try JSONValue.parse(Array(json.utf8)), path: "config")
    } catch {
        throw .argument("config is not valid JSON (\(error))")
    }
    var values = game.defaults
    do throws(JSONReadError) {
        try reader.allowOnly(Set(game.options.map(\.name)))
        for option in game.options {
            if let member = try reader.optionalMember(option.name) { values[option.name] = try member.optionValue(option.constraint) }
        }
    } catch {
        throw .argument(Fields(reader: reader, line: 0).error(error).reason)
    }
    return values
}
