import Game2048
import GymJSON
import Memorize

/// Where a Memorize session's `reset` and `step` write their results, for the C ABI: caller-owned columns of
/// `num_envs` entries each (observations and legal actions `cards` entries per environment), as 2048's
/// `VectorStepBuffers`. A column left `nil` is not written.
public struct MemorizeBuffers {
    /// Each card's observation code, row-major.
    public var observations: UnsafeMutablePointer<UInt8>
    /// The rewards as integers: only when the mismatch penalty is a whole number.
    public var rewards: UnsafeMutablePointer<Int64>?
    /// The rewards as doubles.
    public var rewardValues: UnsafeMutablePointer<Double>?
    public var terminations: UnsafeMutablePointer<Bool>
    public var truncations: UnsafeMutablePointer<Bool>
    /// The cards turned in the episode.
    public var steps: UnsafeMutablePointer<Int64>?
    /// 1 for each face-down card, `cards` bytes per environment.
    public var legalActions: UnsafeMutablePointer<UInt8>?
    public var pairsMatched: UnsafeMutablePointer<Int64>?
    public var mismatches: UnsafeMutablePointer<Int64>?
    /// `same_step`: the environments that ended during the step, and their last observations (zero elsewhere).
    public var finals: UnsafeMutablePointer<Bool>?
    public var finalObservations: UnsafeMutablePointer<UInt8>?

    public init(
        observations: UnsafeMutablePointer<UInt8>, rewards: UnsafeMutablePointer<Int64>?, rewardValues: UnsafeMutablePointer<Double>?,
        terminations: UnsafeMutablePointer<Bool>, truncations: UnsafeMutablePointer<Bool>, steps: UnsafeMutablePointer<Int64>? = nil,
        legalActions: UnsafeMutablePointer<UInt8>? = nil, pairsMatched: UnsafeMutablePointer<Int64>? = nil,
        mismatches: UnsafeMutablePointer<Int64>? = nil, finals: UnsafeMutablePointer<Bool>? = nil,
        finalObservations: UnsafeMutablePointer<UInt8>? = nil
    ) {
        self.observations = observations
        self.rewards = rewards
        self.rewardValues = rewardValues
        self.terminations = terminations
        self.truncations = truncations
        self.steps = steps
        self.legalActions = legalActions
        self.pairsMatched = pairsMatched
        self.mismatches = mismatches
        self.finals = finals
        self.finalObservations = finalObservations
    }

    /// Writes environment `index`'s results.
    func write(_ environment: MemorizeEnvironment, reward: Double, terminated: Bool, truncated: Bool, at index: Int) {
        let cards = environment.rules.cardCount
        let codes = environment.observation
        codes.withUnsafeBufferPointer { (observations + index * cards).update(from: $0.baseAddress!, count: cards) }
        rewards?[index] = Int64(reward)
        rewardValues?[index] = reward
        terminations[index] = terminated
        truncations[index] = truncated
        let info = environment.info
        steps?[index] = Int64(info.steps)
        pairsMatched?[index] = Int64(info.pairsMatched)
        mismatches?[index] = Int64(info.mismatches)
        if let legalActions {
            for card in 0..<cards { legalActions[index * cards + card] = info.actionMask.contains(card) ? 1 : 0 }
        }
    }

    /// Marks no environment final and zeroes the final observations.
    func clearFinals(count: Int, cards: Int) {
        finals?.update(repeating: false, count: count)
        finalObservations?.update(repeating: 0, count: count * cards)
    }
}

extension GameSession {
    /// A Memorize session's rules and number of environments; `nil` for 2048.
    public var memorizeShape: (rules: MemorizeRules, numEnvs: Int)? { memorize.map { ($0.rules, $0.numEnvs) } }

    /// `reset` of a Memorize session with the protocol's parameters (`seed`, `seeds`), its results written into
    /// `buffers`.
    ///
    /// - Throws: ``RPCError`` as `call("reset", params:)` would; nothing changes then.
    public mutating func reset(params: JSONValue?, into buffers: MemorizeBuffers) throws(RPCError) {
        guard var session = memorize else { throw .invalidParams("a 2048 session's buffers are VectorStepBuffers") }
        try session.check(buffers)
        try session.resetEnvironments(try Self.members(of: params))
        session.write(into: buffers, steps: nil)
        memorize = session
    }

    /// `step` of a Memorize session with one card per environment, its results written into `buffers`.
    ///
    /// - Throws: ``RPCError`` as `call("step", params:)` would for the same cards; nothing changes then.
    public mutating func step(cards: UnsafeBufferPointer<UInt8>, into buffers: MemorizeBuffers) throws(RPCError) {
        guard var session = memorize else { throw .invalidParams("a 2048 session's buffers are VectorStepBuffers") }
        try session.check(buffers)
        guard cards.count == session.numEnvs else {
            throw .invalidParams("actions must have \(session.numEnvs) entries, got \(cards.count)")
        }
        let name: (Int) -> String = session.numEnvs == 1 ? { _ in "action" } : { "actions[\($0)]" }
        var parsed: [Int] = []
        for (index, card) in cards.enumerated() { parsed.append(try session.card(.integer(Int128(card)), name: name(index))) }
        let single = try session.stepEnvironments(parsed)
        session.write(into: buffers, steps: single)
        memorize = session
    }
}

extension MemorizeSession {
    /// Refuses integer rewards under a penalty they cannot hold.
    func check(_ buffers: MemorizeBuffers) throws(RPCError) {
        if buffers.rewards != nil && rules.mismatchPenalty.rounded() != rules.mismatchPenalty {
            throw .invalidParams(
                "out.rewards holds integers, but mismatch_penalty \(rules.mismatchPenalty) is not one: "
                    + "give out.reward_values (doubles) and leave out.rewards NULL")
        }
    }

    /// Writes every environment's state after a reset or a step (`single`: the single environment's step, nil
    /// after its reset).
    func write(into buffers: MemorizeBuffers, steps single: MemorizeStep?) {
        let cards = rules.cardCount
        buffers.clearFinals(count: numEnvs, cards: cards)
        switch environments {
        case .single(let env):
            buffers.write(env, reward: single?.reward ?? 0, terminated: single?.terminated ?? false, truncated: single?.truncated ?? false, at: 0)
        case .vector(let vector):
            // A vector keeps its last rewards, flags and final observations (zero after a reset).
            for index in 0..<numEnvs {
                buffers.write(
                    vector.environments[index], reward: vector.rewards[index], terminated: vector.terminations[index],
                    truncated: vector.truncations[index], at: index)
                if let final = vector.finalObservations[index], autoresetMode == .sameStep {
                    buffers.finals?[index] = true
                    final.withUnsafeBufferPointer { buffers.finalObservations?.advanced(by: index * cards).update(from: $0.baseAddress!, count: cards) }
                }
            }
        }
    }
}
