import Dispatch
import Game2048
import Synchronization
import Game2048Network

/// The figures of an evaluation: games played by one player under one set of rules.
public struct EvaluationReport: Sendable {
    /// The player's name.
    public var player: String
    /// Every game, in game order.
    public var games: [GameResult]
    /// Wall-clock seconds.
    public var seconds: Double

    /// Creates a report.
    public init(player: String, games: [GameResult], seconds: Double) {
        self.player = player
        self.games = games
        self.seconds = seconds
    }

    /// Mean score (summed wide: scores near 2^63 do not overflow).
    public var meanScore: Double { games.isEmpty ? 0 : Double(games.reduce(Int128(0)) { $0 + Int128($1.score) }) / Double(games.count) }
    /// Median score.
    public var medianScore: Double {
        let sorted = games.map(\.score).sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(Int128(sorted[middle - 1]) + Int128(sorted[middle])) / 2
    }
    /// Highest score.
    public var maxScore: Int64 { games.map(\.score).max() ?? 0 }
    /// The standard error of the mean score: sample standard deviation / √n.
    public var standardError: Double {
        guard games.count > 1 else { return 0 }
        let mean = meanScore
        let variance = games.reduce(0.0) { $0 + (Double($1.score) - mean) * (Double($1.score) - mean) } / Double(games.count - 1)
        return (variance / Double(games.count)).squareRoot()
    }
    /// The fraction of games that reached `tile`.
    public func reachRate(_ tile: Int) -> Double {
        games.isEmpty ? 0 : Double(games.count { $0.maxTile >= tile }) / Double(games.count)
    }
    /// Moves played in all games.
    public var moves: Int128 { games.reduce(Int128(0)) { $0 + Int128($1.moves) } }
    /// Moves played per wall-clock second.
    public var movesPerSecond: Double { seconds > 0 ? Double(moves) / seconds : 0 }
    /// The tiles whose reach rates are reported: the largest tile any game reached and the four below it
    /// (2048 … 32768 for a strong 4×4 player, 32 … 512 on 3×3), so the rates say something on every board.
    public var milestones: [Int] {
        let largest = max(games.map(\.maxTile).max() ?? 0, 32)
        let exponent = largest.trailingZeroBitCount
        return (max(1, exponent - 4)...exponent).map { 1 << $0 }
    }
}

/// How far an evaluation has come: reported after every move, so a slow player still shows progress.
public struct EvaluationProgress: Sendable, Hashable {
    /// Games finished.
    public var games: Int
    /// Moves played so far, in all games (finished or not).
    public var moves: Int
}

/// Plays evaluation games through the public `Environment` API, on several threads.
public enum Evaluation {
    /// Plays `games` games and reports them.
    ///
    /// Game `i` runs on an environment seeded with the `i + 1`-th output of
    /// `SplitMix64(seed: seed)` and with a player made by `makePlayer(i)`, so the
    /// results do not depend on the number of threads.
    ///
    /// - Parameters:
    ///   - rules: the rules of every game.
    ///   - games: how many games to play.
    ///   - seed: the seed the games' seeds are drawn from.
    ///   - threads: how many threads play (at least one, at most one a game).
    ///   - makePlayer: makes the player of game `i`; called on the thread that plays it.
    ///   - progressEveryMove: report after every move: for slow players (a search), where a move may
    ///     take a while. Otherwise a report comes after every game and every `movesPerReport` moves
    ///     within one (a greedy game on 8×8 plays tens of millions of moves): the moves are counted
    ///     per thread and added to the shared counter in batches, which costs the fastest players
    ///     nothing measurable, where a shared counter per move halved their speed.
    ///   - movesPerReport: the moves between reports within a game, without `progressEveryMove` (rounded up to a
    ///     power of two).
    ///   - progress: called from worker threads (possibly at once) after every game (and every move
    ///     with `progressEveryMove`), with the games finished and the moves played; keep it cheap.
    public static func run(
        rules: Rules, games: Int, seed: UInt64, threads: Int,
        makePlayer: @escaping @Sendable (Int) -> any Player,
        progressEveryMove: Bool = false, movesPerReport: Int = 1 << 16,
        progress: (@Sendable (EvaluationProgress) -> Void)? = nil
    ) throws(PlayerStall) -> EvaluationReport {
        let seeds = VectorEnvironment.seeds(from: seed, count: games)
        let state = Mutex<(next: Int, done: Int, results: [GameResult?], stall: PlayerStall?)>(
            (0, 0, Array(repeating: nil, count: games), nil))
        let counters = Counters()
        // A power of two, so that a game tests its move count with a mask.
        let batch = progressEveryMove || movesPerReport <= 1 ? 1 : 1 << (Int.bitWidth - (movesPerReport - 1).leadingZeroBitCount)
        var moveHook: (@Sendable () -> Void)? = nil
        if let progress {
            moveHook = {
                let moves = counters.moves.wrappingAdd(batch, ordering: .relaxed).newValue
                progress(EvaluationProgress(games: counters.games.load(ordering: .relaxed), moves: moves))
            }
        }
        let onMove = moveHook
        let clock = ContinuousClock()
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, games))) { _ in
            // The thread's next game and its player, or nil when every game has been taken.
            func take() -> (index: Int, player: any Player)? {
                let index = state.withLock { s -> Int? in
                    guard s.next < games else { return nil }
                    defer { s.next += 1 }
                    return s.next
                }
                return index.map { ($0, makePlayer($0)) }
            }
            func record(_ index: Int, _ result: GameResult) {
                let done = state.withLock { s -> Int in
                    s.results[index] = result
                    s.done += 1
                    return s.done
                }
                counters.games.wrappingAdd(1, ordering: .relaxed)
                // Without a hook no move was counted; with one, all but the game's last part of a batch.
                let uncounted = onMove == nil ? result.moves : result.moves % batch
                let moves = counters.moves.wrappingAdd(uncounted, ordering: .relaxed).newValue
                progress?(EvaluationProgress(games: done, moves: moves))
            }
            var taken = take()
            while let (index, player) = taken {
                if let (network, downgradeLimit) = packedGreedyNetwork(of: player, rules: rules) {
                    // This game and the thread's next ones of the same player, two at a time; a game of another
                    // player ends the run of them and is played here next.
                    taken = playPackedLanes(
                        network: network, rules: rules, downgradeLimit: downgradeLimit, first: index, seeds: seeds, take: take,
                        finished: record, onMove: onMove, movesPerCall: batch)
                    continue
                }
                var player = player
                let result: GameResult
                do throws(PlayerStall) {
                    result = try playThroughEnvironment(rules: rules, seed: seeds[index], player: &player, onMove: onMove, movesPerCall: batch)
                } catch {
                    // The first stall in game order is the one reported; no game starts after one.
                    state.withLock { s in
                        s.next = games
                        if s.stall.map({ $0.game > index }) ?? true { s.stall = PlayerStall(player: error.player, game: index, board: error.board) }
                    }
                    return
                }
                record(index, result)
                taken = take()
            }
        }
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        if let stall = state.withLock({ $0.stall }) { throw stall }
        let results = state.withLock { $0.results.compactMap { $0 } }
        return EvaluationReport(player: makePlayer(0).name, games: results, seconds: seconds)
    }

    /// The progress counters shared by the worker threads.
    final class Counters: Sendable {
        let games = Atomic<Int>(0)
        let moves = Atomic<Int>(0)
    }

    /// One game of `player` on a fresh environment; `onMove` is called after each move.
    ///
    /// A greedy n-tuple player on a 4×4 board plays on the packed board instead, without the
    /// environment (see `playPacked(network:rules:seed:start:downgradeLimit:onMove:movesPerCall:)`): the same game, faster.
    ///
    /// - Throws: ``PlayerStall`` (game 0) when the player gives no move on a board where one is legal.
    public static func play(rules: Rules, seed: UInt64, player: inout some Player, onMove: (() -> Void)? = nil) throws(PlayerStall)
        -> GameResult
    {
        try play(rules: rules, seed: seed, player: &player, onMove: onMove, movesPerCall: 1)
    }

    /// ``play(rules:seed:player:onMove:)`` calling `onMove` after every `movesPerCall`-th move only
    /// (a power of two): a closure call per move costs a fast player about 3 %.
    static func play(rules: Rules, seed: UInt64, player: inout some Player, onMove: (() -> Void)?, movesPerCall: Int) throws(PlayerStall)
        -> GameResult
    {
        if let (network, downgradeLimit) = packedGreedyNetwork(of: player, rules: rules) {
            return playPacked(
                network: network, rules: rules, seed: seed, downgradeLimit: downgradeLimit, onMove: onMove, movesPerCall: movesPerCall)
        }
        return try playThroughEnvironment(rules: rules, seed: seed, player: &player, onMove: onMove, movesPerCall: movesPerCall)
    }

    /// One game of `player` through the public `Environment` API: the reference the fast paths are tested against.
    ///
    /// - Parameters:
    ///   - rules: the rules of the game.
    ///   - seed: the environment's seed.
    ///   - start: the board to start from instead of `rules.initialTiles` random tiles (for tests).
    ///   - player: chooses every move.
    ///   - onMove: called after every `movesPerCall`-th move.
    ///   - movesPerCall: a power of two (1: every move).
    static func playThroughEnvironment(
        rules: Rules, seed: UInt64, start: Board? = nil, player: inout some Player,
        onMove: (() -> Void)? = nil, movesPerCall: Int = 1
    ) throws(PlayerStall) -> GameResult {
        var env = Environment(rules: rules)
        var state = env.reset(seed: seed)
        if let start, let reset = try? env.reset(seed: seed, board: start) { state = reset }
        var moves = 0
        while !env.isOver {
            // The environment is not over, so a move is legal: a player without one cannot be scored.
            guard let action = player.action(on: state.observation, rules: rules) else {
                throw PlayerStall(player: player.name, game: 0, board: state.observation)
            }
            // A player never picks an illegal move, so even `.reject` cannot throw here.
            guard let step = try? env.step(action) else { break }
            state = Reset(observation: step.observation, info: step.info)
            moves += 1
            if moves & (movesPerCall &- 1) == 0 { onMove?() }
        }
        return GameResult(score: env.score, maxTile: state.info.maxTile, moves: moves)
    }
}
