/// `count` environments of one game stepped together, with Gymnasium's autoreset modes: the episode's end is
/// handled here, once, for every game (as pgx's base `step`), and every door writes its results through
/// ``write(into:)``.
///
///     var envs = VectorGame<CardGame>(rules: CardRules(), count: 64)   // a card game's environments
///     envs.reset(seed: 42)
///     try envs.step(actions)   // one action per environment
///
/// Environment `i` plays exactly as a single environment would: `reset(seed: s)` seeds it with the `i + 1`-th
/// output of `SplitMix64(seed: s)`. Every step is checked before any environment moves: an illegal action
/// changes nothing.
public struct VectorGame<Environment: GameEnvironment>: Sendable {
    /// The rules of every environment.
    public let rules: Environment.Rules
    /// What a step does with a finished episode.
    public let autoresetMode: AutoresetMode
    /// The results' shapes.
    public let space: GameSpace
    /// Every environment's state and last results, changed in place by the inlined step.
    @usableFromInline var lanes: Lanes

    /// The environments and their last results.
    @usableFromInline struct Lanes: Sendable {
        @usableFromInline var environments: [Environment]
        @usableFromInline var rewards: [Double]
        @usableFromInline var terminations: [Bool]
        @usableFromInline var truncations: [Bool]
        @usableFromInline var finals: [Bool]

        /// `body` with every lane's column as a mutable buffer: the step's loop, without a uniqueness check per
        /// element.
        @inlinable mutating func advance(
            _ body: (
                UnsafeMutableBufferPointer<Environment>, UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Bool>,
                UnsafeMutableBufferPointer<Bool>, UnsafeMutableBufferPointer<Bool>
            ) -> Void
        ) {
            environments.withUnsafeMutableBufferPointer { environments in
                rewards.withUnsafeMutableBufferPointer { rewards in
                    terminations.withUnsafeMutableBufferPointer { terminations in
                        truncations.withUnsafeMutableBufferPointer { truncations in
                            finals.withUnsafeMutableBufferPointer { finals in body(environments, rewards, terminations, truncations, finals) }
                        }
                    }
                }
            }
        }

        @usableFromInline init(_ environments: [Environment]) {
            self.environments = environments
            rewards = Array(repeating: 0, count: environments.count)
            terminations = Array(repeating: false, count: environments.count)
            truncations = terminations
            finals = terminations
        }
    }

    /// The environments.
    public var environments: [Environment] { lanes.environments }
    /// The last reward of each environment.
    public var rewards: [Double] { lanes.rewards }
    /// Whether each environment's last step terminated its episode.
    public var terminations: [Bool] { lanes.terminations }
    /// Whether each environment's last step truncated its episode.
    public var truncations: [Bool] { lanes.truncations }
    /// Under `same_step`, whether the last step ended each environment's episode (it was reset at once).
    public var finals: [Bool] { lanes.finals }
    /// The final observation and info of each environment in ``finals``, as the columns hold them.
    @usableFromInline var finalBytes: [UInt8]
    /// The bytes of one environment's final observation and info.
    @usableFromInline let finalStride: Int

    /// Creates `count` environments; call ``reset(seed:)`` before the first step.
    ///
    /// - Precondition: `count ≥ 1`.
    public init(rules: Environment.Rules, count: Int, autoresetMode: AutoresetMode = .nextStep, seed: UInt64 = 0) {
        precondition(count >= 1, "a vector environment holds at least one environment, got \(count)")
        self.rules = rules
        self.autoresetMode = autoresetMode
        space = Environment.space(of: rules)
        lanes = Lanes(SplitMix64.seeds(from: seed, count: count).map { Environment(rules: rules, seed: $0) })
        let columns = space.columns(finals: false).all
        finalStride = ([columns[0]] + space.info).reduce(0) { $0 + $1.byteCount(environments: 1) }
        finalBytes = autoresetMode == .sameStep ? Array(repeating: 0, count: count * finalStride) : []
    }

    /// The number of environments.
    @inlinable public var count: Int { lanes.environments.count }
    /// Whether every environment has been reset: a step is allowed.
    @inlinable public var isStarted: Bool { !lanes.environments.contains { $0.phase == .needsReset } }

    /// Resets every environment: with a seed, environment `i` from the `i`-th derived seed; without, each
    /// continues its stream.
    public mutating func reset(seed: UInt64? = nil) {
        reset(seeds: seed.map { SplitMix64.seeds(from: $0, count: count) } ?? Array(repeating: nil, count: count))
    }

    /// Resets environment `i` with `seeds[i]` (`nil`: it continues its stream).
    ///
    /// - Precondition: one seed per environment.
    public mutating func reset(seeds: [UInt64?]) {
        precondition(seeds.count == count, "\(seeds.count) seeds for \(count) environments")
        for index in lanes.environments.indices { reset(index: index, seed: seeds[index]) }
    }

    /// Resets environment `index` alone.
    @inlinable public mutating func reset(index: Int, seed: UInt64? = nil) {
        lanes.environments[index].reset(seed: seed)
        (lanes.rewards[index], lanes.terminations[index], lanes.truncations[index], lanes.finals[index]) = (0, false, false, false)
    }

    /// Steps every environment with its action.
    ///
    /// - Throws: ``VectorStepRefusal`` (the first illegal action, or the finished episodes under `disabled`);
    ///   nothing changes.
    /// - Precondition: one action per environment, and every environment was reset.
    @inlinable public mutating func step<Actions: RandomAccessCollection>(_ actions: Actions) throws(VectorStepRefusal<Environment.Refusal>)
    where Actions.Element: BinaryInteger, Actions.Index == Int {
        precondition(actions.count == count, "\(actions.count) actions for \(count) environments")
        precondition(isStarted, "step(_:) before reset(seed:)")
        let start = actions.startIndex
        if autoresetMode == .disabled {
            let over = lanes.environments.indices.filter { lanes.environments[$0].phase == .over }
            if !over.isEmpty { throw .episodesOver(indices: over) }
        }
        for index in lanes.environments.indices where lanes.environments[index].phase == .running {
            // An action beyond Int is no action of any game: the game refuses its clamped value.
            let action = Int(clamping: actions[start + index])
            do { try lanes.environments[index].check(action) } catch { throw .illegalAction(index: index, error) }
        }
        let sameStep = autoresetMode == .sameStep
        var ended: [Int] = []
        lanes.advance { environments, rewards, terminations, truncations, finals in
            for index in environments.indices {
                finals[index] = false
                guard environments[index].phase == .running else {
                    // next_step: the step after an episode's end resets it and ignores its action.
                    environments[index].reset(seed: nil)
                    (rewards[index], terminations[index], truncations[index]) = (0, false, false)
                    continue
                }
                let outcome = environments[index].advance(Int(clamping: actions[start + index]))
                (rewards[index], terminations[index], truncations[index]) = (outcome.reward, outcome.terminated, outcome.truncated)
                if sameStep && (outcome.terminated || outcome.truncated) { ended.append(index) }
            }
        }
        for index in ended {
            keepFinal(index)
            lanes.environments[index].reset(seed: nil)
            lanes.finals[index] = true
        }
    }

    /// Under `same_step`, the bytes of environment `index`'s final observation (as the observation column holds
    /// them) when the last step ended its episode, else `nil`.
    public func finalObservationBytes(at index: Int) -> [UInt8]? {
        guard lanes.finals[index] else { return nil }
        let start = index * finalStride
        return Array(finalBytes[start..<(start + space.observation.count * space.observation.type.byteCount)])
    }

    /// Keeps environment `index`'s observation and info before its same-step reset.
    @inlinable mutating func keepFinal(_ index: Int) {
        let environment = lanes.environments[index]
        let (observation, info, finalStride) = (space.observation, space.info, finalStride)
        finalBytes.withUnsafeMutableBytes { bytes in
            var address = bytes.baseAddress! + index * finalStride
            environment.write(observation: address)
            address += observation.count * observation.type.byteCount
            for (column, declaration) in info.enumerated() {
                environment.write(info: column, to: address)
                address += declaration.byteCount(environments: 1)
            }
        }
    }
}

/// A vector step that was refused; nothing changed.
public enum VectorStepRefusal<StepError: Error & CustomStringConvertible>: Error {
    /// Environment `index` was given an action it may not take.
    case illegalAction(index: Int, StepError)
    /// Under `disabled` autoreset: these environments' episodes are over and were not reset.
    case episodesOver(indices: [Int])
}

extension VectorStepRefusal: CustomStringConvertible {
    /// The refusal as every door words it (``GameRefusal``).
    public var description: String {
        switch self {
        case .illegalAction(let index, let error): GameRefusal.illegalAction(index: index, reason: error.description).description
        case .episodesOver(let indices): GameRefusal.episodesOver(indices: indices).description
        }
    }
}

extension VectorStepRefusal: Equatable where StepError: Equatable {}
