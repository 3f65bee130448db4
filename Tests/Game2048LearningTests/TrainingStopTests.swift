import Game2048
import Testing
@testable import Game2048Learning

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
}
