import Testing
@testable import Game2048

struct StepTests {
    @Test(arguments: Direction.allCases)
    func stepErrorNamesTheAction(direction: Direction) {
        #expect(StepError.illegalAction(direction).description == "illegal action \(direction.name): it does not change the board")
    }

    @Test func stepErrorDocumentationExample() {
        #expect("\(StepError.illegalAction(.left))" == "illegal action left: it does not change the board")
    }

    @Test func recordsCompareByValue() {
        let b = board(2, 2, [2, 0, 0, 0])
        let info = StepInfo(
            actionMask: [.right, .down], score: 4, maxTile: 2, steps: 1, afterstate: b, spawn: Spawn(cell: 3, exponent: 1), invalid: false, won: false)
        let step = Step(observation: b, reward: 4, terminated: false, truncated: false, info: info)
        var other = step
        #expect(other == step)
        other.info.spawn = Spawn(cell: 2, exponent: 1)
        #expect(other != step)
        #expect(Reset(observation: b, info: info) == Reset(observation: b, info: info))
        #expect(Afterstate(direction: .up, legal: false, reward: 0, board: b).board == b)
    }
}
