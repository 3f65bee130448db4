import Testing
@testable import Game2048

struct MoveOutcomeTests {
    @Test func illegalMoveOutcomeKeepsTheBoard() {
        let b = board(2, 2, [2, 4, 0, 0])
        #expect(b.moved(.up) == MoveOutcome(afterstate: b, reward: 0, changed: false, highestMerge: 0))
        #expect(b.moved(.down) == MoveOutcome(afterstate: board(2, 2, [0, 0, 2, 4]), reward: 0, changed: true, highestMerge: 0))
    }

    @Test func tileMovementDocumentationExample() {
        // Row [2 2 . 4] moved left.
        let b = board(2, 4, [2, 2, 0, 4, 8, 0, 0, 0])
        #expect(b.movements(.left) == [TileMovement(from: 1, to: 0, merged: true), TileMovement(from: 3, to: 1, merged: false)])
    }
}
