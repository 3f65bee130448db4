/// `count` independent environments with the same rules, stepped together.
///
///     var envs = VectorEnvironment(rules: Rules(), count: 1_024)
///     envs.reset(seed: 42)
///     var actions = [Direction](repeating: .up, count: envs.count)
///     for _ in 0..<100 {
///         for i in 0..<envs.count { actions[i] = envs.actionMask(at: i).direction(at: 0) }
///         try envs.step(actions)
///         // envs.rewards, envs.terminations, envs.observations …
///     }
///
/// The environments' state lives in flat columns (boards, generators, episode counters: a
/// structure of arrays), and each step writes its results straight into flat buffers: the
/// environment's own (``observations``, ``rewards``, ``terminations``, ``truncations``,
/// ``info(at:)``), or the caller's (``step(_:into:)``, ``reset(seeds:board:into:)``), which an
/// in-process binding hands over so that nothing is copied. Stepping allocates nothing.
///
/// Every environment plays exactly as a single ``Environment`` would with the same seed and
/// actions (the tests check this for every autoreset mode and board size). Seeding:
/// `reset(seed: s)` seeds environment `i` with the `i + 1`-th output of `SplitMix64(seed: s)`, so
/// every environment has its own stream and the whole batch is reproducible from one number;
/// `reset()` continues each stream.
///
/// An environment can be over as soon as it is reset (a dead custom board, or a
/// win tile a spawn already reached): its entry in ``terminations`` is then true
/// after the reset, and the next step treats it like an episode that just ended
/// (a new episode under `AutoresetMode.nextStep` and `AutoresetMode.sameStep`,
/// ``VectorStepError/episodesOver(indices:)`` under `AutoresetMode.disabled`).
public struct VectorEnvironment: Sendable {
    /// The rules shared by every environment.
    public let rules: Rules
    /// The number of environments.
    public let count: Int
    /// What happens when an episode ends.
    public let autoresetMode: AutoresetMode
    /// The info fields recorded in ``infoColumns`` (and read by ``info(at:)``) at each step: each
    /// costs a write per environment. The buffers of ``step(_:into:)`` choose their own.
    public let infoFields: Set<InfoField>
    /// ``infoFields``, as a step tests them.
    let recordedFields: InfoFieldFlags

    let limits: EpisodeRules
    var lanes: VectorLanes
    var results: VectorResults
    /// Whether 4×4 lanes move eight at a time in AVX-512 registers (where the processor has them) rather than in
    /// Swift's stages: the same results either way (the tests compare them).
    var movesLanesTogether = PackedMoves.kernelAvailable

    /// Creates `count` environments. Call ``reset(seed:)`` before the first step.
    ///
    /// - Parameters:
    ///   - rules: the rules every environment plays by.
    ///   - count: how many environments.
    ///   - autoresetMode: what a step does with an environment whose episode ended.
    ///   - seed: seeds the generators as ``reset(seed:)`` does; a first reset with a seed replaces them.
    ///   - infoFields: the fields ``infoColumns`` records (all by default).
    /// - Precondition: `count >= 1`.
    public init(
        rules: Rules = Rules(), count: Int, autoresetMode: AutoresetMode = .nextStep, seed: UInt64 = 0,
        infoFields: Set<InfoField> = Set(InfoField.allCases)
    ) {
        precondition(count >= 1, "a vector environment needs at least 1 environment, got \(count)")
        self.rules = rules
        self.count = count
        self.autoresetMode = autoresetMode
        self.infoFields = infoFields
        recordedFields = InfoFieldFlags(infoFields)
        limits = EpisodeRules(rules)
        lanes = VectorLanes(rules: rules, generators: VectorEnvironment.seeds(from: seed, count: count).map(Xoshiro256StarStar.init(seed:)))
        results = VectorResults(count: count, cells: rules.cellCount)
    }

    /// The per-environment seeds derived from one base seed.
    public static func seeds(from seed: UInt64, count: Int) -> [UInt64] { SplitMix64.seeds(from: seed, count: count) }

    // MARK: Results

    /// The last observation of every environment: `count × rows × cols` exponents, environment-major.
    public var observations: [UInt8] { results.observations }
    /// The last reward of every environment.
    public var rewards: [Int64] { results.rewards }
    /// Whether each environment's last step terminated its episode.
    public var terminations: [Bool] { results.terminations }
    /// Whether each environment's last step truncated its episode.
    public var truncations: [Bool] { results.truncations }

    /// The info of every environment's last reset or step, as columns.
    public var infoColumns: VectorInfoColumns { results.info }
    /// Under `AutoresetMode.sameStep`: which environments ended and restarted during the last step.
    public var finals: [Bool] { results.finals }
    /// Under `AutoresetMode.sameStep`: the final observations of the environments in ``finals``
    /// (`count × rows × cols` exponents, zero for the others).
    public var finalObservationExponents: [UInt8] { results.finalObservations }
    /// Under `AutoresetMode.sameStep`: the final steps' info of the environments in ``finals``.
    public var finalInfoColumns: VectorInfoColumns { results.finalInfo }

    /// Every environment's ``info(at:)``, as an array (built on each call: O(`count`)).
    public var infos: [StepInfo] { (0..<count).map(info(at:)) }
    /// Every environment's ``actionMask(at:)``, as an array (built on each call: O(`count`)).
    public var actionMasks: [ActionMask] { (0..<count).map(actionMask(at:)) }
    /// Every environment's ``finalObservation(at:)``, as an array (built on each call: O(`count`)).
    public var finalObservations: [Board?] { (0..<count).map(finalObservation(at:)) }
    /// Every environment's ``finalInfo(at:)``, as an array (built on each call: O(`count`)).
    public var finalInfos: [StepInfo?] { (0..<count).map(finalInfo(at:)) }

    /// The last observation of environment `index` as a board.
    public func observation(at index: Int) -> Board {
        VectorEnvironment.board(results.observations, at: index, rules: rules)
    }

    /// The info of environment `index`'s last reset or step. A field not in ``infoFields`` reads as
    /// it would after a reset (empty mask, 0, `nil`, false).
    public func info(at index: Int) -> StepInfo {
        results.info.info(at: index, fields: infoFields, cells: rules.cellCount, rules: rules)
    }

    /// The legal moves of environment `index`'s current observation (empty while it waits for its
    /// reset), whatever ``infoFields`` records.
    public func actionMask(at index: Int) -> ActionMask {
        precondition(index >= 0 && index < count, "environment \(index) out of range 0..<\(count)")
        return lanes.episodes[index].mask
    }

    /// Under `AutoresetMode.sameStep`: the final board of environment `index` if it was reset
    /// during the last step, else `nil`.
    public func finalObservation(at index: Int) -> Board? {
        results.finals[index] ? VectorEnvironment.board(results.finalObservations, at: index, rules: rules) : nil
    }

    /// Under `AutoresetMode.sameStep`: the info of environment `index`'s final step (its final
    /// score, steps, …) if it was reset during the last step, else `nil`.
    public func finalInfo(at index: Int) -> StepInfo? {
        results.finals[index] ? results.finalInfo.info(at: index, fields: infoFields, cells: rules.cellCount, rules: rules) : nil
    }

    static func board(_ exponents: [UInt8], at index: Int, rules: Rules) -> Board {
        let cells = rules.cellCount
        // The buffers only ever hold the exponents of boards the environments made.
        var board = Board(rules: rules)
        for cell in 0..<cells { board.storage[cell] = exponents[index * cells + cell] }
        return board
    }

    // MARK: State

    /// Environment `index` itself, for lookahead (`afterstates()`) or inspection: a copy, so
    /// stepping it leaves the batch unchanged.
    public func environment(at index: Int) -> Environment {
        precondition(index >= 0 && index < count, "environment \(index) out of range 0..<\(count)")
        return Environment(rules: rules, rng: lanes.generators[index], board: board(at: index), episode: lanes.episodes[index])
    }

    /// The current board of environment `index` (after a same-step reset: the new episode's).
    func board(at index: Int) -> Board {
        isPacked(index) ? Board(Bitboard(rawValue: lanes.packed[index])) : lanes.boards[index]
    }

    /// Whether lane `index` plays on the packed bitboard.
    @inline(__always)
    func isPacked(_ index: Int) -> Bool {
        rules.rows == 4 && rules.cols == 4 && lanes.episodes[index].highest < 15
    }

    /// Whether every environment has been reset at least once (stepping needs it).
    public var isReset: Bool { lanes.unstarted == 0 }

    /// The environments whose episodes are over, waiting for a reset.
    public var finishedIndices: [Int] { (0..<count).filter { lanes.episodes[$0].isOver } }

    // MARK: Reset

    /// Resets every environment.
    ///
    /// - Parameter seed: seeds the batch (see the type's discussion); `nil` continues each stream.
    public mutating func reset(seed: UInt64? = nil) {
        reset(seeds: VectorEnvironment.perEnvironment(seed, count: count))
    }

    /// Resets every environment to the same given board (tests, curricula, search).
    ///
    /// - Parameters:
    ///   - seed: seeds the batch as ``reset(seed:)`` does; `nil` continues each stream.
    ///   - board: the position every environment starts from.
    /// - Throws: what ``Environment/reset(seed:board:)`` throws for a board that doesn't fit the rules;
    ///   nothing changes then.
    public mutating func reset(seed: UInt64? = nil, board: Board) throws(RulesError) {
        try reset(seeds: VectorEnvironment.perEnvironment(seed, count: count), board: board)
    }

    /// Resets every environment with its own seed: environment `i` starts exactly as a single
    /// ``Environment/reset(seed:)`` with `seeds[i]` would (Gymnasium's `reset(seed=[…])`);
    /// a `nil` entry continues that environment's stream.
    ///
    /// - Precondition: `seeds.count == count`.
    public mutating func reset(seeds: [UInt64?]) {
        // Without a board nothing can throw.
        try? reset(seeds: seeds, board: nil)
    }

    /// Resets every environment to the same given board, each with its own seed as ``reset(seeds:)`` does.
    ///
    /// - Throws: what ``Environment/reset(seed:board:)`` throws for a board that doesn't fit the rules;
    ///   nothing changes then.
    /// - Precondition: `seeds.count == count`.
    public mutating func reset(seeds: [UInt64?], board: Board?) throws(RulesError) {
        if let board { try Environment.validate(board, for: rules) }
        withOwnedBuffers { environments, buffers in
            // Validated above, so this cannot throw.
            try? environments.reset(seeds: seeds, board: board, into: buffers)
        }
    }

    /// Resets one environment, the way to restart episodes under `AutoresetMode.disabled`.
    public mutating func reset(index: Int, seed: UInt64? = nil) {
        precondition(index >= 0 && index < count, "environment \(index) out of range 0..<\(count)")
        withOwnedBuffers { environments, buffers in environments.reset(index: index, seed: seed, into: buffers) }
    }

    /// ``reset(index:seed:)`` into the caller's buffers: writes only entry `index` of each column.
    public mutating func reset(index: Int, seed: UInt64? = nil, into buffers: VectorStepBuffers) {
        precondition(index >= 0 && index < count, "environment \(index) out of range 0..<\(count)")
        makeLanesUnique()
        restart(index, seed: seed, board: nil, into: buffers, reportsFlags: true)
    }

    /// ``reset(seeds:board:)`` into the caller's buffers.
    ///
    /// - Throws: what ``Environment/reset(seed:board:)`` throws for a board that doesn't fit the rules;
    ///   nothing changes then.
    /// - Precondition: `seeds.count == count`; `buffers` as ``VectorStepBuffers`` describes.
    public mutating func reset(seeds: [UInt64?], board: Board?, into buffers: VectorStepBuffers) throws(RulesError) {
        precondition(seeds.count == count, "expected \(count) seeds, got \(seeds.count)")
        if let board { try Environment.validate(board, for: rules) }
        makeLanesUnique()
        clearFinals(buffers)
        for index in 0..<count { restart(index, seed: seeds[index], board: board, into: buffers, reportsFlags: true) }
    }

    static func perEnvironment(_ seed: UInt64?, count: Int) -> [UInt64?] {
        seed.map { VectorEnvironment.seeds(from: $0, count: count) } ?? Array(repeating: nil, count: count)
    }

    // MARK: Step

    /// Steps every environment with its action.
    ///
    /// An environment whose episode is over (it ended at the last step, or at its
    /// reset) ignores its action: under `AutoresetMode.nextStep` and
    /// `AutoresetMode.sameStep` it starts a new episode and reports its first
    /// observation with reward 0 (and `terminated` only if that episode is over at once).
    ///
    /// - Parameter actions: one action per environment.
    /// - Throws: nothing changes when it throws, because both are checked for every
    ///   environment before any moves:
    ///   ``VectorStepError/episodesOver(indices:)`` under `AutoresetMode.disabled`
    ///   when some environment's episode is over, and
    ///   ``VectorStepError/illegalAction(index:direction:)`` under `InvalidActionPolicy/reject`.
    /// - Precondition: `actions.count == count`, and the batch was reset.
    public mutating func step(_ actions: [Direction]) throws(VectorStepError) {
        precondition(actions.count == count, "expected \(count) actions, got \(actions.count)")
        // A direction is stored as its raw value (see `Direction.init(unchecked:)`): the array is
        // already the bytes the step loop reads.
        try actions.withUnsafeBufferPointer { actions throws(VectorStepError) in
            try actions.withMemoryRebound(to: UInt8.self) { codes throws(VectorStepError) in
                try withOwnedBuffers { environments, buffers throws(VectorStepError) in try environments.step(codes, into: buffers) }
            }
        }
    }

    /// ``step(_:)`` with actions as bytes `0…3`, into the caller's buffers: an in-process
    /// binding's step, which copies nothing.
    ///
    /// - Throws: as ``step(_:)``; nothing changes then (the buffers included).
    /// - Precondition: `actions.count == count`, every action is `0…3`, the batch was reset, and
    ///   `buffers` is as ``VectorStepBuffers`` describes.
    public mutating func step(_ actions: UnsafeBufferPointer<UInt8>, into buffers: VectorStepBuffers) throws(VectorStepError) {
        precondition(actions.count == count, "expected \(count) actions, got \(actions.count)")
        precondition(isReset, "step(_:) before reset(): call reset(seed:) first")
        let codes = actions.baseAddress.unsafelyUnwrapped
        // One OR over the batch (it vectorizes); the index only when some action is out of range.
        var any: UInt8 = 0
        for index in 0..<count { any |= codes[index] }
        if any >= 4, let index = (0..<count).first(where: { codes[$0] >= 4 }) {
            preconditionFailure("action \(codes[index]) of environment \(index) is not 0...3")
        }
        try check(codes)
        makeLanesUnique()
        run(codes, into: buffers)
    }

    /// Runs `body` with the owned result buffers lent out (so that `body` may mutate `self`).
    mutating func withOwnedBuffers<R, E: Error>(_ body: (inout VectorEnvironment, VectorStepBuffers) throws(E) -> R) throws(E) -> R {
        var owned = VectorResults.none
        swap(&owned, &results)
        defer { swap(&owned, &results) }
        return try owned.withBuffers(fields: recordedFields, finals: autoresetMode == .sameStep) { buffers in
            Result { () throws(E) in try body(&self, buffers) }
        }
        .get()
    }

    /// Copies the lane columns when another value shares them (value semantics).
    mutating func makeLanesUnique() {
        if !isKnownUniquelyReferenced(&lanes) { lanes = VectorLanes(copying: lanes) }
    }

    /// The checks a step makes before it changes anything.
    func check(_ actions: UnsafePointer<UInt8>) throws(VectorStepError) {
        if autoresetMode == .disabled {
            let finished = finishedIndices
            if !finished.isEmpty { throw .episodesOver(indices: finished) }
        }
        if case .reject = rules.invalidAction {
            for index in 0..<count {
                let episode = lanes.episodes[index]
                let direction = Direction(unchecked: actions[index])
                if !episode.isOver && !episode.mask.contains(direction) {
                    throw .illegalAction(index: index, direction: direction)
                }
            }
        }
    }
}

/// A vector step that `InvalidActionPolicy/reject` refused; nothing changed.
public enum VectorStepError: Error, Hashable, Sendable {
    /// Environment `index` was given an action that would not change its board.
    case illegalAction(index: Int, direction: Direction)
    /// Under `AutoresetMode.disabled`: these environments' episodes are over
    /// and they were not reset (indices in increasing order).
    case episodesOver(indices: [Int])
}

extension VectorStepError: CustomStringConvertible {
    /// For example "environment 3: illegal action left: it does not change the board"; finished episodes in
    /// every game's words (`GameRefusal`).
    public var description: String {
        switch self {
        case .illegalAction(let index, let direction):
            "environment \(index): illegal action \(direction.name): it does not change the board"
        case .episodesOver(let indices): GameRefusal.episodesOver(indices: indices).description
        }
    }
}
