/// `count` environments of one game stepped together, with Gymnasium's autoreset modes: the episode's end is
/// handled here, once, for every game (as pgx's base `step`), and every door writes its results through
/// ``write(into:)``.
///
///     var envs = VectorGame<CardGame>(rules: CardRules(), count: 64)   // a card game's environments
///     envs.reset(seed: 42)
///     try envs.step(actions)   // one action per environment
///
/// Environment `i` plays exactly as a single environment would: `reset(seed: s)` seeds it with the `i + 1`-th
/// output of `SplitMix64(seed: s)`. The episode's shared limits (``EpisodeLimits``: the step limit and the
/// invalid-action policy) are applied here too. Every step is checked before any environment moves: a refused
/// action changes nothing.
public struct VectorGame<Environment: GameEnvironment>: Sendable {
    /// The rules of every environment.
    public let rules: Environment.Rules
    /// What a step does with a finished episode.
    public let autoresetMode: AutoresetMode
    /// The step limit and the invalid-action policy of every environment.
    public let limits: EpisodeLimits
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
        /// Steps since each environment's reset, for the step limit.
        @usableFromInline var steps: [Int]
        /// Whether each environment's episode was ended by the limits (cut or terminated by the policy), which
        /// the game's own phase does not know.
        @usableFromInline var ended: [Bool]
        /// How many environments were never reset.
        @usableFromInline var unstarted: Int

        /// `body` with every lane's column as a mutable buffer: the step's loop, without a uniqueness check per
        /// element.
        @inlinable mutating func advance(
            _ body: (
                UnsafeMutableBufferPointer<Environment>, UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Bool>,
                UnsafeMutableBufferPointer<Bool>, UnsafeMutableBufferPointer<Bool>, UnsafeMutableBufferPointer<Int>,
                UnsafeMutableBufferPointer<Bool>
            ) -> Void
        ) {
            environments.withUnsafeMutableBufferPointer { environments in
                rewards.withUnsafeMutableBufferPointer { rewards in
                    terminations.withUnsafeMutableBufferPointer { terminations in
                        truncations.withUnsafeMutableBufferPointer { truncations in
                            finals.withUnsafeMutableBufferPointer { finals in
                                steps.withUnsafeMutableBufferPointer { steps in
                                    ended.withUnsafeMutableBufferPointer { ended in
                                        body(environments, rewards, terminations, truncations, finals, steps, ended)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        @usableFromInline init(_ environments: [Environment]) {
            self.environments = environments
            rewards = Array(repeating: 0, count: environments.count)
            terminations = Array(repeating: false, count: environments.count)
            (truncations, finals, ended) = (terminations, terminations, terminations)
            steps = Array(repeating: 0, count: environments.count)
            unstarted = environments.count
        }

        /// Where environment `index` is in its episode, the limits included.
        @inlinable func phase(_ index: Int) -> EpisodePhase { ended[index] ? .over : environments[index].phase }
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
    public init(
        rules: Environment.Rules, count: Int, autoresetMode: AutoresetMode = .nextStep, limits: EpisodeLimits = .none, seed: UInt64 = 0
    ) {
        precondition(count >= 1, "a vector environment holds at least one environment, got \(count)")
        (self.rules, self.autoresetMode, self.limits) = (rules, autoresetMode, limits)
        var space = Environment.space(of: rules)
        // A refused action's reward (0, or the penalty) is a reward too.
        let refused = limits.refusedReward
        if limits.invalidAction != .reject && refused < space.rewardRange.lowerBound {
            space.rewardRange = refused...space.rewardRange.upperBound
        }
        self.space = space
        lanes = Lanes(SplitMix64.seeds(from: seed, count: count).map { Environment(rules: rules, seed: $0) })
        let columns = space.columns(finals: false).all
        finalStride = ([columns[0]] + space.info).reduce(0) { $0 + $1.byteCount(environments: 1) }
        finalBytes = autoresetMode == .sameStep ? Array(repeating: 0, count: count * finalStride) : []
    }

    /// The number of environments.
    @inlinable public var count: Int { lanes.environments.count }
    /// Whether every environment has been reset: a step is allowed.
    @inlinable public var isStarted: Bool { lanes.unstarted == 0 }

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
        if lanes.environments[index].phase == .needsReset { lanes.unstarted -= 1 }
        lanes.environments[index].reset(seed: seed)
        (lanes.rewards[index], lanes.terminations[index], lanes.truncations[index], lanes.finals[index]) = (0, false, false, false)
        (lanes.steps[index], lanes.ended[index]) = (0, false)
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
            let over = lanes.environments.indices.filter { lanes.phase($0) == .over }
            if !over.isEmpty { throw .episodesOver(indices: over) }
        }
        // Under `reject` every action is checked here; under the other policies only those outside the action
        // space (always refused), the others when they are taken.
        let rejects = limits.invalidAction == .reject
        let actionCount = space.actionCount
        for index in lanes.environments.indices where lanes.phase(index) == .running {
            // An action beyond Int is no action of any game: the game refuses its clamped value.
            let action = Int(clamping: actions[start + index])
            guard rejects || !(0..<actionCount).contains(action) else { continue }
            do { try lanes.environments[index].check(action) } catch { throw .illegalAction(index: index, error) }
        }
        let sameStep = autoresetMode == .sameStep
        let (maxSteps, penalty) = (limits.maxSteps ?? .max, limits.refusedReward)
        let terminates = if case .terminate = limits.invalidAction { true } else { false }
        var ended: [Int] = []
        lanes.advance { environments, rewards, terminations, truncations, finals, steps, cut in
            for index in environments.indices {
                finals[index] = false
                guard !cut[index] && environments[index].phase == .running else {
                    // next_step: the step after an episode's end resets it and ignores its action.
                    environments[index].reset(seed: nil)
                    (rewards[index], terminations[index], truncations[index], steps[index], cut[index]) = (0, false, false, 0, false)
                    continue
                }
                let action = Int(clamping: actions[start + index])
                var outcome: StepOutcome
                if rejects || (try? environments[index].check(action)) != nil {
                    outcome = environments[index].advance(action)
                } else {
                    // A refused action under `noop` or `terminate`: the game does not move.
                    outcome = StepOutcome(reward: terminates ? penalty : 0, terminated: terminates, truncated: false)
                    cut[index] = terminates
                }
                steps[index] += 1
                if steps[index] >= maxSteps { (outcome.truncated, cut[index]) = (true, true) }
                (rewards[index], terminations[index], truncations[index]) = (outcome.reward, outcome.terminated, outcome.truncated)
                if sameStep && (outcome.terminated || outcome.truncated) { ended.append(index) }
            }
        }
        for index in ended {
            keepFinal(index)
            lanes.environments[index].reset(seed: nil)
            (lanes.steps[index], lanes.ended[index], lanes.finals[index]) = (0, false, true)
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
