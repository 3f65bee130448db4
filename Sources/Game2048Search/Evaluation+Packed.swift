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
        var player = PackedGreedyPlayer(valueFunction, rules: rules, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
        return player.play(seed: seed, start: start)
    }

    /// Plays game `first` and the next games `take` gives while their player is the same greedy `network` player,
    /// two at a time on this thread (``PackedGreedyPlayer``), calling `finished` with each game's index and
    /// result; returns the game taken whose player is another, for the caller to play, or `nil`.
    static func playPackedLanes(
        network: NTupleNetwork, rules: Rules, downgradeLimit: UInt8?, first: Int, seeds: [UInt64],
        take: () -> (index: Int, player: any Player)?, finished: (Int, GameResult) -> Void, onMove: (() -> Void)?,
        movesPerCall: Int
    ) -> (index: Int, player: any Player)? {
        var other: (index: Int, player: any Player)? = nil
        func next() -> (index: Int, seed: UInt64)? {
            guard other == nil, let (index, player) = take() else { return nil }
            if let next = packedGreedyNetwork(of: player, rules: rules), next.network === network, next.downgradeLimit == downgradeLimit {
                return (index, seeds[index])
            }
            other = (index, player)
            return nil
        }
        func run<V: ValueFunction>(_ valueFunction: V) where V.Position == Bitboard {
            var player = PackedGreedyPlayer(valueFunction, rules: rules, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
            player.run(first: (first, seeds[first]), next: next, finished: finished)
        }
        network.withPackedValue({ run($0) }, { run($0) })
        return other
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
