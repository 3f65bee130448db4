/// The options of ``EpisodeLimits``, declared once for every game: a game made through
/// ``GameDeclaration/init(_:summary:vector:options:settings:rules:)`` has them after its own, and 2048's rules
/// options include them under the same names, ranges and help.
public enum EpisodeOption {
    /// `max_steps`.
    public static let maxSteps = GameOption<EpisodeLimits.Settings>.optionalInteger(
        "max_steps", help: "Truncate episodes after this many steps.", in: EpisodeLimits.maxStepsRange, \.maxSteps)
    /// `invalid_action`.
    public static let invalidAction = GameOption<EpisodeLimits.Settings>.choice(
        "invalid_action", valueName: "policy", help: "What an illegal action does:", \.invalidAction)
    /// `invalid_action_penalty` (`--penalty`).
    public static let penalty = GameOption<EpisodeLimits.Settings>.integer(
        "invalid_action_penalty", flag: "penalty", help: "Penalty of an illegal action under terminate.",
        in: Int(EpisodeLimits.penaltyRange.lowerBound)...Int(EpisodeLimits.penaltyRange.upperBound),
        note: "; the reward is `-penalty` under `terminate`", \.penalty)

    /// The options, in the order `spec` reports them after a game's own.
    public static let all = [maxSteps, invalidAction, penalty]
}
