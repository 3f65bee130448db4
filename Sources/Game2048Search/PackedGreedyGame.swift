import Game2048
import Game2048Network

/// A greedy game of a network on the packed 4×4 board, a move at a time: what ``PackedGreedyPlayer`` plays
/// alone, or two of interleaved on one thread, so that one game's weights load while the other moves.
///
/// It draws from its generator in the environment's order, so it plays the environment's game for
/// its seed (the tests compare both seed by seed), and it hands over to the generic rules when a
/// 32 768 tile appears (``finish(network:rules:downgradeLimit:onMove:movesPerCall:)``).
struct PackedGreedyGame<V: ValueFunction> where V.Position == Bitboard {
    /// The board: the last afterstate with its spawn.
    var board: Bitboard
    var rng: Xoshiro256StarStar
    /// The largest tile so far, an exponent.
    var highest: UInt8
    var score: Int64 = 0
    var moves = 0
    /// Whether the episode has ended on the packed board: no legal move, the win tile, the step limit.
    var over: Bool

    /// A new game seeded with `seed`, from `start` instead of the rules' starting tiles if given (for tests).
    @inline(__always)
    init(episode: EpisodeRules, seed: UInt64, start: Bitboard?) {
        rng = Xoshiro256StarStar(seed: seed)
        board = Bitboard(rawValue: 0)
        if let start {
            board = start
        } else {
            episode.placeStartingTiles(on: &board, using: &rng)
        }
        highest = board.maxExponent
        // The environment's episode ends when no move is legal, the win tile is there, or the step limit is
        // reached (its EpisodeRules); the first is found by the greedy move.
        over = episode.isWon(highest: highest)
    }

    /// Whether the game goes on on the packed board: not over, and no 32 768 tile, past which the packed
    /// board's four bits a cell end.
    @inline(__always)
    var isPlaying: Bool { !over && highest < 15 }

    /// The exponent from which a move may make a tile at the downgrading limit `downgradeLimit`, whose
    /// afterstate is valued downgraded: from there on ``play(_:table:episode:downgrading:downgradeFrom:)``
    /// asks the packed search at depth 0 (which downgrades, more slowly) instead.
    @inline(__always)
    static func downgradeFrom(_ downgradeLimit: UInt8?) -> UInt8 { min(15, max(1, downgradeLimit ?? 16) - 1) }

    /// Plays `choice`, the greedy move on ``board`` (`Expectimax.maxNode` at depth 0: the first legal move,
    /// then any with a strictly larger value), or the downgrading search's from `downgradeFrom` on; then the
    /// spawn, and the checks that end the episode. Returns whether a move was made: none is legal when the
    /// game ends here.
    @inline(__always)
    mutating func play(
        _ choice: GreedyChoice<Bitboard>, table: Bitboard.MoveTable, episode: EpisodeRules,
        downgrading: inout PackedExpectimax<V>, downgradeFrom: UInt8
    ) -> Bool {
        var (best, bestReward, bestMerge) = (choice.afterstate, choice.reward, choice.highestMerge)
        // No legal move: the game is over. (Asked here rather than of `legalMoves` after each spawn, as the four
        // moves are made anyway.)
        guard choice.found else {
            over = true
            return false
        }
        if highest >= downgradeFrom, let action = downgrading.maxNode(board, depth: 0, p: 0, reach: 1).action {
            let outcome = table.move(board, action)
            (best, bestReward, bestMerge) = (outcome.afterstate, outcome.reward, outcome.highestMerge)
        }
        highest = max(highest, bestMerge)
        board = best
        if let spawn = episode.spawn(on: &board, using: &rng) { highest = max(highest, spawn.exponent) }
        score &+= bestReward
        moves += 1
        over = episode.isWon(highest: highest) || episode.isTruncated(steps: moves)
        return true
    }

    /// The game's result: as it ended on the packed board, or played to its end by the generic rules from the
    /// 32 768 tile on.
    func finish(network: NTupleNetwork, rules: Rules, downgradeLimit: UInt8?, onMove: (() -> Void)?, movesPerCall: Int) -> GameResult {
        guard !over else { return GameResult(score: score, maxTile: Board.value(ofExponent: highest), moves: moves) }
        return Evaluation.playGenericContinuation(
            network: network, rules: rules, board: Board(board), rng: rng, highest: highest, score: score, moves: moves,
            downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
    }
}
