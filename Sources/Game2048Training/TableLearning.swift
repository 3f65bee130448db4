import Game2048

/// How a small board's `AfterstateTable` is filled once its network has learned (`g2048 train --table-learning`).
///
///     TableLearning.sweep.summary   // for help texts
public enum TableLearning: String, Sendable, CaseIterable {
    /// Every afterstate the rules reach, valued exactly by one sweep of dynamic programming (``AfterstateSweep``):
    /// the table is then the optimal value function, and its greedy player plays optimally.
    case sweep
    /// The player's own games, one board at a time (``AfterstateLearner``): real-time dynamic programming, the
    /// network standing in for the boards not met yet.
    case games

    /// The way a run learns its table when none is asked for: a sweep, unless the run's clock leaves the table
    /// less time than a sweep takes (``AfterstateSweep/expectedSeconds(rules:)``). A sweep cut before its first
    /// value leaves the network alone, where the games would have taught the table for the same seconds (on
    /// 3×3, 10 s: 23.6 % of optimal play against 50.4 %, docs/SOLVER.md).
    ///
    /// - Parameters:
    ///   - rules: the rules of the run, whose board says how long a sweep takes.
    ///   - seconds: the seconds the table has, or `nil` when the run has no clock (only a number of games).
    public static func `default`(rules: Rules, seconds: Double?) -> TableLearning {
        guard let seconds else { return .sweep }
        return seconds < AfterstateSweep.expectedSeconds(rules: rules) ? .games : .sweep
    }

    /// What it does, in a few words, for help texts.
    public var summary: String {
        switch self {
        case .sweep: "every reachable afterstate, exactly"
        case .games: "the player's own games"
        }
    }
}
