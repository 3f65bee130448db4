import Game2048

/// Something that happened in a ``PlaySession`` that the program around it acts on:
/// write a record line, save the best scores, stop.
package enum PlayEvent: Hashable, Sendable {
    /// A game started (the first one, or after a restart); its header begins a record.
    case started(EpisodeHeader)
    /// A legal move was played.
    case moved(EpisodeStep)
    /// A move that changes nothing was refused; the board is unchanged and nothing is recorded.
    case refused(Direction)
    /// The target tile appeared for the first time in this game; play goes on.
    case reachedTarget(Int)
    /// No legal move remains.
    case gameOver(score: Int64, isNewBest: Bool)
    /// The player quit.
    case quit
}
