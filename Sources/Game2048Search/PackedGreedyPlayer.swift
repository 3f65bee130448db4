import Game2048
import Game2048Network

/// Greedy games of a network on the packed 4×4 board: one alone (``play(seed:start:)``), or two at a time on one
/// thread, a move of each in turn (``run(first:next:finished:)``): a game works out its next move's four
/// afterstates and asks for their weights, then the other game moves while those loads are on their way (as
/// training's lanes do). Each game is its seed's, whichever way it is played; only the order in which games end
/// changes.
struct PackedGreedyPlayer<V: ValueFunction> where V.Position == Bitboard {
    /// A game in a lane: its index in the evaluation, its state, and its next move's candidates with their
    /// weights asked for.
    typealias Lane = (index: Int, game: PackedGreedyGame<V>, candidates: MoveCandidates<V>)

    let valueFunction: V
    let rules: Rules
    let episode: EpisodeRules
    let downgradeLimit: UInt8?
    let downgradeFrom: UInt8
    let table = Bitboard.MoveTable()
    /// Called after every `movesPerCall`-th move of a game (a power of two).
    let onMove: (() -> Void)?
    let movesPerCall: Int
    /// The depth-0 search that values afterstates downgraded near the downgrading limit; a decision empties its
    /// table, so games share it.
    var downgrading: PackedExpectimax<V>

    init(_ valueFunction: V, rules: Rules, downgradeLimit: UInt8?, onMove: (() -> Void)?, movesPerCall: Int) {
        self.valueFunction = valueFunction
        self.rules = rules
        episode = rules.episodeRules
        self.downgradeLimit = downgradeLimit
        downgradeFrom = PackedGreedyGame<V>.downgradeFrom(downgradeLimit)
        self.onMove = onMove
        self.movesPerCall = movesPerCall
        downgrading = PackedExpectimax(valueFunction: valueFunction, nodeBudget: nil, pruneBelow: 0, downgradeLimit: downgradeLimit)
    }

    /// One game, seeded with `seed`, from `start` instead of the rules' starting tiles if given (for tests).
    mutating func play(seed: UInt64, start: Bitboard?) -> GameResult {
        var game = PackedGreedyGame<V>(episode: episode, seed: seed, start: start)
        while game.isPlaying {
            // The move's four afterstates are valued in registers: one game has no other to overlap with.
            advance(&game, valueFunction.greedyMove(on: game.board, table: table))
        }
        return finish(game)
    }

    /// Plays `first` and then the games `next` gives (`nil`: no more) two at a time, calling `finished` with
    /// each game's index and result as it ends.
    mutating func run(first: (index: Int, seed: UInt64), next: () -> (index: Int, seed: UInt64)?, finished: (Int, GameResult) -> Void) {
        let slotCount = 4 &* V.storedFeatureCount
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 &* slotCount) { buffer in
            let slots = (buffer.baseAddress.unsafelyUnwrapped, buffer.baseAddress.unsafelyUnwrapped + slotCount)
            var a = begin(first, slots: slots.0, next: next, finished: finished)
            var b = begin(next(), slots: slots.1, next: next, finished: finished)
            while a != nil || b != nil {
                move(&a, slots: slots.0, next: next, finished: finished)
                move(&b, slots: slots.1, next: next, finished: finished)
            }
        }
    }

    /// The lane of `entry`, or of the first game after it that does not end before its first move (those are
    /// finished at once); `nil` when none is left.
    func begin(
        _ entry: (index: Int, seed: UInt64)?, slots: UnsafeMutablePointer<Int32>, next: () -> (index: Int, seed: UInt64)?,
        finished: (Int, GameResult) -> Void
    ) -> Lane? {
        var entry = entry
        while let (index, seed) = entry {
            let game = PackedGreedyGame<V>(episode: episode, seed: seed, start: nil)
            if game.isPlaying { return (index, game, valueFunction.candidates(on: game.board, table: table, slots: slots)) }
            finished(index, finish(game))
            entry = next()
        }
        return nil
    }

    /// One move of `lane`'s game, its next move's weights asked for; when the game ends, the lane takes the next.
    @inline(__always)
    mutating func move(
        _ lane: inout Lane?, slots: UnsafeMutablePointer<Int32>, next: () -> (index: Int, seed: UInt64)?,
        finished: (Int, GameResult) -> Void
    ) {
        guard let (index, current, candidates) = lane else { return }
        var game = current
        advance(&game, valueFunction.greedyMove(among: candidates))
        if game.isPlaying {
            lane = (index, game, valueFunction.candidates(on: game.board, table: table, slots: slots))
        } else {
            finished(index, finish(game))
            lane = begin(next(), slots: slots, next: next, finished: finished)
        }
    }

    /// Plays `choice` in `game` (see ``PackedGreedyGame/play(_:table:episode:downgrading:downgradeFrom:)``) and
    /// reports the move.
    @inline(__always)
    mutating func advance(_ game: inout PackedGreedyGame<V>, _ choice: GreedyChoice<Bitboard>) {
        let moved = game.play(choice, table: table, episode: episode, downgrading: &downgrading, downgradeFrom: downgradeFrom)
        if moved && game.moves & (movesPerCall &- 1) == 0 { onMove?() }
    }

    func finish(_ game: PackedGreedyGame<V>) -> GameResult {
        game.finish(network: valueFunction.network, rules: rules, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
    }
}
