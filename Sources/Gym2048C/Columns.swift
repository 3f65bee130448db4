// Every game through run-time columns: the games, a handle's columns, and reset and step into them.
import CGym2048
import Game2048
import GymCore
import GymGames
import GymJSON
import GymServer

nonisolated(unsafe) let gamesCString = staticCString(GameRegistry.standard.json.serialized)

@_cdecl("g2048_games")
public func g2048Games() -> UnsafePointer<CChar> { UnsafePointer(gamesCString) }

extension GameSession {
    /// The handle's columns: a declared game's, or 2048's buffers struct described as columns.
    var cColumns: GameColumns { declaredColumns?.columns ?? config.columns }
}

extension ServerConfig {
    /// 2048's buffers as columns, in the order of the struct's fields: what ``g2048_buffers`` holds, named as
    /// the protocol's info names them.
    var columns: GameColumns {
        let encoding = observation
        let dtype: ElementType =
            switch encoding.dtype {
            case .uint8: .uint8
            case .int64: .int64
            case .float32: .float32
            }
        let board = ResultColumn(name: GameColumns.observation, type: dtype, width: encoding.count(rows: rules.rows, cols: rules.cols))
        let info = TwentyFortyEightColumn.allCases.map { $0.declaration(board: board) }
        return GameColumns(observation: board, reward: .int64, info: info, finals: numEnvs > 1 && autoresetMode == .sameStep)
    }
}

/// 2048's info columns of the buffers struct, by the protocol's info names.
enum TwentyFortyEightColumn: Int, CaseIterable {
    case actionMask, score, maxTile, steps, invalid, won, afterstate, spawnCell, spawnExponent

    func declaration(board: ResultColumn) -> ResultColumn {
        switch self {
        case .actionMask: ResultColumn(name: InfoField.actionMask.rawValue, type: .bool, width: Direction.allCases.count)
        case .score: ResultColumn(name: InfoField.score.rawValue, type: .int64)
        case .maxTile: ResultColumn(name: InfoField.maxTile.rawValue, type: .int64)
        case .steps: ResultColumn(name: InfoField.steps.rawValue, type: .int64)
        case .invalid: ResultColumn(name: InfoField.invalid.rawValue, type: .bool)
        case .won: ResultColumn(name: InfoField.won.rawValue, type: .bool)
        case .afterstate: ResultColumn(name: InfoField.afterstate.rawValue, type: board.type, width: board.width)
        case .spawnCell: ResultColumn(name: "spawn_cell", type: .int8)
        case .spawnExponent: ResultColumn(name: "spawn_exponent", type: .uint8)
        }
    }

    /// The struct's info columns at `columns[first...]`.
    static func info(_ columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>, from first: Int) -> g2048_info_buffers {
        func at(_ column: Self) -> UnsafeMutableRawPointer? { columns[first + column.rawValue] }
        return g2048_info_buffers(
            action_masks: nil, scores: at(.score)?.assumingMemoryBound(to: Int64.self),
            max_tiles: at(.maxTile)?.assumingMemoryBound(to: Int64.self), steps: at(.steps)?.assumingMemoryBound(to: Int64.self),
            invalid: at(.invalid)?.assumingMemoryBound(to: UInt8.self), won: at(.won)?.assumingMemoryBound(to: UInt8.self),
            afterstates: at(.afterstate), spawn_cells: at(.spawnCell)?.assumingMemoryBound(to: Int8.self),
            spawn_exponents: at(.spawnExponent)?.assumingMemoryBound(to: UInt8.self),
            legal_actions: at(.actionMask)?.assumingMemoryBound(to: UInt8.self))
    }

    /// The buffers struct over `columns` (2048's, as ``ServerConfig/columns`` lists them).
    static func buffers(_ columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>, layout: GameColumns, numEnvs: Int) -> g2048_buffers {
        let finals = 4 + layout.infoCount
        let hasFinals = layout.hasFinals
        return g2048_buffers(
            num_envs: Int64(numEnvs), observations: columns[0], rewards: columns[1]?.assumingMemoryBound(to: Int64.self),
            terminations: columns[2]?.assumingMemoryBound(to: UInt8.self), truncations: columns[3]?.assumingMemoryBound(to: UInt8.self),
            info: info(columns, from: 4), finals: hasFinals ? columns[finals]?.assumingMemoryBound(to: UInt8.self) : nil,
            final_observations: hasFinals ? columns[finals + 1] : nil,
            final_info: hasFinals ? info(columns, from: finals + 2) : g2048_info_buffers(), reward_values: nil)
    }
}

/// The caller's column addresses, checked against the handle's columns.
func columnAddresses(_ columns: UnsafePointer<UnsafeMutableRawPointer?>?, _ count: Int64, layout: GameColumns) throws(CallError)
    -> UnsafeBufferPointer<UnsafeMutableRawPointer?>
{
    guard let columns else { throw .argument("columns must not be NULL") }
    guard count == Int64(layout.all.count) else {
        throw .argument("num_columns must be the handle's \(layout.all.count) (see g2048_columns), got \(count)")
    }
    let addresses = UnsafeBufferPointer(start: columns, count: Int(count))
    for index in 0..<4 where addresses[index] == nil { throw .argument("columns[\(index)] (\(layout.all[index].name)) must not be NULL") }
    return addresses
}

@_cdecl("g2048_columns")
public func g2048Columns(_ handle: Int64, _ columns: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let columns else { throw .argument("columns must not be NULL") }
        let layout = box.session.withLock { $0.cColumns }
        let json = JSONValue.array(
            layout.all.map { .object([("name", .string($0.name)), ("dtype", .string($0.type.rawValue)), ("width", .integer(Int128($0.width)))]) })
        columns.pointee = ThreadText.answer(json.serialized)
    }
}

@_cdecl("g2048_reset_columns")
public func g2048ResetColumns(
    _ handle: Int64, _ params: UnsafePointer<CChar>?, _ columns: UnsafePointer<UnsafeMutableRawPointer?>?, _ numColumns: Int64
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let parameters = try json(params, name: "params")
        try box.session.withLock { session throws(CallError) in
            let layout = session.cColumns
            let addresses = try columnAddresses(columns, numColumns, layout: layout)
            guard session.declaredColumns == nil else {
                return try CallError.rethrowing { () throws(RPCError) in try session.reset(params: parameters, into: addresses) }
            }
            var out = TwentyFortyEightColumn.buffers(addresses, layout: layout, numEnvs: session.config.numEnvs)
            let buffers = try CBuffers(&out, config: session.config)
            try CallError.rethrowing { () throws(RPCError) in try session.reset(params: parameters, into: buffers.buffers) }
            buffers.finish()
        }
    }
}

@_cdecl("g2048_step_columns")
public func g2048StepColumns(
    _ handle: Int64, _ actions: UnsafePointer<Int64>?, _ numActions: Int64, _ columns: UnsafePointer<UnsafeMutableRawPointer?>?,
    _ numColumns: Int64
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        try box.session.withLock { session throws(CallError) in
            let layout = session.cColumns
            let addresses = try columnAddresses(columns, numColumns, layout: layout)
            guard let actions else { throw .argument("actions must not be NULL") }
            guard numActions >= 0 else { throw .argument("num_actions must not be negative, got \(numActions)") }
            let given = UnsafeBufferPointer(start: actions, count: Int(numActions))
            guard session.declaredColumns == nil else {
                return try CallError.rethrowing { () throws(RPCError) in try session.step(actions: given, into: addresses) }
            }
            guard numActions == Int64(session.config.numEnvs) else {
                throw .argument("actions must have \(session.config.numEnvs) entries, got \(numActions)")
            }
            var out = TwentyFortyEightColumn.buffers(addresses, layout: layout, numEnvs: session.config.numEnvs)
            let buffers = try CBuffers(&out, config: session.config)
            try CallError.rethrowing { () throws(RPCError) in try session.step(given, into: buffers.buffers) }
            buffers.finish()
        }
    }
}
