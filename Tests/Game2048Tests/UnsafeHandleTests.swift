import Testing
@testable import Game2048

struct UnsafeHandleTests {
    @Test func copyExponentsWritesOnlyTheBoardsCells() {
        var rng = Xoshiro256StarStar(seed: 80)
        for size in allSizes {
            let b = randomBoard(rows: size.rows, cols: size.cols, exponents: 1...50, emptyShare: 0.2, using: &rng)
            let offset = 5
            var buffer = [UInt8](repeating: 0xAA, count: offset + b.cellCount + 3)
            b.copyExponents(into: &buffer, at: offset)
            #expect(Array(buffer[offset..<(offset + b.cellCount)]) == b.exponents)
            #expect(buffer[..<offset].allSatisfy { $0 == 0xAA })
            #expect(buffer[(offset + b.cellCount)...].allSatisfy { $0 == 0xAA })
        }
    }

    @Test func rowTableHandleStoresEveryEntry() {
        let handle = RowTableHandle { row in UInt64(row) &* 0x9E37_79B9 ^ 0xFFFF_0000_0000_0000 }
        for row in [UInt64(0), 1, 0x1234, 0xFFFF] {
            #expect(handle[row] == row &* 0x9E37_79B9 ^ 0xFFFF_0000_0000_0000)
            #expect(handle[row | 0xABCD_0000] == handle[row])
        }
    }
}
