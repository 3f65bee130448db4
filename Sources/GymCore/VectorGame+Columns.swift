extension VectorGame {
    /// Writes every environment's results into `columns`: one address per column of
    /// `space.columns(finals:)`, in its order, each with room for ``count`` environments; a `nil` column is not
    /// written. The rewards, flags and finals are the last step's (zero after a reset).
    ///
    /// - Precondition: `columns` has one entry per column (with the same-step ones when ``autoresetMode`` is
    ///   `same_step` and `columns` includes them).
    @inlinable public func write(into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>) {
        let observationBytes = space.observation.count * space.observation.type.byteCount
        // Each environment written where it lies (an unsafe buffer's element is not copied first).
        lanes.environments.withUnsafeBufferPointer { environments in
            if let base = columns[0] {
                for index in environments.indices { environments[index].write(observation: base + index * observationBytes) }
            }
            for (column, declaration) in space.info.enumerated() {
                guard let base = columns[4 + column] else { continue }
                let stride = declaration.byteCount(environments: 1)
                for index in environments.indices { environments[index].write(info: column, to: base + index * stride) }
            }
        }
        if let base = columns[1] {
            switch space.rewardType {
            case .int64: for index in lanes.rewards.indices { (base + index * 8).storeBytes(of: Int64(lanes.rewards[index]), as: Int64.self) }
            default: for index in lanes.rewards.indices { (base + index * 8).storeBytes(of: lanes.rewards[index], as: Double.self) }
            }
        }
        Self.write(flags: lanes.terminations, to: columns[2])
        Self.write(flags: lanes.truncations, to: columns[3])
        let info = space.info
        let finalsAt = 4 + info.count
        guard columns.count > finalsAt else { return }
        Self.write(flags: lanes.finals, to: columns[finalsAt])
        // Each final column: the kept bytes of the environments in `finals`, zero elsewhere.
        var offset = 0
        for (column, declaration) in ([ResultColumn(name: "", type: space.observation.type, width: space.observation.count)] + info).enumerated() {
            let stride = declaration.byteCount(environments: 1)
            defer { offset += stride }
            guard let base = columns[finalsAt + 1 + column] else { continue }
            for index in lanes.environments.indices {
                let destination = base + index * stride
                if lanes.finals[index] {
                    finalBytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + index * finalStride + offset, byteCount: stride) }
                } else {
                    destination.initializeMemory(as: UInt8.self, repeating: 0, count: stride)
                }
            }
        }
    }

    @inlinable static func write(flags: [Bool], to column: UnsafeMutableRawPointer?) {
        guard let column else { return }
        for index in flags.indices { column.storeBytes(of: flags[index] ? 1 : 0, toByteOffset: index, as: UInt8.self) }
    }
}
