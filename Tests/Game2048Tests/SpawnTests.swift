import Testing
@testable import Game2048

struct SpawnTests {
    @Test func valueIsTwoToTheExponent() {
        #expect(Spawn(cell: 5, exponent: 1).value == 2)
        #expect(Spawn(cell: 5, exponent: 2).value == 4)
    }

    @Test func chanceOutcomeHoldsItsSpawnAndProbability() {
        let outcome = ChanceOutcome(spawn: Spawn(cell: 7, exponent: 1), probability: 0.3)
        #expect(outcome.spawn.cell == 7)
        #expect(outcome.spawn.value == 2)
        #expect(outcome.probability == 0.3)
    }
}
