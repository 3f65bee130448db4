import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Training

/// A training run's division of its games and seconds: the network's part, then the table's, and OTD+TC's switch.
struct TrainingScheduleTests {
    @Test func gamesSplitBetweenTheNetworkAndTheTable() {
        let schedule = TrainingSchedule(gamesBefore: 0, games: 10_000, seconds: nil, tableShare: 0.8, coherenceFrom: 0.5)
        #expect(schedule.learnsNetwork && schedule.learnsTable)
        #expect(schedule.networkGames == 2_000)
        #expect(schedule.networkSeconds == nil && schedule.tableSeconds == nil)
        #expect(schedule.coherenceGame == 1_000)
        #expect(schedule.coherenceSeconds == nil)
    }

    @Test func aResumedRunSplitsTheGamesStillToPlay() {
        let schedule = TrainingSchedule(gamesBefore: 5_000, games: 10_000, seconds: nil, tableShare: 0.5, coherenceFrom: 0.5)
        #expect(schedule.networkGames == 7_500)
        // The switch is a share of the network's games in total, so a resumed run may be past it from its start.
        #expect(schedule.coherenceGame == 3_750)
        #expect(schedule.coherenceIsDue(game: 5_000, elapsed: { 0 }))
    }

    @Test func secondsSplitWhenNoGamesAreSet() {
        let schedule = TrainingSchedule(gamesBefore: 0, games: nil, seconds: 600, tableShare: 0.8, coherenceFrom: 0.5)
        #expect(schedule.networkGames == nil && schedule.coherenceGame == nil)
        #expect(schedule.networkSeconds == 600 * (1 - 0.8))
        #expect(schedule.tableSeconds == 600 * 0.8)
        #expect(schedule.coherenceSeconds == 600 * (1 - 0.8) * 0.5)
        let due = schedule.coherenceSeconds!
        #expect(!schedule.coherenceIsDue(game: 1_000_000, elapsed: { due - 0.01 }))
        #expect(schedule.coherenceIsDue(game: 0, elapsed: { due }))
    }

    @Test func gamesDecideTheSwitchOverSecondsAndTheClockIsNotRead() {
        let schedule = TrainingSchedule(gamesBefore: 0, games: 100, seconds: 1, tableShare: 0, coherenceFrom: 0.3)
        #expect(schedule.coherenceGame == 30 && schedule.coherenceSeconds == nil)
        let clock = { () -> Double in
            Issue.record("the clock was read")
            return 0
        }
        #expect(!schedule.coherenceIsDue(game: 29, elapsed: clock))
        #expect(schedule.coherenceIsDue(game: 30, elapsed: clock))
    }

    @Test func withoutLimitsTheSwitchIsNeverDue() {
        let schedule = TrainingSchedule(gamesBefore: 0, games: nil, seconds: nil, tableShare: 0, coherenceFrom: 0)
        #expect(!schedule.coherenceIsDue(game: Int.max, elapsed: { .infinity }))
        #expect(schedule.learnsNetwork && !schedule.learnsTable)
    }

    @Test func aSwitchPointRoundsUpAndAShareOfTheLargestCountStaysInRange() {
        #expect(TrainingSchedule(gamesBefore: 0, games: 7, seconds: nil, tableShare: 0, coherenceFrom: 0.5).coherenceGame == 4)
        let huge = TrainingSchedule(gamesBefore: 0, games: Int.max, seconds: nil, tableShare: 0.2, coherenceFrom: 1)
        let network = huge.networkGames!
        #expect(network > 0 && network <= Int.max)
        #expect(huge.coherenceGame == network)
        #expect(TrainingSchedule.portion(1, of: Int.max) == Int.max)
        #expect(TrainingSchedule.portion(0, of: 10) == 0)
    }

    @Test func aTableLearnsByDefaultOnlyWhereOneFitsAndTheRulesAllowIt() throws {
        #expect(TrainingSchedule.tableShare(asked: nil, rules: try Rules(rows: 3, cols: 3)) == 0.8)
        #expect(TrainingSchedule.tableShare(asked: nil, rules: try Rules(rows: 2, cols: 4)) == 0.8)
        #expect(TrainingSchedule.tableShare(asked: nil, rules: try Rules(rows: 4, cols: 4)) == 0)
        #expect(TrainingSchedule.tableShare(asked: nil, rules: try Rules(rows: 3, cols: 3, maxSteps: 100)) == 0)
        #expect(TrainingSchedule.tableShare(asked: 0.25, rules: try Rules(rows: 3, cols: 3)) == 0.25)
    }

    @Test func aNetworksTableDecidesItsShare() throws {
        let rules = try Rules(rows: 2, cols: 3)
        #expect(TrainingSchedule.tableShare(of: NTupleNetwork(rows: 2, cols: 3), asked: 0.5, rules: rules) == 0)
        let table = AfterstateTable(rows: 2, cols: 3)
        let network = NTupleNetwork(rows: 2, cols: 3, afterstates: table)
        #expect(TrainingSchedule.tableShare(of: network, asked: nil, rules: rules) == 0.8)
        #expect(TrainingSchedule.tableShare(of: network, asked: 0.5, rules: rules) == 0.5)
        // A table that holds afterstates learns alone: its network no longer learns under it.
        #expect(table.set(canonical: table.canonical(0x21), to: 1))
        #expect(TrainingSchedule.tableShare(of: network, asked: 0.5, rules: rules) == 1)
    }

    @Test func aSweepUnlessGamesAreAskedOrTheClockIsTooShort() throws {
        let rules = try Rules(rows: 2, cols: 3)
        let untimed = TrainingSchedule(gamesBefore: 0, games: 100, seconds: nil, tableShare: 0.8, coherenceFrom: 0.5)
        #expect(untimed.tableLearning(asked: nil, rules: rules, threads: 1) == (.sweep, nil))
        #expect(untimed.tableLearning(asked: .games, rules: rules, threads: 1) == (.games, nil))
        #expect(untimed.tableLearning(asked: .sweep, rules: rules, threads: 1) == (.sweep, nil))
        // 3×3 takes tens of seconds to sweep: a table's part of a millisecond learns from games instead.
        let short = TrainingSchedule(gamesBefore: 0, games: nil, seconds: 0.001, tableShare: 0.8, coherenceFrom: 0.5)
        #expect(short.tableLearning(asked: nil, rules: try Rules(rows: 3, cols: 3), threads: 1).method == .games)
        #expect(short.tableLearning(asked: .sweep, rules: try Rules(rows: 3, cols: 3), threads: 1).method == .sweep)
    }
}
