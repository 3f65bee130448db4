import GymCore

/// `count` independent games of Memorize with the same rules, stepped together, with Gymnasium's autoreset
/// modes (as 2048's `VectorEnvironment`).
///
///     var envs = MemorizeVectorEnvironment(rules: MemorizeRules(), count: 64)
///     envs.reset(seed: 42)
///     try envs.step(envs.actionMasks.map { $0.member(at: 0) })
///     // envs.observations, envs.rewards, envs.terminations …
///
/// Environment `i` plays exactly as a single ``MemorizeEnvironment`` would: `reset(seed: s)` seeds it with the
/// `i + 1`-th output of `SplitMix64(seed: s)` (`SplitMix64.seeds(from:count:)`, as 2048's vector environment
/// does). Every step is checked before any environment moves: an illegal card changes nothing.
public struct MemorizeVectorEnvironment: Sendable {
    /// The rules of every environment.
    public let rules: MemorizeRules
    /// What a step does with a finished episode.
    public let autoresetMode: AutoresetMode
    /// The environments.
    public private(set) var environments: [MemorizeEnvironment]
    /// The last reward of each environment.
    public private(set) var rewards: [Double]
    /// Whether each environment's last step terminated its episode.
    public private(set) var terminations: [Bool]
    /// Whether each environment's last step truncated its episode.
    public private(set) var truncations: [Bool]
    /// Under `same_step`, the final observation of each environment whose episode the last step ended, else `nil`.
    public private(set) var finalObservations: [[UInt8]?]

    /// Creates `count` environments; call ``reset(seed:)`` before the first step.
    ///
    /// - Precondition: `count ≥ 1`.
    public init(rules: MemorizeRules = MemorizeRules(), count: Int, autoresetMode: AutoresetMode = .nextStep, seed: UInt64 = 0) {
        precondition(count >= 1, "a vector environment holds at least one environment, got \(count)")
        self.rules = rules
        self.autoresetMode = autoresetMode
        environments = SplitMix64.seeds(from: seed, count: count).map { MemorizeEnvironment(rules: rules, seed: $0) }
        rewards = Array(repeating: 0, count: count)
        terminations = Array(repeating: false, count: count)
        truncations = terminations
        finalObservations = Array(repeating: nil, count: count)
    }

    /// The number of environments.
    public var count: Int { environments.count }
    /// Every environment's observation, one after the other (`count × cards` codes).
    public var observations: [UInt8] { environments.flatMap(\.observation) }
    /// Every environment's legal cards.
    public var actionMasks: [CardSet] { environments.map(\.actionMask) }
    /// Every environment's info.
    public var infos: [MemorizeInfo] { environments.map(\.info) }

    /// Resets every environment: with a seed, environment `i` from the `i`-th derived seed; without, each
    /// continues its stream.
    public mutating func reset(seed: UInt64? = nil) {
        let seeds: [UInt64?] = seed.map { SplitMix64.seeds(from: $0, count: count) } ?? Array(repeating: nil, count: count)
        for i in environments.indices { reset(index: i, seed: seeds[i]) }
    }

    /// Resets environment `index` alone.
    public mutating func reset(index: Int, seed: UInt64? = nil) {
        environments[index].reset(seed: seed)
        (rewards[index], terminations[index], truncations[index], finalObservations[index]) = (0, false, false, nil)
    }

    /// Steps every environment with its card.
    ///
    /// - Throws: ``MemorizeVectorStepError`` (the first illegal card, or the finished episodes under `disabled`);
    ///   nothing changes.
    /// - Precondition: one action per environment, and every environment was reset.
    public mutating func step(_ cards: [Int]) throws(MemorizeVectorStepError) {
        precondition(cards.count == count, "\(cards.count) actions for \(count) environments")
        precondition(!environments.contains { $0.phase == .needsReset }, "step(_:) before reset(seed:)")
        let over = environments.indices.filter { environments[$0].phase == .over }
        if autoresetMode == .disabled && !over.isEmpty { throw .episodesOver(indices: over) }
        for i in environments.indices where environments[i].phase == .running {
            do throws(MemorizeStepError) { try environments[i].check(cards[i]) } catch { throw .illegalCard(index: i, error) }
        }
        for i in environments.indices {
            finalObservations[i] = nil
            if environments[i].phase == .over {
                // next_step: the step after an episode's end resets it and ignores its action.
                environments[i].reset()
                (rewards[i], terminations[i], truncations[i]) = (0, false, false)
                continue
            }
            // Checked above: the card is legal.
            guard let step = try? environments[i].step(cards[i]) else { preconditionFailure("a checked card was refused") }
            (rewards[i], terminations[i], truncations[i]) = (step.reward, step.terminated, step.truncated)
            if autoresetMode == .sameStep && (step.terminated || step.truncated) {
                finalObservations[i] = step.observation
                environments[i].reset()
            }
        }
    }
}

/// A vector step that was refused; nothing changed.
public enum MemorizeVectorStepError: Error, Hashable, Sendable {
    /// Environment `index` was given a card it may not turn.
    case illegalCard(index: Int, MemorizeStepError)
    /// Under `disabled` autoreset: these environments' episodes are over and were not reset.
    case episodesOver(indices: [Int])
}

extension MemorizeVectorStepError: CustomStringConvertible {
    /// For example "environment 3: card 5 is face up: only face-down cards may be turned".
    public var description: String {
        switch self {
        case .illegalCard(let index, let error): "environment \(index): \(error)"
        case .episodesOver(let indices):
            "environments \(indices.map(String.init).joined(separator: ", ")): the episode is over; reset first (autoreset is disabled)"
        }
    }
}
