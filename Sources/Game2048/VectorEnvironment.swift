/// What a ``VectorEnvironment`` does when one of its episodes ends (Gymnasium 1.x's `AutoresetMode`).
public enum AutoresetMode: String, Hashable, Sendable, CaseIterable {
    /// Gymnasium's default. The step that ends an episode reports the final
    /// observation; the *next* step ignores that environment's action, resets
    /// it, and reports the new first observation with reward 0 and both flags false.
    case nextStep = "next_step"
    /// The step that ends an episode resets the environment at once: it reports
    /// the new first observation, with the final one in ``VectorEnvironment/finalObservations``.
    case sameStep = "same_step"
    /// No automatic reset: call ``VectorEnvironment/reset(index:seed:)``; a step that
    /// includes a finished environment throws ``VectorStepError/episodesOver(indices:)``.
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
///
/// An environment can be over as soon as it is reset (a dead custom board, or a
/// win tile a spawn already reached): its entry in ``terminations`` is then true
/// after the reset, and the next step treats it like an episode that just ended
/// (a new episode under ``AutoresetMode/nextStep`` and ``AutoresetMode/sameStep``,
/// ``VectorStepError/episodesOver(indices:)`` under ``AutoresetMode/disabled``).
public struct VectorEnvironment: Sendable {
    /// The rules shared by every environment.
    public let rules: Rules
    /// The number of environments.
    public let count: Int
    /// What happens when an episode ends.
    public let autoresetMode: AutoresetMode

    @usableFromInline var environments: [Environment]

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
    /// Under ``AutoresetMode/sameStep``: the info of the final step of each environment
    /// reset during the last step (its final score, steps, …), `nil` for the others.
    public private(set) var finalInfos: [StepInfo?]

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
        observations = Array(repeating: 0, count: count * rules.cellCount)
        rewards = Array(repeating: 0, count: count)
        terminations = Array(repeating: false, count: count)
        truncations = Array(repeating: false, count: count)
        infos = environments.map(\.info)
        finalObservations = Array(repeating: nil, count: count)
        finalInfos = Array(repeating: nil, count: count)
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
        // The buffer only ever holds the exponents of boards the environments made.
        var board = Board(rules: rules)
        for cell in 0..<cells { board.storage[cell] = observations[index * cells + cell] }
        return board
    }

    /// Environment `index` itself, for lookahead (`afterstates()`) or inspection.
    public func environment(at index: Int) -> Environment { environments[index] }

    /// Resets every environment.
    ///
    /// - Parameter seed: seeds the batch (see the type's discussion); `nil` continues each stream.
    public mutating func reset(seed: UInt64? = nil) {
        reset(seeds: seed.map { VectorEnvironment.seeds(from: $0, count: count) } ?? Array(repeating: nil, count: count))
    }

    /// Resets every environment to the same given board (tests, curricula, search).
    ///
    /// - Parameters:
    ///   - seed: seeds the batch as ``reset(seed:)`` does; `nil` continues each stream.
    ///   - board: the position every environment starts from.
    /// - Throws: what ``Environment/reset(seed:board:)`` throws for a board that doesn't fit the rules;
    ///   nothing changes then.
    public mutating func reset(seed: UInt64? = nil, board: Board) throws(RulesError) {
        try reset(seeds: seed.map { VectorEnvironment.seeds(from: $0, count: count) } ?? Array(repeating: nil, count: count), board: board)
    }

    /// Resets every environment with its own seed: environment `i` starts exactly as a single
    /// ``Environment/reset(seed:)`` with `seeds[i]` would (Gymnasium's `reset(seed=[…])`);
    /// a `nil` entry continues that environment's stream.
    ///
    /// - Precondition: `seeds.count == count`.
    public mutating func reset(seeds: [UInt64?]) {
        precondition(seeds.count == count, "expected \(count) seeds, got \(seeds.count)")
        for index in 0..<count { reset(index: index, seed: seeds[index]) }
    }

    /// Resets every environment to the same given board, each with its own seed as ``reset(seeds:)`` does.
    ///
    /// - Throws: what ``Environment/reset(seed:board:)`` throws for a board that doesn't fit the rules;
    ///   nothing changes then.
    /// - Precondition: `seeds.count == count`.
    public mutating func reset(seeds: [UInt64?], board: Board) throws(RulesError) {
        precondition(seeds.count == count, "expected \(count) seeds, got \(seeds.count)")
        try Environment.validate(board, for: rules)
        for index in 0..<count {
            // Validated above, so this cannot throw.
            begin(index, try environments[index].reset(seed: seeds[index], board: board))
        }
    }

    /// Resets one environment, the way to restart episodes under ``AutoresetMode/disabled``.
    public mutating func reset(index: Int, seed: UInt64? = nil) {
        begin(index, environments[index].reset(seed: seed))
    }

    /// Records the first observation of environment `index`'s new episode, with
    /// `terminated` set when that episode is over at once.
    mutating func begin(_ index: Int, _ start: Reset) {
        record(
            index, observation: start.observation, reward: 0,
            terminated: environments[index].isOver, truncated: false, info: start.info)
        finalObservations[index] = nil
        finalInfos[index] = nil
    }

    /// The environments whose episodes are over, waiting for a reset.
    public var finishedIndices: [Int] { environments.indices.filter { environments[$0].isOver } }

    /// Steps every environment with its action.
    ///
    /// An environment whose episode is over (it ended at the last step, or at its
    /// reset) ignores its action: under ``AutoresetMode/nextStep`` and
    /// ``AutoresetMode/sameStep`` it starts a new episode and reports its first
    /// observation with reward 0 (and `terminated` only if that episode is over at once).
    ///
    /// - Parameter actions: one action per environment.
    /// - Throws: nothing changes when it throws, because both are checked for every
    ///   environment before any moves:
    ///   ``VectorStepError/episodesOver(indices:)`` under ``AutoresetMode/disabled``
    ///   when some environment's episode is over, and
    ///   ``VectorStepError/illegalAction(index:direction:)`` under ``InvalidActionPolicy/reject``.
    /// - Precondition: `actions.count == count`, and the batch was reset.
    public mutating func step(_ actions: [Direction]) throws(VectorStepError) {
        precondition(actions.count == count, "expected \(count) actions, got \(actions.count)")
        if autoresetMode == .disabled {
            let finished = finishedIndices
            if !finished.isEmpty { throw .episodesOver(indices: finished) }
        }
        if case .reject = rules.invalidAction {
            for index in 0..<count where !environments[index].isOver && !infos[index].actionMask.contains(actions[index]) {
                throw .illegalAction(index: index, direction: actions[index])
            }
        }
        for index in 0..<count {
            finalObservations[index] = nil
            finalInfos[index] = nil
            if environments[index].isOver {
                reset(index: index)
                continue
            }
            let step: Step
            do {
                step = try environments[index].step(actions[index])
            } catch {
                // Only `.reject` throws, and every action was checked above.
                preconditionFailure("environment \(index): \(error)")
            }
            record(
                index, observation: step.observation, reward: step.reward,
                terminated: step.terminated, truncated: step.truncated, info: step.info)
            if (step.terminated || step.truncated) && autoresetMode == .sameStep {
                let start = environments[index].reset()
                finalObservations[index] = step.observation
                finalInfos[index] = step.info
                start.observation.copyExponents(into: &observations, at: index * rules.cellCount)
                infos[index] = start.info
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
    /// Under ``AutoresetMode/disabled``: these environments' episodes are over
    /// and they were not reset (indices in increasing order).
    case episodesOver(indices: [Int])
}

extension VectorStepError: CustomStringConvertible {
    /// For example "environment 3: illegal action left: it does not change the board".
    public var description: String {
        switch self {
        case .illegalAction(let index, let direction):
            "environment \(index): illegal action \(direction.name): it does not change the board"
        case .episodesOver(let indices):
            "\(indices.count == 1 ? "environment" : "environments") \(VectorStepError.list(indices)): the episode is over; "
                + "reset \(indices.count == 1 ? "it" : "them") first (autoreset is disabled)"
        }
    }

    /// Up to ten indices, then how many more: an error line stays short for 65 536 environments.
    package static func list(_ indices: [Int]) -> String {
        let shown = indices.prefix(10).map(String.init).joined(separator: ", ")
        return indices.count > 10 ? "\(shown) and \(indices.count - 10) more" : shown
    }
}
