import Game2048
import GymJSON

/// A player gave no move on a board where a move was legal: a game cannot go on, and ending it there would
/// report a score the player never earned (an evaluation stops instead).
public struct PlayerStall: Error, Hashable, Sendable, CustomStringConvertible {
    /// The player's name.
    public var player: String
    /// The game it happened in, from 0.
    public var game: Int
    /// The board it gave no move on.
    public var board: Board

    /// Creates the error.
    public init(player: String, game: Int, board: Board) {
        (self.player, self.game, self.board) = (player, game, board)
    }

    /// "game 1: the optimal player gave no move on a board with legal moves: [[2,4],[8,0]]".
    public var description: String {
        "game \(game + 1): the \(player) player gave no move on a board with legal moves: \(JSONValue(board: board).serialized)"
    }
}
