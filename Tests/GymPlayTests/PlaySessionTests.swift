import Game2048
import Game2048Search
import GymPlay
import Testing

struct PlaySessionTests {
    static func session(
        rows: Int? = 4, cols: Int? = 4, seed: UInt64 = 42, target: Int? = 2048,
        best: BestScores = BestScores(directory: "/unused"), hinter: (any Player)? = nil
    ) -> PlaySession {
        PlaySession(
            configuration: PlayConfiguration(rows: rows, cols: cols, targetTile: target, seed: seed),
            bestScores: best, hinter: hinter)
    }

    @Test func startWithASizeBeginsTheGameFromTheSeed() throws {
        var session = Self.session(rows: 3, cols: 5)
        let events = session.start()
        var environment = Environment(rules: try Rules(rows: 3, cols: 5))
        let expected = environment.reset(seed: 42).observation
        #expect(events == [.started(EpisodeHeader(seed: 42, rules: try Rules(rows: 3, cols: 5), targetTile: 2048, player: "human", board: expected))])
        #expect(session.phase == .playing)
        #expect(session.environment?.board == expected)
    }

    @Test func movesFollowTheEnvironmentExactly() throws {
        var session = Self.session()
        session.start()
        var environment = Environment(rules: Rules())
        environment.reset(seed: 42)
        for direction in [Direction.left, .up, .right, .down, .left, .left, .up] where environment.actionMask.contains(direction) {
            let step = try environment.step(direction)
            #expect(session.handle(.move(direction)) == [.moved(EpisodeStep(action: direction, step: step))])
            #expect(session.environment?.board == step.observation)
        }
    }

    @Test func refusedMoveChangesNothingAndSaysWhy() throws {
        var session = Self.session(rows: 2, cols: 2)
        session.start()
        // Find a move that changes nothing on the start board.
        let board = try #require(session.environment?.board)
        let illegal = try #require(Direction.allCases.first { !board.legalMoves.contains($0) })
        #expect(session.handle(.move(illegal)) == [.refused(illegal)])
        #expect(session.environment?.board == board)
        #expect(session.environment?.steps == 0)
        #expect(session.frame.message == "\(illegal.name) does not move any tile")
    }

    @Test func startScreenChoosesASquareSizeWithArrowsAndEnter() {
        var session = Self.session(rows: nil, cols: nil)
        #expect(session.start() == [])
        #expect(session.phase == .choosingSize)
        #expect(session.frame.selected == 2)  // 4x4 among 2...6
        #expect(session.frame.menu.first == "2x2   best 0")
        session.handle(.move(.down))
        session.handle(.move(.right))
        session.handle(.move(.down))  // clamps at 6x6
        #expect(session.frame.selected == 4)
        session.handle(.move(.up))
        #expect(session.handle(.restart) == [])
        let events = session.handle(.confirm)
        guard case .started(let header)? = events.first else { Issue.record("no game started"); return }
        #expect(header.rules.sizeLabel == "5x5")
        #expect(session.phase == .playing)
    }

    @Test func quitOnTheStartScreenFinishesWithoutAGame() {
        var session = Self.session(rows: nil, cols: nil)
        session.start()
        #expect(session.handle(.quit) == [.quit])
        #expect(session.phase == .finished)
        #expect(session.environment == nil)
        #expect(session.handle(.move(.up)) == [])
    }

    @Test func restartStartsTheNextSeedOnTheSameSize() {
        var session = Self.session(rows: 3, cols: 3, seed: UInt64.max)
        session.start()
        session.handle(.move(.left))
        let events = session.handle(.restart)
        guard case .started(let header)? = events.first else { Issue.record("no game started"); return }
        #expect(header.seed == 0)  // wraps around
        #expect(header.rules.sizeLabel == "3x3")
        #expect(session.seed == 0)
        #expect(session.gamesStarted == 2)
        #expect(session.environment?.score == 0)
    }

    @Test func gameOverIsReportedOnceAndOnlyRestartOrQuitWork() {
        var session = Self.session(rows: 2, cols: 2, seed: 1)
        session.start()
        var overEvents: [PlayEvent] = []
        var rng = Xoshiro256StarStar(seed: 3)
        while session.phase == .playing {
            let events = session.handle(.move(Direction(rawValue: rng.uniform(below: 4))!))
            overEvents += events.filter { if case .gameOver = $0 { true } else { false } }
        }
        #expect(session.phase == .over)
        #expect(overEvents.count == 1)
        #expect(session.frame.message?.hasPrefix("Game over: score ") == true)
        #expect(session.handle(.move(.left)) == [])
        #expect(session.handle(.confirm) == [])
        #expect(session.handle(.restart).count == 1)
        #expect(session.phase == .playing)
    }

    @Test func firstGameOverIsANewBestAndBestScoresUpdateLive() {
        var session = Self.session(rows: 2, cols: 2, seed: 5)
        session.start()
        var rng = Xoshiro256StarStar(seed: 9)
        var last: [PlayEvent] = []
        while session.phase == .playing {
            last = session.handle(.move(Direction(rawValue: rng.uniform(below: 4))!))
            let score = session.environment!.score
            #expect(session.bestScores[rows: 2, cols: 2] == score)
        }
        let score = session.environment!.score
        #expect(last.contains(.gameOver(score: score, isNewBest: score > 0)))
        #expect(session.frame.status == "score \(score) · best \(score)")
    }

    @Test func targetTileShowsAMessageOnceAndPlayGoesOn() throws {
        // Random moves on 4x4 reach 32 quickly.
        var session = Self.session(seed: 2, target: 32)
        session.start()
        var reached = 0
        var rng = Xoshiro256StarStar(seed: 4)
        var movesAfter = 0
        while session.phase == .playing && movesAfter < 3 {
            let events = session.handle(.move(Direction(rawValue: rng.uniform(below: 4))!))
            if events.contains(.reachedTarget(32)) {
                reached += 1
                #expect(session.frame.message?.hasPrefix("You made 32! Keep going") == true)
            } else if reached > 0 && events.contains(where: { if case .moved = $0 { true } else { false } }) {
                movesAfter += 1
            }
        }
        #expect(reached == 1)
        #expect(session.reachedTarget)
    }

    @Test func hintIsTheHintPlayersChoice() throws {
        var session = Self.session(hinter: SearchPlayer(heuristicDepth: 2))
        session.start()
        var reference = SearchPlayer(heuristicDepth: 2)
        let board = try #require(session.environment?.board)
        let expected = reference.action(on: board, rules: Rules())
        #expect(session.hint == expected)
        #expect(session.frame.hint == expected?.name)
        if let expected { session.handle(.move(expected)) }
        #expect(session.hint == reference.action(on: session.environment!.board, rules: Rules()))
    }

    @Test func noHintWithoutAHintPlayer() {
        var session = Self.session()
        session.start()
        #expect(session.hint == nil)
        #expect(session.frame.hint == nil)
    }

    @Test func frameShowsTitleScoreBestAndBoard() {
        var best = BestScores(directory: "/unused")
        best.record(999, rows: 4, cols: 4)
        var session = Self.session(best: best)
        session.start()
        let frame = session.frame
        #expect(frame.title == "g2048 · 4x4 · seed 42")
        #expect(frame.status == "score 0 · best 999")
        #expect(frame.board == session.environment?.board)
        #expect(frame.help == "arrows, WASD or hjkl move · r restart · q quit")
    }

    @Test func agentSessionsSayWhoIsPlaying() {
        var session = PlaySession(
            configuration: PlayConfiguration(rows: 4, cols: 4, seed: 1, player: "greedy"),
            bestScores: BestScores(directory: "/unused"))
        session.start()
        #expect(session.frame.title == "g2048 · 4x4 · seed 1 · greedy playing")
    }
}
