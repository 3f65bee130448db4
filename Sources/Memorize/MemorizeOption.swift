import GymCore

/// Memorize's options, declared once: ``all`` is the table every door reads (names, flags, help, allowed
/// values), as 2048's options are read from theirs. Every game's episode options (`max_steps`, `invalid_action`)
/// follow them (`EpisodeOption`).
///
///     var settings = MemorizeSettings(MemorizeRules())
///     MemorizeOption.revealSeen.assign(.boolean(true), to: &settings)
///     let rules = try settings.rules()
public enum MemorizeOption {
    /// `rows`.
    public static let rows = GameOption<MemorizeSettings>.integer(
        "rows", help: "Rows of cards; rows·cols is even, 2 to 64.", in: MemorizeRules.sideRange, \.rows)
    /// `cols`.
    public static let cols = GameOption<MemorizeSettings>.integer(
        "cols", help: "Cards in a row; rows·cols is even, 2 to 64.", in: MemorizeRules.sideRange, \.cols)
    /// `reveal_seen`.
    public static let revealSeen = GameOption<MemorizeSettings>.boolean(
        "reveal_seen", help: "Show the content of every face-down card already seen (a fully observed game).", \.revealSeen)
    /// `mismatch_penalty`.
    public static let mismatchPenalty = GameOption<MemorizeSettings>.number(
        "mismatch_penalty", valueName: "p", help: "What a mismatched pair costs: its reward is -p.", in: MemorizeRules.penaltyRange,
        \.mismatchPenalty)

    /// Every option, in the order `spec` reports them.
    public static let all = [rows, cols, revealSeen, mismatchPenalty]

    /// The option named `name`, if there is one.
    public static func named(_ name: String) -> GameOption<MemorizeSettings>? { all.first { $0.name == name } }
}

/// Every option's value, as options set them one by one: ``rules()`` checks them together.
public struct MemorizeSettings: Hashable, Sendable {
    /// `rows`.
    public var rows: Int
    /// `cols`.
    public var cols: Int
    /// `reveal_seen`.
    public var revealSeen: Bool
    /// `mismatch_penalty`.
    public var mismatchPenalty: Double

    /// The settings of `rules`.
    public init(_ rules: MemorizeRules) {
        (rows, cols, revealSeen) = (rules.rows, rules.cols, rules.revealSeen)
        mismatchPenalty = rules.mismatchPenalty
    }

    /// The rules these settings describe.
    ///
    /// - Throws: ``MemorizeRulesError`` for values that do not make a game.
    public func rules() throws(MemorizeRulesError) -> MemorizeRules {
        try MemorizeRules(rows: rows, cols: cols, revealSeen: revealSeen, mismatchPenalty: mismatchPenalty)
    }
}
