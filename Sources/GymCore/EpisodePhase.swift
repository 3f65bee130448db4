/// Where an environment is in its episode, for every game: `step` is allowed only while it runs.
public enum EpisodePhase: String, Sendable, Hashable, CaseIterable {
    /// Created, and not reset yet.
    case needsReset = "needs_reset"
    /// An episode is running; `step` is allowed.
    case running
    /// The episode terminated or was truncated; call `reset`.
    case over
}
