extension EpisodeOption {
    /// The options a declared game's record may lack, having been written before every game had them, with the
    /// values those games played with: an illegal action was refused. `g2048 replay` and the protocol's `spec`
    /// (for replays outside Swift) read this one table.
    public static let beforeInvalidActionPolicies: [(name: String, value: OptionValue)] = [
        (invalidAction.name, .string(InvalidActionPolicy.Kind.reject.rawValue)), (penalty.name, .integer(0)),
    ]
}
