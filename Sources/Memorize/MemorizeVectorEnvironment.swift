import GymCore

/// `count` independent games of Memorize with the same rules, stepped together, with Gymnasium's autoreset
/// modes: the vector every game shares (`VectorGame`), of Memorize's environments.
///
///     var envs = MemorizeVectorEnvironment(rules: MemorizeRules(), count: 64)
///     envs.reset(seed: 42)
///     try envs.step(envs.actionMasks.map { $0.member(at: 0) })
///     // envs.observations, envs.rewards, envs.terminations …
public typealias MemorizeVectorEnvironment = VectorGame<MemorizeEnvironment>

/// A vector step of Memorize that was refused; nothing changed.
public typealias MemorizeVectorStepError = VectorStepRefusal<MemorizeStepError>

extension VectorGame where Environment == MemorizeEnvironment {
    /// Every environment's observation, one after the other (`count × cards` codes).
    public var observations: [UInt8] { environments.flatMap(\.observation) }
    /// Every environment's legal cards.
    public var actionMasks: [CardSet] { environments.map(\.actionMask) }
    /// Every environment's info.
    public var infos: [MemorizeInfo] { environments.map(\.info) }
    /// Under `same_step`, the final observation of each environment whose episode the last step ended, else `nil`.
    public var finalObservations: [[UInt8]?] { (0..<count).map(finalObservationBytes(at:)) }
}
