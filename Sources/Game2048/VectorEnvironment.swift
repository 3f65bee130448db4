/// What a ``VectorEnvironment`` does when one of its episodes ends (Gymnasium 1.x's `AutoresetMode`).
public enum AutoresetMode: String, Hashable, Sendable, CaseIterable {
    /// Gymnasium's default. The step that ends an episode reports the final
    /// observation; the *next* step ignores that environment's action, resets
    /// it, and reports the new first observation with reward 0 and both flags false.
    case nextStep = "next_step"
    /// The step that ends an episode resets the environment at once: it reports
    /// the new first observation, with the final one in ``VectorEnvironment/finalObservations``.
    case sameStep = "same_step"
    /// No automatic reset: call ``VectorEnvironment/reset(index:seed:)``; stepping a
    /// finished environment is a programming error.
    case disabled
}

/// `count` independent environments with the same rules, stepped together.
///
///     var envs = VectorEnvironment(rules: Rules(), count: 1_024)
///     envs.reset(seed: 42)
///     var actions = [Direction](repeating: .up, count: envs.count)
///     for _ in 0..<100 {
///         for i in 0..<envs.count { actions[i] = envs.actionMasks[i].direction(at: 0) }
///         try envs.step(actions)
///         // envs.rewards, envs.terminations, envs.observations …
///     }
///
/// Results live in flat, reusable buffers (one entry per environment, and
/// `count × rows × cols` exponents in ``observations``), so stepping allocates
/// nothing. Seeding: `reset(seed: s)` seeds environment `i` with the `i + 1`-th
/// output of `SplitMix64(seed: s)`, so every environment has its own stream and
/// the whole batch is reproducible from one number; `reset()` continues each stream.
public struct VectorEnvironment: Sendable {
    /// The rules shared by every environment.
    public let rules: Rules
    /// The number of environments.
    public let count: Int
    /// What happens when an episode ends.
    public let autoresetMode: AutoresetMode

    @usableFromInline var environments: [Environment]
    @usableFromInline var needsReset: [Bool]

    /// The last observation of every environment: `count × rows × cols` exponents, environment-major.
    public private(set) var observations: [UInt8]
    /// The last reward of every environment.
    public private(set) var rewards: [Int64]
    /// Whether each environment's last step terminated its episode.
    public private(set) var terminations: [Bool]
    /// Whether each environment's last step truncated its episode.
    public private(set) var truncations: [Bool]
    /// The info of each environment's last reset or step.
    public private(set) var infos: [StepInfo]
    /// Under ``AutoresetMode/sameStep``: the final board of each environment reset
    /// during the last step, `nil` for the others.
    public private(set) var finalObservations: [Board?]

    /// Creates `count` environments. Call ``reset(seed:)`` before the first step.
    ///
    /// - Precondition: `count >= 1`.
    public init(rules: Rules = Rules(), count: Int, autoresetMode: AutoresetMode = .nextStep, seed: UInt64 = 0) {
        precondition(count >= 1, "a vector environment needs at least 1 environment, got \(count)")
        self.rules = rules
        self.count = count
        self.autoresetMode = autoresetMode
        let seeds = VectorEnvironment.seeds(from: seed, count: count)
        environments = seeds.map { Environment(rules: rules, seed: $0) }
        needsReset = Array(repeating: false, count: count)
        observations = Array(repeating: 0, count: count * rules.cellCount)
        rewards = Array(repeating: 0, count: count)
        terminations = Array(repeating: false, count: count)
        truncations = Array(repeating: false, count: count)
        infos = environments.map(\.info)
        finalObservations = Array(repeating: nil, count: count)
    }

    /// The per-environment seeds derived from one base seed.
    public static func seeds(from seed: UInt64, count: Int) -> [UInt64] {
        var mixer = SplitMix64(seed: seed)
        return (0..<count).map { _ in mixer.next() }
    }

    /// The legal moves of each environment's current observation.
    public var actionMasks: [ActionMask] { infos.map(\.actionMask) }

    /// The last observation of environment `index` as a board.
    public func observation(at index: Int) -> Board {
        let cells = rules.cellCount
        // The buffer only ever holds exponents that came from valid boards.
        return try! Board(rows: rules.rows, cols: rules.cols, exponents: Array(observations[(index * cells)..<((index + 1) * cells)]))
    }

    /// Environment `index` itself, for lookahead (`afterstates()`) or inspection.
    public func environment(at index: Int) -> Environment { environments[index] }

    /// Resets every environment.
    ///
    /// - Parameter seed: seeds the batch (see the type's discussion); `nil` continues each stream.
    public mutating func reset(seed: UInt64? = nil) {
        let seeds = seed.map { VectorEnvironment.seeds(from: $0, count: count) }
        for index in 0..<count { reset(index: index, seed: seeds?[index]) }
    }

    /// Resets every environment to the same given board (tests, curricula, search).
    ///
    /// - Parameter seed: seeds the batch as ``reset(seed:)`` does; `nil` continues each stream.
    /// - Throws: ``RulesError/boardSize(rows:cols:expectedRows:expectedCols:)`` when the board's size isn't the rules'.
    public mutating func reset(seed: UInt64? = nil, board: Board) throws(RulesError) {
        guard board.rows == rules.rows, board.cols == rules.cols else {
            throw .boardSize(rows: board.rows, cols: board.cols, expectedRows: rules.rows, expectedCols: rules.cols)
        }
        let seeds = seed.map { VectorEnvironment.seeds(from: $0, count: count) }
        for index in 0..<count {
            let start = try environments[index].reset(seed: seeds?[index], board: board)
            record(index, observation: start.observation, reward: 0, terminated: false, truncated: false, info: start.info)
            needsReset[index] = false
            finalObservations[index] = nil
        }
    }

    /// Resets one environment, the way to restart episodes under ``AutoresetMode/disabled``.
    public mutating func reset(index: Int, seed: UInt64? = nil) {
        let start = environments[index].reset(seed: seed)
        record(index, observation: start.observation, reward: 0, terminated: false, truncated: false, info: start.info)
        needsReset[index] = false
        finalObservations[index] = nil
    }

    /// Steps every environment with its action.
    ///
    /// - Parameter actions: one action per environment.
    /// - Throws: ``VectorStepError/illegalAction(index:direction:)`` under
    ///   ``InvalidActionPolicy/reject``, checked for every environment before any
    ///   moves, so nothing changes.
    /// - Precondition: `actions.count == count`, the batch was reset, and under
    ///   ``AutoresetMode/disabled`` no stepped environment has finished.
    public mutating func step(_ actions: [Direction]) throws(VectorStepError) {
        precondition(actions.count == count, "expected \(count) actions, got \(actions.count)")
        if case .reject = rules.invalidAction {
            for index in 0..<count where !needsReset[index] && !infos[index].actionMask.contains(actions[index]) {
                throw .illegalAction(index: index, direction: actions[index])
            }
        }
        for index in 0..<count {
            finalObservations[index] = nil
            if needsReset[index] {
                reset(index: index)
                continue
            }
            if environments[index].currentPhase != .running {
                precondition(autoresetMode != .disabled, "environment \(index) stepped after its episode ended; call reset(index:)")
                reset(index: index)
            }
            // `.reject` was checked above, so this cannot throw.
            let step = try! environments[index].step(actions[index])
            record(index, observation: step.observation, reward: step.reward,
                   terminated: step.terminated, truncated: step.truncated, info: step.info)
            if step.terminated || step.truncated {
                switch autoresetMode {
                case .nextStep: needsReset[index] = true
                case .sameStep:
                    let start = environments[index].reset()
                    finalObservations[index] = step.observation
                    start.observation.copyExponents(into: &observations, at: index * rules.cellCount)
                    infos[index] = start.info
                case .disabled: break
                }
            }
        }
    }

    mutating func record(_ index: Int, observation: Board, reward: Int64, terminated: Bool, truncated: Bool, info: StepInfo) {
        observation.copyExponents(into: &observations, at: index * rules.cellCount)
        rewards[index] = reward
        terminations[index] = terminated
        truncations[index] = truncated
        infos[index] = info
    }
}

/// A vector step that ``InvalidActionPolicy/reject`` refused; nothing changed.
public enum VectorStepError: Error, Hashable, Sendable {
    /// Environment `index` was given an action that would not change its board.
    case illegalAction(index: Int, direction: Direction)
}

extension VectorStepError: CustomStringConvertible {
    /// For example "environment 3: illegal action left: it does not change the board".
    public var description: String {
        switch self {
        case .illegalAction(let index, let direction):
            "environment \(index): illegal action \(direction.name): it does not change the board"
        }
    }
}
