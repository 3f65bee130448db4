/// The rules of an episode that every game shares, whatever it plays: a step limit and what an action the game
/// refuses does. ``VectorGame`` applies them to every game it steps (2048 applies the same limits in its own fast
/// path, tested equal), and ``EpisodeOption`` declares them once for every door.
///
///     let limits = EpisodeLimits(maxSteps: 500, invalidAction: .terminate(penalty: 10))
public struct EpisodeLimits: Hashable, Sendable {
    /// The step limits an episode may have.
    public static let maxStepsRange = 1...Int.max
    /// The penalties ``InvalidActionPolicy/terminate(penalty:)`` may give.
    public static let penaltyRange: ClosedRange<Int64> = 0...Int64.max

    /// When set, the episode is truncated at this many steps (refused actions under `noop` count). Default `nil`.
    public var maxSteps: Int?
    /// What an action the game refuses does (default ``InvalidActionPolicy/noop``).
    public var invalidAction: InvalidActionPolicy

    /// Limits; the defaults (no step limit, `noop`) are every game's.
    ///
    /// - Precondition: `maxSteps` and the penalty are in their ranges (the options check them first).
    public init(maxSteps: Int? = nil, invalidAction: InvalidActionPolicy = .noop) {
        precondition(maxSteps.map(Self.maxStepsRange.contains) ?? true, "max_steps \(maxSteps!) is below 1")
        precondition(Self.penaltyRange.contains(invalidAction.penalty), "a penalty of \(invalidAction.penalty) is negative")
        (self.maxSteps, self.invalidAction) = (maxSteps, invalidAction)
    }

    /// The reward of an action the policy takes instead of the game (`noop`: 0, `terminate`: minus the penalty).
    /// `0 - x`, not `-x`: a penalty of 0 gives +0.0, which prints as 0.
    @inlinable public var refusedReward: Double { 0 - Double(invalidAction.penalty) }

    /// The limits of a game that has its own (2048's environment applies its rules' limits itself): no step
    /// limit, and every refused action refused.
    public static let none = EpisodeLimits(invalidAction: .reject)

    /// Every option of the limits, as ``EpisodeOption`` sets them one by one.
    public struct Settings: Hashable, Sendable {
        /// The step limit, or `nil`.
        public var maxSteps: Int?
        /// The invalid-action policy's kind (its penalty is ``penalty``).
        public var invalidAction: InvalidActionPolicy.Kind
        /// The penalty under `terminate`; 0 under the other policies.
        public var penalty: Int

        /// The settings of `limits`.
        public init(_ limits: EpisodeLimits) {
            (maxSteps, invalidAction, penalty) = (limits.maxSteps, limits.invalidAction.kind, Int(limits.invalidAction.penalty))
        }

        /// The limits the settings describe (each option's range was checked as it was set).
        public var limits: EpisodeLimits {
            EpisodeLimits(maxSteps: maxSteps, invalidAction: InvalidActionPolicy(invalidAction, penalty: Int64(penalty)))
        }
    }
}
