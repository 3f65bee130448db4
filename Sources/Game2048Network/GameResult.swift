/// The result of one game, for statistics.
public struct GameResult: Hashable, Sendable {
    /// The final score.
    public var score: Int64
    /// The largest tile reached (its value).
    public var maxTile: Int
    /// Moves played.
    public var moves: Int
    /// Whether a value read during the game was infinite or NaN: the weights diverged (a learning
    /// rate too large), and the game was cut there.
    public var diverged = false
    /// Whether the game began where an earlier game first held its largest tile (a training restart) rather than
    /// from the rules' starting tiles: its score counts the moves before that point, its moves only its own.
    public var restarted = false

    /// Creates a result.
    public init(score: Int64, maxTile: Int, moves: Int) {
        self.score = score
        self.maxTile = maxTile
        self.moves = moves
    }
}
