import Game2048
import Game2048Network

/// Greedy games of a network on the packed 4×4 board, two at a time on one thread, a move of each in
/// turn: a game works out its next move's four afterstates and asks for their weights, then the other
/// game moves while those loads are on their way (as training's lanes do). Each game is the one
/// `Evaluation.playPacked` plays for its seed; only the order in which games end changes.
struct PackedGreedyLanes<V: ValueFunction> where V.Position == Bitboard {
    /// A game in a lane: its index in the evaluation and its state.
    typealias Lane = (index: Int, game: PackedGreedyGame<V>)

    let valueFunction: V
    let rules: Rules
    let episode: EpisodeRules
    let downgradeLimit: UInt8?
    let downgradeFrom: UInt8
    let table = Bitboard.MoveTable()
    /// The depth-0 search that values afterstates downgraded near the downgrading limit; a decision empties its
    /// table, so the lanes share it.
    var downgrading: PackedExpectimax<V>

    init(_ valueFunction: V, rules: Rules, downgradeLimit: UInt8?) {
        self.valueFunction = valueFunction
        self.rules = rules
        episode = rules.episodeRules
        self.downgradeLimit = downgradeLimit
        downgradeFrom = PackedGreedyGame<V>.downgradeFrom(downgradeLimit)
        downgrading = PackedExpectimax(valueFunction: valueFunction, nodeBudget: nil, pruneBelow: 0, downgradeLimit: downgradeLimit)
    }

    /// Plays `first` and then the games `next` gives (`nil`: no more) two at a time, calling `finished` with
    /// each game's index and result as it ends, and `onMove` after every `movesPerCall`-th move of a game.
    mutating func run(
        first: (index: Int, seed: UInt64), next: () -> (index: Int, seed: UInt64)?, finished: (Int, GameResult) -> Void,
        onMove: (() -> Void)?, movesPerCall: Int
    ) {
        let slotCount = 4 &* V.storedFeatureCount
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 &* slotCount) { buffer in
            let slots = (buffer.baseAddress.unsafelyUnwrapped, buffer.baseAddress.unsafelyUnwrapped + slotCount)
            var a = begin(first, slots: slots.0, next: next, finished: finished, onMove: onMove, movesPerCall: movesPerCall)
            var b = begin(next(), slots: slots.1, next: next, finished: finished, onMove: onMove, movesPerCall: movesPerCall)
            while a != nil || b != nil {
                move(&a, slots: slots.0, next: next, finished: finished, onMove: onMove, movesPerCall: movesPerCall)
                move(&b, slots: slots.1, next: next, finished: finished, onMove: onMove, movesPerCall: movesPerCall)
            }
        }
    }

    /// The lane of `entry`, or of the first game after it that does not end before its first move (those are
    /// finished at once); `nil` when none is left.
    func begin(
        _ entry: (index: Int, seed: UInt64)?, slots: UnsafeMutablePointer<Int32>, next: () -> (index: Int, seed: UInt64)?,
        finished: (Int, GameResult) -> Void, onMove: (() -> Void)?, movesPerCall: Int
    ) -> Lane? {
        var entry = entry
        while let (index, seed) = entry {
            var game = PackedGreedyGame<V>(episode: episode, seed: seed, start: nil)
            if game.isPlaying {
                game.candidates = valueFunction.candidates(on: game.board, table: table, slots: slots)
                return (index, game)
            }
            finished(index, finish(game, onMove: onMove, movesPerCall: movesPerCall))
            entry = next()
        }
        return nil
    }

    /// One move of `lane`'s game, its next move's weights asked for; when the game ends, the lane takes the next.
    @inline(__always)
    mutating func move(
        _ lane: inout Lane?, slots: UnsafeMutablePointer<Int32>, next: () -> (index: Int, seed: UInt64)?,
        finished: (Int, GameResult) -> Void, onMove: (() -> Void)?, movesPerCall: Int
    ) {
        guard let (index, current) = lane, let candidates = current.candidates else { return }
        var game = current
        let moved = game.play(
            valueFunction.greedyMove(among: candidates), table: table, episode: episode, downgrading: &downgrading,
            downgradeFrom: downgradeFrom)
        if moved && game.moves & (movesPerCall &- 1) == 0 { onMove?() }
        if game.isPlaying {
            game.candidates = valueFunction.candidates(on: game.board, table: table, slots: slots)
            lane = (index, game)
        } else {
            finished(index, finish(game, onMove: onMove, movesPerCall: movesPerCall))
            lane = begin(next(), slots: slots, next: next, finished: finished, onMove: onMove, movesPerCall: movesPerCall)
        }
    }

    func finish(_ game: PackedGreedyGame<V>, onMove: (() -> Void)?, movesPerCall: Int) -> GameResult {
        game.finish(network: valueFunction.network, rules: rules, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
    }
}
