import Game2048
import Testing
@testable import Game2048Network
@testable import Game2048Training

/// Restarts (`--restart`, `--restart-from`): a game that ended may play again from the board on which it first held
/// its largest tile, with new spawns.
struct RestartTests {
    /// A small 4×4 learner (two 3-tuples) that restarts games with `chance` from boards holding `tile` or more.
    static func learner(chance: Double, tile: Int = 4, staged: Bool = false, schedule: TDLearner.Schedule = .forward) throws -> TDLearner {
        let network = NTupleNetwork(
            rows: 4, cols: 4, patterns: [TuplePattern(cells: [0, 1, 2]), TuplePattern(cells: [1, 5, 6])], initialValue: 10,
            stageThresholds: staged ? [7] : [])
        return TDLearner(
            network: network, rules: try Rules(rows: 4, cols: 4), schedule: schedule, restartChance: chance, restartTile: tile)
    }

    /// Room for one game's feature indices under value function `V`; the caller deallocates it.
    static func slots<V: ValueFunction>(for _: V.Type) -> UnsafeMutablePointer<Int32> {
        UnsafeMutablePointer<Int32>.allocate(capacity: TrainingGame<V>.slotCapacity)
    }

    /// A game's restart point is the afterstate of the move that first made its largest tile (one of at least the
    /// learner's tile) when the game went on after it, with the score after that move: followed here move by move
    /// from outside the game.
    @Test(arguments: [4, 64, 256, 1 << 20])
    func theRestartPointIsWhereTheLargestTileFirstAppeared(tile: Int) throws {
        let learner = try Self.learner(chance: 0.5, tile: tile)
        let value = PackedRunValue(learner.network)
        let slots = Self.slots(for: PackedRunValue.self)
        defer { slots.deallocate() }
        var rng = Xoshiro256StarStar(seed: 5)
        for _ in 0..<20 {
            var game = TrainingGame(learner, value, slots: slots, using: &rng)
            var expected: (afterstate: Bitboard, score: Int64)? = nil
            var largest = game.board.maxExponent
            while !game.isOver {
                let movesBefore = game.moves
                game.stepNotingRestartPoint(learner, value, using: &rng)
                // A move was made and the game goes on: its afterstate is the next move's `previous`.
                guard game.moves > movesBefore, !game.isOver, let afterstate = game.previous else { continue }
                if afterstate.maxExponent > largest {
                    largest = afterstate.maxExponent
                    if Board.value(ofExponent: largest) >= tile { expected = (afterstate, game.score) }
                }
            }
            #expect(game.restartPoint?.afterstate == expected?.afterstate)
            #expect(game.restartPoint?.score == expected?.score)
            let result = game.finish(learner)
            #expect(!result.restarted)
            if tile <= 64 { #expect(expected != nil) }
            if tile == 1 << 20 { #expect(expected == nil) }
        }
    }

    /// Hand-made boards: a game restarted from a board whose largest tile is 256 looks for a 512 next (a move that
    /// scores less cannot make one), and a board that only equals its largest tile is no new point.
    @Test func onlyALargerTileMovesThePoint() throws {
        let learner = try Self.learner(chance: 0.5, tile: 64)
        let value = PackedRunValue(learner.network)
        let slots = Self.slots(for: PackedRunValue.self)
        defer { slots.deallocate() }
        func board(_ exponents: [UInt8]) throws -> Bitboard { Bitboard(try Board(rows: 4, cols: 4, exponents: exponents))! }
        let start = try board([8, 7, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        var rng = Xoshiro256StarStar(seed: 3)
        var game = TrainingGame(learner, value, slots: slots, restartingFrom: (start, 4_000), using: &rng)
        #expect(game.restarted && game.restartPoint?.afterstate == start && game.newLargestReward == 512)
        game.score = 4_500
        game.noteLargestTile(try board([8, 8, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(game.restartPoint?.afterstate == start && game.restartPoint?.score == 4_000 && game.newLargestReward == 512)
        let larger = try board([9, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        game.noteLargestTile(larger)
        #expect(game.restartPoint?.afterstate == larger && game.restartPoint?.score == 4_500 && game.newLargestReward == 1024)
        // A fresh game looks for the learner's tile first, however small its own tiles.
        let fresh = TrainingGame(learner, value, slots: slots, using: &rng)
        #expect(!fresh.restarted && fresh.restartPoint == nil && fresh.newLargestReward == 64)
    }

    /// The lane loop, written out for one lane with ``TrainingGame``: after each game, a draw decides whether the next
    /// starts at its restart point (a spawn on it, the score carried) or from the starting tiles; a game without a
    /// point draws nothing.
    @Test func oneLaneRestartsByADrawAfterEachGame() throws {
        let learner = try Self.learner(chance: 0.6, tile: 32)
        let value = PackedRunValue(learner.network)
        let slots = Self.slots(for: PackedRunValue.self)
        defer { slots.deallocate() }
        var rng = Xoshiro256StarStar(seed: 21)
        var expected: [GameResult] = []
        var game = TrainingGame(learner, value, slots: slots, using: &rng)
        while expected.count < 40 {
            while !game.isOver { game.stepNotingRestartPoint(learner, value, using: &rng) }
            expected.append(game.finish(learner))
            let point = game.restartPoint
            let restart = point != nil && rng.bernoulli(threshold: bernoulliThreshold(probability: 0.6))
            if restart, let point {
                game = TrainingGame(learner, value, slots: slots, restartingFrom: point, using: &rng)
                #expect(game.score == point.score && game.moves == 0)
                #expect(game.board.emptyCount == point.afterstate.emptyCount - 1)
            } else {
                game = TrainingGame(learner, value, slots: slots, using: &rng)
            }
        }
        let weights = learner.network.weights.values
        let laned = TDLearnerTests.laneRun(Bitboard.self, try Self.learner(chance: 0.6, tile: 32), lanes: 1, games: 40)
        #expect(laned.results == expected)
        #expect(laned.weights == weights)
        let restarted = expected.filter { $0.restarted }
        #expect(restarted.count >= 5 && restarted.count < 35)
        #expect(restarted.allSatisfy { $0.maxTile >= 32 })
    }

    /// Restarts keep what lanes promise: the same games for a seed, and the packed board's games on the generic one.
    @Test(arguments: [(1, TDLearner.Schedule.forward, false), (2, .forward, false), (3, .backward, false), (2, .forward, true)])
    func restartsAreDeterministicAndPackedEqualsGeneric(lanes: Int, schedule: TDLearner.Schedule, staged: Bool) throws {
        func learner() throws -> TDLearner { try Self.learner(chance: 0.75, tile: 16, staged: staged, schedule: schedule) }
        let packed = TDLearnerTests.laneRun(Bitboard.self, try learner(), lanes: lanes, games: 40)
        let again = TDLearnerTests.laneRun(Bitboard.self, try learner(), lanes: lanes, games: 40)
        let generic = TDLearnerTests.laneRun(Board.self, try learner(), lanes: lanes, games: 40)
        #expect(packed.results.count == 40 && packed.results.contains { $0.restarted })
        #expect(packed.results == again.results && packed.weights == again.weights)
        #expect(packed.results == generic.results && packed.weights == generic.weights)
    }

    /// A chance of 0 draws nothing: one lane's games are its games one after the other (written out with
    /// ``TrainingGame``), and those of a learner made without restarts.
    @Test func noChanceIsNoRestart() throws {
        let learner = try Self.learner(chance: 0, tile: 8)
        let value = PackedRunValue(learner.network)
        let slots = Self.slots(for: PackedRunValue.self)
        defer { slots.deallocate() }
        var rng = Xoshiro256StarStar(seed: 21)
        let expected = (0..<30).map { _ in
            var game = TrainingGame(learner, value, slots: slots, using: &rng)
            while !game.isOver { game.step(learner, using: &rng) }
            return game.finish(learner)
        }
        #expect(TDLearnerTests.laneRun(Bitboard.self, try Self.learner(chance: 0, tile: 8), lanes: 1, games: 30).results == expected)
        #expect(TDLearnerTests.laneRun(Bitboard.self, try TDLearnerTests.smallLearner(), lanes: 1, games: 30).results == expected)
        let without = TDLearnerTests.laneRun(Bitboard.self, try TDLearnerTests.smallLearner(), lanes: 2, games: 30)
        let zero = TDLearnerTests.laneRun(Bitboard.self, try Self.learner(chance: 0, tile: 8), lanes: 2, games: 30)
        #expect(zero.results == without.results && zero.weights == without.weights)
        #expect(!zero.results.contains { $0.restarted })
        let some = TDLearnerTests.laneRun(Bitboard.self, try Self.learner(chance: 0.5, tile: 8), lanes: 2, games: 30)
        #expect(some.results != without.results)
    }

    /// A restarted game counts as a game and its moves, but not in the curve's or the window's scores and tiles: it is
    /// a stretch of another game, scored from where that one stood.
    @Test func metricsCountRestartedGamesButScoreOnlyNewOnes() {
        var metrics = TrainingMetrics(interval: 2, windowSize: 10)
        var restarted = GameResult(score: 500_000, maxTile: 32768, moves: 300)
        restarted.restarted = true
        #expect(metrics.record(GameResult(score: 1_000, maxTile: 128, moves: 100), elapsedSeconds: 1) == nil)
        #expect(metrics.record(restarted, elapsedSeconds: 2) == nil)
        let row = metrics.record(GameResult(score: 3_000, maxTile: 256, moves: 200), elapsedSeconds: 3)
        #expect(row?.games == 3 && row?.moves == 600)
        #expect(row?.meanScore == 2_000)
        #expect(metrics.window.games == 2 && metrics.window.meanScore == 2_000)
        #expect(metrics.games == 3 && metrics.moves == 600)
    }

    /// The settings as `g2048 train` and the C ABI give them: the documented largest chance and tile, and a tile that
    /// is no power of two refused before a game.
    @Test func theSettingsAreCheckedBeforeTheRun() throws {
        var request = try TrainingRequest(rules: try Rules(rows: 3, cols: 3), out: "/dev/null")
        (request.restart, request.restartFrom, request.tableShare, request.games) = (0.99, 1 << 50, 0, 1)
        let setup = try TrainingSetup(request)
        #expect(setup.learner.restartChance == 0.99 && setup.learner.restartTile == 1 << 50)
        #expect(TrainingRequest.restartChances == 0...0.99 && TrainingRequest.restartTiles.upperBound == 1 << 50)
        request.restartFrom = 96
        #expect(throws: TrainingError.settings("--restart-from must be a power of two, got 96")) { try TrainingSetup(request) }
    }
}

extension RestartTests {
    /// A game that a move ends restarts from no board it ended on: with a win tile of 64, a won game's restart point
    /// holds a smaller tile (a game restarted from the win would play on past it).
    @Test func aWonGameRestartsBelowItsWinTile() throws {
        let network = NTupleNetwork(rows: 3, cols: 3, initialValue: 10)
        let learner = TDLearner(network: network, rules: try Rules(rows: 3, cols: 3, winTile: 64), restartChance: 0.9, restartTile: 8)
        let value = CellTupleValue(network)
        let slots = Self.slots(for: CellTupleValue.self)
        defer { slots.deallocate() }
        var rng = Xoshiro256StarStar(seed: 8)
        var won = 0
        for _ in 0..<100 {
            var game = TrainingGame(learner, value, slots: slots, using: &rng)
            while !game.isOver { game.stepNotingRestartPoint(learner, value, using: &rng) }
            guard game.board.maxExponent == 6 else { continue }
            won += 1
            #expect(game.restartPoint.map { $0.afterstate.maxExponent < 6 } ?? true)
        }
        #expect(won >= 10)
        let run = TDLearnerTests.laneRun(Board.self, learner, lanes: 2, games: 200)
        #expect(run.results.contains { $0.restarted } && run.results.allSatisfy { $0.maxTile <= 64 })
    }
}
