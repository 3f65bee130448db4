import GymCore
import GymJSON

extension DeclaredSession {
    /// A `reset` or `step` result, read from the columns the C ABI gets: the observation, (a step's reward),
    /// `terminated`, (a step's `truncated`), the info; under `same_step`, a step's final observations and infos
    /// (`null` for an environment that did not end). One environment's values, or a list per environment.
    func result(stepped: Bool) -> JSONValue {
        let store = ColumnStore(columns: columns, count: numEnvs)
        store.withPointers { instance.write(into: $0) }
        return Self.result(from: store, space: instance.space, stepped: stepped)
    }

    /// The JSON result the columns in `store` hold, for a game of `space`.
    static func result(from store: ColumnStore, space: GameSpace, stepped: Bool) -> JSONValue {
        let (columns, numEnvs) = (store.columns, store.count)
        let single = numEnvs == 1
        func each(_ value: (Int) -> JSONValue) -> JSONValue { single ? value(0) : .array((0..<numEnvs).map(value)) }
        func info(_ first: Int, _ index: Int) -> JSONValue {
            .object(space.info.enumerated().map { offset, column in (column.name, store.value(first + offset, index)) })
        }
        var members: [(String, JSONValue)] = [("observation", each { store.observation(0, $0, shape: space.observation.shape) })]
        if stepped { members.append(("reward", each { store.value(1, $0) })) }
        members.append(("terminated", each { store.value(2, $0) }))
        if stepped { members.append(("truncated", each { store.value(3, $0) })) }
        members.append(("info", each { info(4, $0) }))
        if stepped && columns.hasFinals {
            let finals = 4 + columns.infoCount
            let ended = { (index: Int) in store.value(finals, index) == .bool(true) }
            members.append(("final_observation", each { ended($0) ? store.observation(finals + 1, $0, shape: space.observation.shape) : .null }))
            members.append(("final_info", each { ended($0) ? info(finals + 2, $0) : .null }))
        }
        return .object(members)
    }
}

/// Room for every column of a result, owned by the session for one call: what a JSON result is read from.
final class ColumnStore {
    let columns: GameColumns
    let count: Int
    /// One zeroed allocation per column, freed with the store.
    let addresses: [UnsafeMutableRawPointer?]

    init(columns: GameColumns, count: Int) {
        self.columns = columns
        self.count = count
        addresses = columns.all.map { column in
            let bytes = column.byteCount(environments: count)
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 8)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            return memory
        }
    }

    deinit {
        for address in addresses { address?.deallocate() }
    }

    /// `body` with one address per column.
    func withPointers<Failure: Error>(_ body: (UnsafeBufferPointer<UnsafeMutableRawPointer?>) throws(Failure) -> Void) throws(Failure) {
        try addresses.withUnsafeBufferPointer(body)
    }

    /// Value `offset` of environment `index` in column `column`.
    func scalar(_ column: Int, _ index: Int, _ offset: Int) -> JSONValue {
        let declaration = columns.all[column]
        let at = (index * declaration.width + offset) * declaration.type.byteCount
        let raw = UnsafeRawPointer(addresses[column]!)
        return switch declaration.type {
        case .bool: .bool(raw.load(fromByteOffset: at, as: UInt8.self) != 0)
        case .uint8: .integer(Int128(raw.load(fromByteOffset: at, as: UInt8.self)))
        case .int8: .integer(Int128(raw.load(fromByteOffset: at, as: Int8.self)))
        case .int64: .integer(Int128(raw.loadUnaligned(fromByteOffset: at, as: Int64.self)))
        case .float32: .double(Double(raw.loadUnaligned(fromByteOffset: at, as: Float.self)))
        case .float64: .double(raw.loadUnaligned(fromByteOffset: at, as: Double.self))
        }
    }

    /// Environment `index`'s value of `column`: one value, or a list of its width.
    func value(_ column: Int, _ index: Int) -> JSONValue {
        let width = columns.all[column].width
        return width == 1 ? scalar(column, index, 0) : .array((0..<width).map { scalar(column, index, $0) })
    }

    /// Environment `index`'s observation in `column`, as nested lists of `shape`.
    func observation(_ column: Int, _ index: Int, shape: [Int]) -> JSONValue {
        func nested(_ level: Int, _ start: Int) -> JSONValue {
            guard level < shape.count else { return scalar(column, index, start) }
            let stride = shape[(level + 1)...].reduce(1, *)
            return .array((0..<shape[level]).map { nested(level + 1, start + $0 * stride) })
        }
        return nested(0, 0)
    }
}
