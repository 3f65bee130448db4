import Game2048
import Game2048Network

// Greedy n-tuple evaluation on the packed board: the fast path of `Evaluation.play`.
//
// The generic path plays through `Environment`, unpacks every observation into a `Board`, and asks
// an `any Player` for a move, which searches over `Board`s and packs each afterstate again to read
// the network. A greedy n-tuple player on a 4×4 board needs none of that: this loop keeps the game
// in one `UInt64`, reads the network straight from it, and draws from the same generator in the same
// order as the environment, so it plays the very same games (the tests compare both paths seed by
// seed). It hands over to the generic rules when a 32 768 tile appears, as the environment does.

extension Evaluation {
    /// The network of `player` when it plays greedily over afterstates of a packed 4×4 board
    /// under `rules`, so that ``playPacked(network:rules:seed:start:downgradeLimit:onMove:movesPerCall:)`` plays its games; otherwise `nil`.
    static func packedGreedyNetwork(of player: some Player, rules: Rules) -> (network: NTupleNetwork, downgradeLimit: UInt8?)? {
        guard rules.rows == 4, rules.cols == 4, let search = player as? SearchPlayer,
            search.search.depth == 0, case .network(let network) = search.search.evaluator,
            network.readsBitboards
        else { return nil }
        // Depth 0 visits at most four chance nodes; a budget below that cuts the greedy layer short.
        if let budget = search.search.nodeBudget, budget < 4 { return nil }
        return (network, search.search.downgradeLimit)
    }

    /// One game of the greedy `network` player, the same game as ``play(rules:seed:player:onMove:)``
    /// with `SearchPlayer(network: network, depth: 0)`.
    ///
    /// - Parameters:
    ///   - network: the network the player is greedy on; it reads packed boards.
    ///   - rules: 4×4 rules.
    ///   - seed: the game's seed, as for ``play(rules:seed:player:onMove:)``.
    ///   - start: the board to start from instead of `rules.initialTiles` random tiles (for tests).
    ///   - downgradeLimit: the player's tile-downgrading limit (see `TileDowngrade`), or `nil` for none.
    ///   - onMove: called after every `movesPerCall`-th move.
    ///   - movesPerCall: a power of two (1: every move).
    static func playPacked(
        network: NTupleNetwork, rules: Rules, seed: UInt64, start: Bitboard? = nil,
        downgradeLimit: UInt8? = nil, onMove: (() -> Void)? = nil, movesPerCall: Int = 1
    ) -> GameResult {
        network.withPackedValue(
            {
                playPacked(
                    $0, rules: rules, seed: seed, start: start, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
            },
            {
                playPacked(
                    $0, rules: rules, seed: seed, start: start, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
            })
    }

    /// ``playPacked(network:rules:seed:start:downgradeLimit:onMove:movesPerCall:)`` read through
    /// `valueFunction`, specialized for its kind.
    static func playPacked<V: ValueFunction>(
        _ valueFunction: V, rules: Rules, seed: UInt64, start: Bitboard?, downgradeLimit: UInt8?, onMove: (() -> Void)?,
        movesPerCall: Int
    ) -> GameResult where V.Position == Bitboard {
        let network = valueFunction.network
        let table = Bitboard.MoveTable()
        let episode = rules.episodeRules
        var rng = Xoshiro256StarStar(seed: seed)
        var board = Bitboard(rawValue: 0)
        if let start {
            board = start
        } else {
            episode.placeStartingTiles(on: &board, using: &rng)
        }
        var highest = board.maxExponent
        var score: Int64 = 0, moves = 0
        // The environment's episode ends when no move is legal, the win tile is there, or the step limit is
        // reached (its EpisodeRules); the first is found by the loop's greedy step.
        var over = episode.isWon(highest: highest)
        // From a tile one below the downgrading limit on, a move can make a tile at the limit, whose
        // afterstate is valued downgraded: the packed search at depth 0 does that (more slowly).
        let downgradeFrom = min(15, max(1, downgradeLimit ?? 16) - 1)
        var downgrading = PackedExpectimax(valueFunction: valueFunction, nodeBudget: nil, pruneBelow: 0, downgradeLimit: downgradeLimit)
        while !over && highest < 15 {
            // `Expectimax.maxNode` at depth 0: the first legal move, then any with a strictly larger value.
            let choice = valueFunction.greedyMove(on: board, table: table)
            var (best, bestReward, bestMerge, found) = (choice.afterstate, choice.reward, choice.highestMerge, choice.found)
            // No legal move: the game is over. (Asked here rather than of `legalMoves` after each spawn, as
            // the four moves are made here anyway.)
            guard found else {
                over = true
                break
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
            if moves & (movesPerCall &- 1) == 0 { onMove?() }
            over = episode.isWon(highest: highest) || episode.isTruncated(steps: moves)
        }
        guard !over else { return GameResult(score: score, maxTile: Board.value(ofExponent: highest), moves: moves) }
        return playGenericContinuation(
            network: network, rules: rules, board: Board(board), rng: rng,
            highest: highest, score: score, moves: moves, downgradeLimit: downgradeLimit, onMove: onMove,
            movesPerCall: movesPerCall)
    }

    /// The rest of a game past the packed board's range: `Environment`'s rules on `Board`.
    ///
    /// On 4×4 no move can merge two tiles at `Rules.largestExponent` (two 131 072 tiles cannot
    /// both appear), so every move the player picks is legal and no invalid-action policy applies.
    static func playGenericContinuation(
        network: NTupleNetwork, rules: Rules, board: Board, rng: Xoshiro256StarStar,
        highest: UInt8, score: Int64, moves: Int, downgradeLimit: UInt8?, onMove: (() -> Void)?, movesPerCall: Int
    ) -> GameResult {
        var board = board, rng = rng, highest = highest, score = score, moves = moves
        var player = SearchPlayer(network: network, depth: 0, downgradeLimit: downgradeLimit)
        let episode = rules.episodeRules
        while let action = player.action(on: board, rules: rules) {
            let outcome = board.moved(action)
            guard outcome.changed, outcome.highestMerge <= episode.largestExponent else { break }
            board = outcome.afterstate
            let spawn = episode.spawn(on: &board, using: &rng)
            highest = max(highest, outcome.highestMerge, spawn?.exponent ?? 0)
            score &+= outcome.reward
            moves += 1
            if moves & (movesPerCall &- 1) == 0 { onMove?() }
            if board.legalMoves.isEmpty || episode.isWon(highest: highest) || episode.isTruncated(steps: moves) { break }
        }
        return GameResult(score: score, maxTile: Board.value(ofExponent: highest), moves: moves)
    }
}
