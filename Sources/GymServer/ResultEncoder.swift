import Game2048
import GymJSON

/// Writes boards, infos and step results as the protocol's JSON, per the configuration.
///
/// Results are written straight into bytes (and travel as `JSONValue.raw(_:)`):
/// a 256-environment step result is about 10 KB, and building a value tree for
/// it first would cost more than the 256 steps themselves.
struct ResultEncoder {
    let config: ServerConfig

    /// A board in the configured encoding and wire form.
    func write(observation board: Board, to w: inout JSONWriter) {
        let encoding = config.observation
        guard config.encoding.wire == .json else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(encoding.count(rows: board.rows, cols: board.cols) * encoding.dtype.byteCount)
            encoding.appendBytes(of: board, to: &bytes)
            return bytes.withUnsafeBytes { write(base64: $0, to: &w) }
        }
        // Nested lists in the encoding's shape: the brackets that close and open before each value.
        let shape = encoding.shape(rows: board.rows, cols: board.cols)
        var strides = shape
        for level in strides.indices.reversed().dropFirst() { strides[level] *= strides[level + 1] }
        var index = 0
        for _ in shape { w.punctuation("[") }
        encoding.forEachValue(of: board) { value in
            if index > 0 {
                let closing = strides.dropFirst().count { index % $0 == 0 }
                for _ in 0..<closing { w.punctuation("]") }
                w.punctuation(",")
                for _ in 0..<closing { w.punctuation("[") }
            }
            w.write(integer: value)
            index += 1
        }
        for _ in shape { w.punctuation("]") }
    }

    /// `bytes` as one JSON string of base64.
    func write(base64 bytes: UnsafeRawBufferPointer, to w: inout JSONWriter) {
        w.punctuation("\"")
        Base64.encode(bytes, into: &w.bytes)
        w.punctuation("\"")
    }

    /// Whether every per-environment column of a vector result travels as one base64 string.
    var batchesColumns: Bool { config.encoding.wire == .base64Batch }

    /// One column of a vector result: a JSON list of `count` entries, or under ``batchesColumns``
    /// one base64 string of `width` little-endian bytes per entry, which `packed` writes.
    func write(
        column count: Int, width: Int, to w: inout JSONWriter,
        packed: (inout [UInt8], Int) -> Void, each: (Int, inout JSONWriter) -> Void
    ) {
        if batchesColumns {
            var bytes = [UInt8](repeating: 0, count: count * width)
            for index in 0..<count { packed(&bytes, index) }
            bytes.withUnsafeBytes { write(base64: $0, to: &w) }
            return
        }
        w.punctuation("[")
        for index in 0..<count {
            if index > 0 { w.punctuation(",") }
            each(index, &w)
        }
        w.punctuation("]")
    }

    /// A column of 64-bit integers (little-endian int64 under ``batchesColumns``).
    func write(integers count: Int, to w: inout JSONWriter, _ value: (Int) -> Int64) {
        write(
            column: count, width: 8, to: &w,
            packed: { bytes, index in
                let bits = UInt64(bitPattern: value(index))
                for byte in 0..<8 { bytes[index * 8 + byte] = UInt8(truncatingIfNeeded: bits >> (8 * byte)) }
            }, each: { index, w in w.write(integer: value(index)) })
    }

    /// A column of flags (bytes 0 or 1 under ``batchesColumns``).
    func write(flags count: Int, to w: inout JSONWriter, _ value: (Int) -> Bool) {
        write(
            column: count, width: 1, to: &w, packed: { bytes, index in bytes[index] = value(index) ? 1 : 0 },
            each: { index, w in w.write(bool: value(index)) })
    }

    func observation(_ board: Board) -> JSONValue {
        var w = JSONWriter()
        write(observation: board, to: &w)
        return .raw(w.bytes)
    }

    func write(mask: ActionMask, to w: inout JSONWriter) {
        w.punctuation("[")
        for d in Direction.allCases {
            if d.rawValue > 0 { w.punctuation(",") }
            w.write(bool: mask.contains(d))
        }
        w.punctuation("]")
    }

    func write(spawn: Spawn?, to w: inout JSONWriter) {
        guard let spawn else { return w.raw("null") }
        w.raw("{\"cell\":")
        w.write(integer: spawn.cell)
        w.raw(",\"value\":")
        w.write(integer: spawn.value)
        w.punctuation("}")
    }

    func write(moves: [TileMovement], to w: inout JSONWriter) {
        w.punctuation("[")
        for (index, move) in moves.enumerated() {
            if index > 0 { w.punctuation(",") }
            w.raw("{\"from\":")
            w.write(integer: move.from)
            w.raw(",\"to\":")
            w.write(integer: move.to)
            w.raw(",\"merged\":")
            w.write(bool: move.merged)
            w.punctuation("}")
        }
        w.punctuation("]")
    }

    /// One field of an info record.
    func write(field: ReportedInfo, of info: StepInfo, moves: [TileMovement]?, to w: inout JSONWriter) {
        switch field {
        case .field(.actionMask): write(mask: info.actionMask, to: &w)
        case .field(.score): w.write(integer: info.score)
        case .field(.maxTile): w.write(integer: info.maxTile)
        case .field(.steps): w.write(integer: info.steps)
        case .field(.afterstate): if let board = info.afterstate { write(observation: board, to: &w) } else { w.raw("null") }
        case .field(.spawn): write(spawn: info.spawn, to: &w)
        case .field(.invalid): w.write(bool: info.invalid)
        case .field(.won): w.write(bool: info.won)
        case .moves: write(moves: moves ?? [], to: &w)
        }
    }

    /// One info object with the configured fields.
    func write(info: StepInfo, moves: [TileMovement]?, to w: inout JSONWriter) {
        w.punctuation("{")
        for (index, field) in config.info.enumerated() {
            if index > 0 { w.punctuation(",") }
            w.key(field.rawValue)
            write(field: field, of: info, moves: moves, to: &w)
        }
        w.punctuation("}")
    }

    func info(_ info: StepInfo, moves: [TileMovement]?) -> JSONValue {
        var w = JSONWriter()
        write(info: info, moves: moves, to: &w)
        return .raw(w.bytes)
    }

    /// A single environment's step result.
    func step(_ step: Step, moves: [TileMovement]) -> JSONValue {
        var w = JSONWriter()
        w.raw("{\"observation\":")
        write(observation: step.observation, to: &w)
        w.raw(",\"reward\":")
        w.write(integer: step.reward)
        w.raw(",\"terminated\":")
        w.write(bool: step.terminated)
        w.raw(",\"truncated\":")
        w.write(bool: step.truncated)
        w.raw(",\"info\":")
        write(info: step.info, moves: moves, to: &w)
        w.punctuation("}")
        return .raw(w.bytes)
    }

    /// The observation of every environment of a vector.
    func write(observations vector: VectorEnvironment, to w: inout JSONWriter) {
        let cells = vector.rules.cellCount
        // The vector already holds every board's exponent bytes: sent as they are when that is the encoding.
        let exponentBytes = config.observation == .exponents && config.encoding.wire != .json
        if batchesColumns {
            if exponentBytes { return vector.observations.withUnsafeBytes { write(base64: $0, to: &w) } }
            var bytes: [UInt8] = []
            for index in 0..<vector.count { config.observation.appendBytes(of: vector.observation(at: index), to: &bytes) }
            return bytes.withUnsafeBytes { write(base64: $0, to: &w) }
        }
        w.punctuation("[")
        for index in 0..<vector.count {
            if index > 0 { w.punctuation(",") }
            if exponentBytes {
                vector.observations.withUnsafeBytes { bytes in
                    write(base64: UnsafeRawBufferPointer(rebasing: bytes[(index * cells)..<((index + 1) * cells)]), to: &w)
                }
            } else {
                write(observation: vector.observation(at: index), to: &w)
            }
        }
        w.punctuation("]")
    }

    /// The info of every environment of a vector, as rows or as columns.
    func write(infos vector: VectorEnvironment, moves: [[TileMovement]]?, to w: inout JSONWriter) {
        switch config.infoLayout {
        case .rows:
            w.punctuation("[")
            for index in 0..<vector.count {
                if index > 0 { w.punctuation(",") }
                write(info: vector.info(at: index), moves: moves?[index], to: &w)
            }
            w.punctuation("]")
        case .columns:
            w.punctuation("{")
            for (fieldIndex, field) in config.info.enumerated() {
                if fieldIndex > 0 { w.punctuation(",") }
                w.key(field.rawValue)
                if field == .field(.actionMask) && config.encoding.wire != .json {
                    // One byte per environment, bit i = action i.
                    vector.infoColumns.actionMasks.withUnsafeBytes { write(base64: $0, to: &w) }
                    continue
                }
                if batchesColumns, write(batchedField: field, of: vector, to: &w) { continue }
                w.punctuation("[")
                for index in 0..<vector.count {
                    if index > 0 { w.punctuation(",") }
                    write(field: field, of: vector.info(at: index), moves: moves?[index], to: &w)
                }
                w.punctuation("]")
            }
            w.punctuation("}")
        }
    }

    /// Under ``batchesColumns``, the numeric info column `field` as one base64 string;
    /// false (nothing written) for the fields that stay JSON lists (`spawn`, `moves`).
    func write(batchedField field: ReportedInfo, of vector: VectorEnvironment, to w: inout JSONWriter) -> Bool {
        let count = vector.count, columns = vector.infoColumns
        switch field {
        case .field(.score): write(integers: count, to: &w) { columns.scores[$0] }
        case .field(.maxTile): write(integers: count, to: &w) { columns.maxTiles[$0] }
        case .field(.steps): write(integers: count, to: &w) { columns.steps[$0] }
        case .field(.invalid): write(flags: count, to: &w) { columns.invalid[$0] }
        case .field(.won): write(flags: count, to: &w) { columns.won[$0] }
        case .field(.afterstate):
            // An empty board where there is none (after a reset): all zero in every byte encoding but one-hot.
            // The columns hold exponents already; other encodings are made from the boards.
            guard config.observation != .exponents else {
                columns.afterstates.withUnsafeBytes { write(base64: $0, to: &w) }
                return true
            }
            var bytes: [UInt8] = []
            let empty = Board(rules: vector.rules)
            for index in 0..<count { config.observation.appendBytes(of: vector.info(at: index).afterstate ?? empty, to: &bytes) }
            bytes.withUnsafeBytes { write(base64: $0, to: &w) }
        case .field(.actionMask), .field(.spawn), .moves: return false
        }
        return true
    }

    /// A vector result, reset's or step's, members in the protocol's order: observations,
    /// `terminated` (after a reset, true for an environment whose episode is over at once: a dead
    /// custom board, a win tile at the start) and infos; a step (`stepped`) adds `reward`,
    /// `truncated`, and the final observations and infos under same-step autoreset.
    func vectorResult(_ vector: VectorEnvironment, stepped: Bool, moves: [[TileMovement]]?) -> JSONValue {
        var w = JSONWriter()
        // Reserved, not touched: the pages the result does not use cost no memory, and the
        // buffer never grows by copying (which would hold the result twice at that moment).
        w.bytes.reserveCapacity(ResultEncoder.largestResultBytes(config))
        w.raw("{\"observation\":")
        write(observations: vector, to: &w)
        if stepped {
            w.raw(",\"reward\":")
            let rewards = vector.rewards
            write(integers: vector.count, to: &w) { rewards[$0] }
        }
        var flags = [("terminated", vector.terminations)]
        if stepped { flags.append(("truncated", vector.truncations)) }
        for (name, values) in flags {
            w.raw(",\"\(name)\":")
            write(flags: vector.count, to: &w) { values[$0] }
        }
        w.raw(",\"info\":")
        write(infos: vector, moves: moves, to: &w)
        if stepped && vector.autoresetMode == .sameStep {
            w.raw(",\"final_observation\":[")
            for index in 0..<vector.count {
                if index > 0 { w.punctuation(",") }
                if let board = vector.finalObservation(at: index) { write(observation: board, to: &w) } else { w.raw("null") }
            }
            // The final step's info (its score, steps, …): `info` already holds the new episode's.
            w.raw("],\"final_info\":[")
            for index in 0..<vector.count {
                if index > 0 { w.punctuation(",") }
                if let info = vector.finalInfo(at: index) { write(info: info, moves: nil, to: &w) } else { w.raw("null") }
            }
            w.punctuation("]")
        }
        w.punctuation("}")
        return .raw(w.bytes)
    }

    /// The four afterstates of one environment, in action order.
    func write(afterstates environment: Environment, to w: inout JSONWriter) {
        let running = environment.currentPhase == .running
        w.punctuation("[")
        for a in environment.afterstates() {
            if a.direction.rawValue > 0 { w.punctuation(",") }
            w.raw("{\"action\":")
            w.write(string: a.direction.name)
            w.raw(",\"legal\":")
            w.write(bool: running && a.legal)
            w.raw(",\"reward\":")
            w.write(integer: a.legal ? a.reward : 0)
            w.raw(",\"afterstate\":")
            write(observation: a.board, to: &w)
            w.punctuation("}")
        }
        w.punctuation("]")
    }

    func afterstates(_ environment: Environment) -> JSONValue {
        var w = JSONWriter()
        write(afterstates: environment, to: &w)
        return .raw(w.bytes)
    }

    /// The text of every board, separated by blank lines, as one JSON string: written
    /// board by board, so the whole text never exists twice.
    func render(_ boards: some Sequence<Board>, colored: Bool) -> JSONValue {
        var w = JSONWriter()
        w.punctuation("\"")
        for (index, board) in boards.enumerated() {
            if index > 0 { w.raw("\\n\\n") }
            var part = JSONWriter()
            part.write(string: board.render(colored: colored))
            w.bytes.append(contentsOf: part.bytes.dropFirst().dropLast())
        }
        w.punctuation("\"")
        return .raw(w.bytes)
    }
}

// MARK: - Response size bound

extension ResultEncoder {
    /// The most bytes one result may take: `make` refuses configurations whose largest
    /// result could be larger, so that serving never needs more memory than about this.
    static let resultByteLimit = 256 << 20

    /// An upper bound on the bytes of one observation in `config`'s encoding.
    static func observationBytes(_ config: ServerConfig) -> Int {
        let encoding = config.observation
        let shape = encoding.shape(rows: config.rules.rows, cols: config.rules.cols)
        guard config.encoding.wire == .json else {
            // base64_batch: one string for the batch is never longer than one string per environment
            // (numeric columns as base64 are shorter than as digits), up to the quotes and padding
            // of a few strings, which the 1 024 bytes of ``largestResultBytes(_:)`` cover.
            return 4 * ((encoding.count(rows: config.rules.rows, cols: config.rules.cols) * encoding.dtype.byteCount + 2) / 3) + 2
        }
        // Each list: its elements, a comma after each, and two brackets.
        return shape.reversed().reduce(encoding.maxDigits) { element, length in length * (element + 1) + 2 }
    }

    /// An upper bound on the bytes of each method's result in `config`, per environment,
    /// and the method with the largest.
    static func largestResultBytesPerEnvironment(_ config: ServerConfig) -> (bytes: Int, method: String) {
        let observation = observationBytes(config)
        let cells = config.rules.cellCount
        // Every fixed field at its longest (64-bit numbers, "false", a spawn) and its key: under 320 bytes.
        var info = 320
        if config.info.contains(.field(.afterstate)) { info += observation }
        if config.info.contains(.moves) { info += cells * 40 + 2 }  // {"from":63,"to":63,"merged":false},
        let reset = observation + info + 8  // and a "terminated" flag
        // Reward (a 64-bit integer), two flags, commas; same_step adds the final observation and info.
        let step = observation + info + 40 + (config.autoresetMode == .sameStep ? observation + info + 2 : 0)
        // Four {"action":"right","legal":false,"reward":…,"afterstate":…} objects.
        let afterstates = 4 * (observation + 80) + 2
        // An ANSI-coloured cell is at most 55 bytes of JSON (escapes and a 19-digit tile); rows end in "\n".
        let render = cells * 60 + config.rules.rows * 2 + 4
        return [(reset, "reset"), (step, "step"), (afterstates, "afterstates"), (render, "render")].max { $0.0 < $1.0 }!
    }

    /// An upper bound on the bytes of any result in `config`.
    static func largestResultBytes(_ config: ServerConfig) -> Int {
        // Keys and brackets around the per-environment parts (columns layout: each key once).
        config.numEnvs * largestResultBytesPerEnvironment(config).bytes + 1_024
    }
}
