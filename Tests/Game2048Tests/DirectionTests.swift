import Testing
@testable import Game2048

struct DirectionTests {
    static let table: [(Direction, Int, String, Direction)] = [
        (.up, 0, "up", .down),
        (.right, 1, "right", .left),
        (.down, 2, "down", .up),
        (.left, 3, "left", .right),
    ]

    @Test(arguments: table)
    func rawValueNameAndOppositeFollowTheActionIndices(direction: Direction, index: Int, name: String, opposite: Direction) {
        #expect(direction.rawValue == index)
        #expect(Direction(rawValue: index) == direction)
        #expect(direction.name == name)
        #expect(direction.description == name)
        #expect(Direction(name: name) == direction)
        #expect(direction.opposite == opposite)
        #expect(direction.opposite.opposite == direction)
    }

    @Test func allCasesAreInActionOrder() {
        #expect(Direction.allCases == [.up, .right, .down, .left])
        #expect(Direction.allCases.map(\.rawValue) == [0, 1, 2, 3])
    }

    @Test(arguments: ["north", "Up", "LEFT", "", " up", "0"])
    func unknownNamesAreRejected(name: String) {
        #expect(Direction(name: name) == nil)
    }

    @Test func rawValuesOutsideTheRangeAreRejected() {
        #expect(Direction(rawValue: -1) == nil)
        #expect(Direction(rawValue: 4) == nil)
    }
}
