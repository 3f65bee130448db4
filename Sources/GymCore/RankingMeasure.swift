/// How a ranking measures a game's episodes: which number is an episode's score, and which milestones it counts.
///
/// A ranking (and the summary of a verified games record) reads this from the game's declaration, so it names no
/// game: 2048 declares its `score` column and its tile milestones, a game that declares nothing is scored by its
/// return (the sum of its rewards).
public struct RankingMeasure: Sendable, Hashable {
    /// The integer info column that holds an episode's score at its end; `nil`: the episode's return.
    public var scoreColumn: String?
    /// The integer info column the milestones are read from (2048's `max_tile`); `nil`: no milestones.
    public var milestoneColumn: String?
    /// The values whose reach rates are reported: the share of episodes whose milestone column ends at or above
    /// each.
    public var milestones: [Int]

    /// A measure: by default the return, without milestones.
    public init(scoreColumn: String? = nil, milestoneColumn: String? = nil, milestones: [Int] = []) {
        (self.scoreColumn, self.milestoneColumn, self.milestones) = (scoreColumn, milestoneColumn, milestones)
    }
}
