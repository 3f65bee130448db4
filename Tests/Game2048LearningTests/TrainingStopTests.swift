import Game2048
import Synchronization
import Testing
@testable import Game2048Network
@testable import Game2048Training

struct TrainingStopTests {
    @Test func aRequestIsDueAtOnceAndStaysDue() {
        let stop = TrainingStop()
        #expect(!stop.isDue && !stop.isRequested)
        stop.setDeadline(secondsFromNow: 1e9)
        #expect(!stop.isDue)
        stop.setDeadline(secondsFromNow: 0)
        #expect(stop.isDue && !stop.isRequested)
        stop.setDeadline(secondsFromNow: nil)
        #expect(!stop.isDue)
        stop.request()
        #expect(stop.isDue && stop.isRequested)
    }

    /// An 8×8 game lasts millions of moves: a stop once waited for its end. Now the game in progress
    /// is cut at the next check, and the loop starts no other game.
    @Test(arguments: [TDLearner.Schedule.forward, .backward])
    func aStopEndsALongGameWithinTheCheckInterval(schedule: TDLearner.Schedule) throws {
        let learner = TDLearner(network: NTupleNetwork(rows: 8, cols: 8), rules: try Rules(rows: 8, cols: 8), schedule: schedule)
        learner.stop.request()
        var rng = Xoshiro256StarStar(seed: 1)
        #expect(learner.trainGame(using: &rng).moves == TDLearner.stopCheckInterval)
        let loop = TrainingLoop(learner: learner, gamesBefore: 0)
        #expect(loop.run(TrainingPlan(games: 10, threads: 2, seed: 1)) { _, _ in true } == 0)
    }

    /// A stop during a run of several lanes cuts every lane's game within the check interval, and the
    /// loop reports each of them: none is lost, none hangs.
    @Test(arguments: [2, 3])
    func aStopEndsTheGameOfEveryLane(lanes: Int) throws {
        let learner = TDLearner(network: NTupleNetwork(rows: 8, cols: 8), rules: try Rules(rows: 8, cols: 8))
        let reported = Mutex<[GameResult]>([])
        let loop = TrainingLoop(learner: learner, gamesBefore: 0)
        // 8x8 games last far longer than the interval: the first check of each lane's game sees the stop.
        learner.stop.request()
        let played = loop.run(TrainingPlan(games: 10, threads: 1, lanes: lanes, seed: 1)) { result, _ in
            reported.withLock { $0.append(result) }
            return true
        }
        #expect(played == 0)
        #expect(reported.withLock { $0.isEmpty })
        // A stop requested once every lane has started its game: each is cut at its first check, none starts after.
        let running = TDLearner(network: NTupleNetwork(rows: 8, cols: 8), rules: try Rules(rows: 8, cols: 8))
        var rng = Xoshiro256StarStar(seed: 1)
        var results: [GameResult] = []
        var started = 0
        running.trainGames(
            lanes: lanes, using: &rng,
            mayStart: {
                guard !running.stop.isDue else { return false }
                started += 1
                if started == lanes { running.stop.request() }
                return true
            }, finished: { results.append($0) })
        #expect(started == lanes)
        #expect(results.count == lanes)
        #expect(results.allSatisfy { $0.moves == TDLearner.stopCheckInterval })
    }
}
