import CGym2048
import Game2048
import GymServer

/// The C buffers struct, checked and read into `VectorStepBuffers`, with the observation columns encoded.
///
/// The environments write exponents; under any other encoding the three board columns (observations, final
/// observations, afterstates) go through scratch exponent buffers that ``finish()`` encodes into the caller's.
struct CBuffers: ~Copyable {
    /// Where the environments write.
    let buffers: VectorStepBuffers
    /// The caller's board columns and the scratch behind each, when the encoding is not exponents.
    private let encoded: [(scratch: UnsafeMutablePointer<UInt8>, target: UnsafeMutableRawPointer, isAfterstate: Bool)]
    private let encoding: ObservationEncoding
    private let count: Int
    private let cells: Int
    /// The caller's rewards as doubles, copied from the integer rewards by ``finish()``.
    private let rewardValues: UnsafeMutablePointer<Double>?

    init(_ out: UnsafePointer<g2048_buffers>?, config: ServerConfig) throws(CallError) {
        guard let out else { throw .argument("out must not be NULL") }
        let c = out.pointee
        let count = config.numEnvs, cells = config.rules.cellCount, encoding = config.observation
        guard c.num_envs == Int64(count) else {
            throw .argument("out.num_envs must be the handle's \(count) (every column holds one entry per environment), got \(c.num_envs)")
        }
        guard let observations = c.observations else { throw .argument("out.observations must not be NULL") }
        guard let rewards = c.rewards else { throw .argument("out.rewards must not be NULL") }
        guard let terminations = c.terminations else { throw .argument("out.terminations must not be NULL") }
        guard let truncations = c.truncations else { throw .argument("out.truncations must not be NULL") }
        var encoded: [(scratch: UnsafeMutablePointer<UInt8>, target: UnsafeMutableRawPointer, isAfterstate: Bool)] = []
        let direct = encoding == .exponents
        func board(_ target: UnsafeMutableRawPointer?, isAfterstate: Bool = false) -> UnsafeMutablePointer<UInt8>? {
            guard let target else { return nil }
            if direct { return target.assumingMemoryBound(to: UInt8.self) }
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: count * cells)
            encoded.append((scratch, target, isAfterstate))
            return scratch
        }
        func info(_ c: g2048_info_buffers) -> VectorInfoBuffers {
            VectorInfoBuffers(
                actionMasks: c.action_masks, scores: c.scores, maxTiles: c.max_tiles, steps: c.steps,
                invalid: Self.flags(c.invalid), won: Self.flags(c.won), afterstates: board(c.afterstates, isAfterstate: true),
                spawnCells: c.spawn_cells, spawnExponents: c.spawn_exponents, legalActions: c.legal_actions)
        }
        let buffers = VectorStepBuffers(
            observations: board(observations)!, rewards: rewards, terminations: Self.flags(terminations)!,
            truncations: Self.flags(truncations)!, info: info(c.info), finals: Self.flags(c.finals),
            finalObservations: board(c.final_observations), finalInfo: info(c.final_info))
        self.buffers = buffers
        self.encoded = encoded
        self.encoding = encoding
        self.count = count
        self.cells = cells
        rewardValues = c.reward_values
    }

    /// Encodes what the environments wrote into the caller's board columns (nothing to do for exponents) and
    /// copies the rewards into `reward_values` when given. An absent afterstate stays all zero in every encoding,
    /// as the header promises (one-hot would mark its empties).
    func finish() {
        if let rewardValues {
            for index in 0..<count { rewardValues[index] = Double(buffers.rewards[index]) }
        }
        let size = encoding.count(rows: 1, cols: cells) * encoding.dtype.byteCount
        for (scratch, target, isAfterstate) in encoded {
            encoding.write(exponents: scratch, boards: count, cells: cells, to: target)
            guard isAfterstate else { continue }
            for index in 0..<count where UnsafeBufferPointer(start: scratch + index * cells, count: cells).allSatisfy({ $0 == 0 }) {
                (target + index * size).initializeMemory(as: UInt8.self, repeating: 0, count: size)
            }
        }
    }

    deinit {
        for (scratch, _, _) in encoded { scratch.deallocate() }
    }

    /// Whether any column of `info` is given.
    static func anyColumn(_ info: g2048_info_buffers) -> Bool {
        withUnsafeBytes(of: info) { bytes in bytes.bindMemory(to: UInt.self).contains { $0 != 0 } }
    }

    /// C's bytes 0/1 as Swift's `Bool`, which is stored the same way.
    static func flags(_ bytes: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<Bool>? {
        bytes.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: Bool.self) }
    }
}
