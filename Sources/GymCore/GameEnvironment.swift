/// One environment of a game, with Gymnasium's contract: what a game implements so that ``VectorGame`` steps a
/// batch of it with every autoreset mode, and so that every door (the protocol, the C ABI, Python, records)
/// serves it through ``GameDeclaration`` without a line of its own.
///
/// A conforming type is a value: copying it copies the game. Actions are integers `0..<space.actionCount`.
public protocol GameEnvironment: Sendable {
    /// The rules an environment plays by (checked when they were made).
    associatedtype Rules: Sendable
    /// Why an action is refused: its description is the message every door gives.
    associatedtype Refusal: Error & CustomStringConvertible
    /// What a reset returns (Gymnasium's first observation and info).
    associatedtype Reset

    /// An environment under `rules`, its generator seeded with `seed` until a reset passes another.
    init(rules: Rules, seed: UInt64)

    /// The rules it plays by.
    var rules: Rules { get }
    /// Where it is in its episode.
    var phase: EpisodePhase { get }
    /// Its results' shapes under `rules`.
    static func space(of rules: Rules) -> GameSpace

    /// Starts an episode: `seed` restarts the generator, `nil` continues its stream.
    @discardableResult mutating func reset(seed: UInt64?) -> Reset
    /// Refuses an action that may not be taken now, with its reason.
    func check(_ action: Int) throws(Refusal)
    /// Takes a legal action (``check(_:)`` passed) in a running episode; returns its reward and the flags.
    mutating func advance(_ action: Int) -> StepOutcome

    /// Writes the observation (``GameSpace/observation``'s count values of its type) at `destination`.
    func write(observation destination: UnsafeMutableRawPointer)
    /// Writes info column `column` (one of ``GameSpace/info``, by index) at `destination`.
    func write(info column: Int, to destination: UnsafeMutableRawPointer)
    /// The state as a person reads it (`render`).
    var text: String { get }
}

/// A step's reward and flags, as every game's environment returns them.
public struct StepOutcome: Sendable, Hashable {
    /// The reward.
    public var reward: Double
    /// The episode ended by the game's rules.
    public var terminated: Bool
    /// The episode was cut (a step limit); set even when the same step terminated.
    public var truncated: Bool

    /// A step's outcome.
    public init(reward: Double, terminated: Bool, truncated: Bool) {
        (self.reward, self.terminated, self.truncated) = (reward, terminated, truncated)
    }
}
