/// How a small board's ``AfterstateTable`` is filled once its network has learned (`g2048 train --table-learning`).
///
///     TableLearning.sweep.summary   // for help texts
public enum TableLearning: String, Sendable, CaseIterable {
    /// Every afterstate the rules reach, valued exactly by one sweep of dynamic programming (``AfterstateSweep``):
    /// the table is then the optimal value function, and its greedy player plays optimally.
    case sweep
    /// The player's own games, one board at a time (``AfterstateLearner``): real-time dynamic programming, the
    /// network standing in for the boards not met yet.
    case games

    /// What it does, in a few words, for help texts.
    public var summary: String {
        switch self {
        case .sweep: "every reachable afterstate, exactly"
        case .games: "the player's own games"
        }
    }
}
