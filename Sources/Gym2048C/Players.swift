// The trained-player functions of gym2048.h: a `g2048 train` network loaded in-process, valuing boards and picking
// moves as `g2048 eval` does, and the evaluation report `g2048 eval --json` prints, for any agent's games.
import CGym2048
import Game2048
import GymJSON
import Game2048Network
import Game2048Search
import GymServer

/// A player handle's box: the player behind a lock (calls take turns), and the process that loaded it.
typealias PlayerBox = LockedBox<TrainedPlayer>

/// The most boards one call takes: a bound on the caller's counts, far above a batch.
let maxBoardsPerCall: Int64 = 1 << 24

/// `count` boards of `rows × cols` exponents at `exponents`, each checked (0…50), for a batch call (a player's or a
/// solution's) that answers into `output`, its argument `name`, which must not be NULL when there are boards.
func boards<Output>(
    _ exponents: UnsafePointer<UInt8>?, count: Int64, rows: Int, cols: Int, answeringInto output: UnsafeMutablePointer<Output>?,
    named name: String
) throws(CallError) -> [Board] {
    guard count >= 0, count <= maxBoardsPerCall else {
        throw .argument("count must be 0 to \(maxBoardsPerCall), got \(count)")
    }
    guard count == 0 || exponents != nil else { throw .argument("boards must not be NULL") }
    let cells = rows * cols
    var boards: [Board] = []
    boards.reserveCapacity(Int(count))
    for index in 0..<Int(count) {
        let start = exponents! + index * cells
        let values = Array(UnsafeBufferPointer(start: start, count: cells))
        do {
            boards.append(try Board(rows: rows, cols: cols, exponents: values))
        } catch {
            throw .argument("board \(index): \(error.rule)")
        }
    }
    guard count == 0 || output != nil else { throw .argument("\(name) must not be NULL") }
    return boards
}

/// A move as the batch calls write it: its action index, -1 for none.
func actionCode(_ move: Direction?) -> Int8 { move.map { Int8($0.rawValue) } ?? -1 }

@_cdecl("g2048_player_load")
public func g2048PlayerLoad(_ path: UnsafePointer<CChar>?, _ player: UnsafeMutablePointer<Int64>?) -> g2048_status {
    call { () throws(CallError) in
        guard let path else { throw .argument("path must not be NULL") }
        guard let player else { throw .argument("player must not be NULL") }
        do throws(WeightsFileError) {
            player.pointee = Handles.add(box: PlayerBox(try TrainedPlayer(loading: String(cString: path))))
        } catch {
            throw .argument(error.description)
        }
    }
}

@_cdecl("g2048_player_destroy")
public func g2048PlayerDestroy(_ player: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(player, as: PlayerBox.self) }
}

@_cdecl("g2048_player_info")
public func g2048PlayerInfo(_ player: Int64, _ info: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(player, as: PlayerBox.self)
        guard let info else { throw .argument("info must not be NULL") }
        let text = box.value.withLock { player in
            return JSONValue.object([
                ("rows", .integer(Int128(player.network.rows))), ("cols", .integer(Int128(player.network.cols))),
                ("patterns", .integer(Int128(player.network.patterns.count))),
                ("games", .integer(Int128(player.metadata.games))),
                ("downgrade_tile", player.downgradeLimit.map { .integer(Int128(Board.value(ofExponent: $0))) } ?? .null),
                ("depths", .array([.integer(Int128(TrainedPlayer.depths.lowerBound)), .integer(Int128(TrainedPlayer.depths.upperBound))])),
                ("rules", JSONValue(rules: player.rules)),
            ]).serialized
        }
        info.pointee = ThreadText.answer(text)
    }
}

@_cdecl("g2048_player_values")
public func g2048PlayerValues(
    _ player: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ values: UnsafeMutablePointer<Float>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(player, as: PlayerBox.self)
        try box.value.withLock { player throws(CallError) in
            let given = try boards(
                exponents, count: count, rows: player.network.rows, cols: player.network.cols, answeringInto: values, named: "values")
            for (index, board) in given.enumerated() { values![index] = player.value(of: board) }
        }
    }
}

@_cdecl("g2048_player_moves")
public func g2048PlayerMoves(
    _ player: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ depth: Int32, _ moves: UnsafeMutablePointer<Int8>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(player, as: PlayerBox.self)
        guard TrainedPlayer.depths.contains(Int(depth)) else {
            throw .argument("depth must be \(OptionConstraint.expectation(integersIn: TrainedPlayer.depths)), got \(depth)")
        }
        try box.value.withLock { player throws(CallError) in
            let given = try boards(
                exponents, count: count, rows: player.network.rows, cols: player.network.cols, answeringInto: moves, named: "moves")
            for (index, board) in given.enumerated() { moves![index] = actionCode(player.move(on: board, depth: Int(depth))) }
        }
    }
}

@_cdecl("g2048_evaluation_report")
public func g2048EvaluationReport(
    _ player: UnsafePointer<CChar>?, _ rows: Int32, _ cols: Int32, _ scores: UnsafePointer<Int64>?,
    _ maxTiles: UnsafePointer<Int64>?, _ moves: UnsafePointer<Int64>?, _ games: Int64, _ seconds: Double,
    _ report: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        guard let player else { throw .argument("player must not be NULL") }
        guard let report else { throw .argument("report must not be NULL") }
        let size: Rules
        do throws(RulesError) { size = try Rules(rows: Int(rows), cols: Int(cols)) } catch {
            throw .argument("\(error.field == .cols ? "cols" : "rows") \(error.rule)")
        }
        guard games >= 1, games <= maxBoardsPerCall else { throw .argument("games must be 1 to \(maxBoardsPerCall), got \(games)") }
        guard let scores, let maxTiles, let moves else { throw .argument("scores, max_tiles and moves must not be NULL") }
        guard seconds.isFinite, seconds >= 0 else { throw .argument("seconds must be a finite number 0 or more, got \(seconds)") }
        var results: [GameResult] = []
        results.reserveCapacity(Int(games))
        for index in 0..<Int(games) {
            let tile = maxTiles[index]
            guard scores[index] >= 0, moves[index] >= 0, tile >= 0, tile <= 1 << 50, tile & (tile - 1) == 0 else {
                throw .argument(
                    "game \(index): score \(scores[index]), max tile \(tile) and moves \(moves[index]) must be 0 or more, "
                        + "the tile a power of two up to 2^50")
            }
            results.append(GameResult(score: scores[index], maxTile: Int(tile), moves: Int(moves[index])))
        }
        let evaluation = EvaluationReport(player: String(cString: player), games: results, seconds: seconds)
        report.pointee = ThreadText.answer(evaluation.json(board: size.sizeLabel))
    }
}
