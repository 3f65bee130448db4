import Testing
@testable import Game2048

struct ActionMaskTests {
    /// The legal directions of a raw mask, computed bit by bit.
    static func naiveDirections(_ raw: UInt8) -> [Direction] {
        (0..<4).filter { raw >> UInt8($0) & 1 == 1 }.map { Direction(rawValue: $0)! }
    }

    @Test(arguments: UInt8(0)...UInt8(15))
    func countAndIndexedDirectionsMatchANaiveScan(raw: UInt8) {
        let mask = ActionMask(rawValue: raw)
        let naive = Self.naiveDirections(raw)
        #expect(mask.count == naive.count)
        #expect(mask.directions == naive)
        for (index, direction) in naive.enumerated() {
            #expect(mask.direction(at: index) == direction)
        }
        #expect(mask.booleans == (0..<4).map { raw >> UInt8($0) & 1 == 1 })
        for direction in Direction.allCases {
            #expect(mask.contains(direction) == naive.contains(direction))
        }
        #expect(mask.description == "[" + naive.map(\.name).joined(separator: ", ") + "]")
        #expect(mask.isEmpty == naive.isEmpty)
    }

    @Test(arguments: UInt8(0)...UInt8(15))
    func storeBytesWritesOneByteAnAction(raw: UInt8) {
        var bytes: [UInt8] = [0xEE, 0xEE, 0xEE, 0xEE, 0xEE]
        bytes.withUnsafeMutableBufferPointer { ActionMask(rawValue: raw).storeBytes(at: $0.baseAddress!) }
        #expect(bytes == ActionMask(rawValue: raw).booleans.map { $0 ? 1 : 0 } + [0xEE])
    }

    @Test func documentationExampleHolds() {
        let mask: ActionMask = [.left, .down]
        #expect(mask.contains(.left))
        #expect(mask.rawValue == 0b1100)
        #expect(mask.booleans == [false, false, true, true])
        #expect(mask.description == "[down, left]")
        let pair: ActionMask = [.right, .left]
        #expect(pair.direction(at: 1) == .left)
    }

    @Test func highBitsAreDropped() {
        #expect(ActionMask(rawValue: 0xFF) == .all)
        #expect(ActionMask(rawValue: 0xF0).isEmpty)
        #expect(ActionMask(rawValue: 0x35).rawValue == 0x5)
        #expect(ActionMask.all.count == 4)
    }

    @Test(arguments: Direction.allCases)
    func singleDirectionMaskHasOneBit(direction: Direction) {
        let mask = ActionMask(direction)
        #expect(mask.rawValue == 1 << UInt8(direction.rawValue))
        #expect(mask.count == 1)
        #expect(mask.direction(at: 0) == direction)
        #expect([ActionMask.up, .right, .down, .left][direction.rawValue] == mask)
    }

    @Test func emptyMaskPrintsEmptyBrackets() {
        #expect(ActionMask().description == "[]")
        #expect(ActionMask.all.description == "[up, right, down, left]")
    }
}
