import Game2048

/// Turns boards, infos and step results into the protocol's JSON, per the configuration.
struct ResultEncoder {
    let config: ServerConfig

    /// A board in the configured encoding.
    func observation(_ board: Board) -> JSONValue {
        let rows = board.rows, cols = board.cols
        switch config.encoding {
        case .exponents:
            let exponents = board.exponents
            return .array((0..<rows).map { r in .array((0..<cols).map { .integer(Int128(exponents[r * cols + $0])) }) })
        case .values:
            let values = board.values
            return .array((0..<rows).map { r in .array((0..<cols).map { .integer(Int128(values[r * cols + $0])) }) })
        case .onehot:
            let planes = board.encoded(.oneHot(channels: config.onehotChannels))
            return .array((0..<config.onehotChannels).map { k in
                .array((0..<rows).map { r in
                    .array((0..<cols).map { .integer(planes[(k * rows + r) * cols + $0] == 0 ? 0 : 1) })
                })
            })
        case .base64:
            return .string(Base64.encode(board.exponents))
        }
    }

    func mask(_ mask: ActionMask) -> JSONValue { .array(mask.booleans.map { .bool($0) }) }

    func spawn(_ spawn: Spawn?) -> JSONValue {
        spawn.map { .object([("cell", .integer(Int128($0.cell))), ("value", .integer(Int128($0.value)))]) } ?? .null
    }

    func moves(_ moves: [TileMovement]) -> JSONValue {
        .array(moves.map { .object([("from", .integer(Int128($0.from))), ("to", .integer(Int128($0.to))), ("merged", .bool($0.merged))]) })
    }

    /// One info object with the configured fields.
    func info(_ info: StepInfo, moves: [TileMovement]?) -> JSONValue {
        .object(config.info.map { field in (field, value(of: field, info, moves: moves)) })
    }

    func value(of field: String, _ info: StepInfo, moves: [TileMovement]?) -> JSONValue {
        switch field {
        case "action_mask": mask(info.actionMask)
        case "score": .integer(Int128(info.score))
        case "max_tile": .integer(Int128(info.maxTile))
        case "steps": .integer(Int128(info.steps))
        case "afterstate": info.afterstate.map(observation) ?? .null
        case "spawn": spawn(info.spawn)
        case "invalid": .bool(info.invalid)
        case "won": .bool(info.won)
        default: self.moves(moves ?? [])
        }
    }

    /// The observation of every environment of a vector.
    func vectorObservations(_ vector: VectorEnvironment) -> JSONValue {
        let cells = vector.rules.cellCount
        if config.encoding == .base64 {
            return vector.observations.withUnsafeBytes { bytes in
                .array((0..<vector.count).map { index in
                    var text: [UInt8] = []
                    Base64.encode(UnsafeRawBufferPointer(rebasing: bytes[(index * cells)..<((index + 1) * cells)]), into: &text)
                    return .string(String(decoding: text, as: UTF8.self))
                })
            }
        }
        return .array((0..<vector.count).map { observation(vector.observation(at: $0)) })
    }

    /// The info of every environment of a vector, as rows or as columns.
    func vectorInfos(_ vector: VectorEnvironment, moves: [[TileMovement]]?) -> JSONValue {
        switch config.infoLayout {
        case .rows:
            return .array((0..<vector.count).map { info(vector.infos[$0], moves: moves?[$0]) })
        case .columns:
            return .object(config.info.map { field in
                if field == "action_mask" && config.encoding == .base64 {
                    // One byte per environment, bit i = action i.
                    return (field, .string(Base64.encode(vector.infos.map(\.actionMask.rawValue))))
                }
                return (field, .array((0..<vector.count).map { value(of: field, vector.infos[$0], moves: moves?[$0]) }))
            })
        }
    }

    /// A vector step's result.
    func vectorStep(_ vector: VectorEnvironment, moves: [[TileMovement]]?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("observation", vectorObservations(vector)),
            ("reward", .array(vector.rewards.map { .integer(Int128($0)) })),
            ("terminated", .array(vector.terminations.map { .bool($0) })),
            ("truncated", .array(vector.truncations.map { .bool($0) })),
            ("info", vectorInfos(vector, moves: moves)),
        ]
        if vector.autoresetMode == .sameStep {
            members.append(("final_observation", .array(vector.finalObservations.map { $0.map(observation) ?? .null })))
        }
        return .object(members)
    }

    /// The four afterstates of one environment, in action order.
    func afterstates(_ environment: Environment) -> JSONValue {
        let running = environment.currentPhase == .running
        return .array(environment.afterstates().map { a in
            .object([
                ("action", .string(a.direction.name)),
                ("legal", .bool(running && a.legal)),
                ("reward", .integer(Int128(a.legal ? a.reward : 0))),
                ("afterstate", observation(a.board)),
            ])
        })
    }
}
