import Testing
@testable import Game2048

struct BitboardTablesTests {
    static func nibbles(_ row: UInt64) -> [UInt8] { (0..<4).map { UInt8(row >> (4 * UInt64($0)) & 0xF) } }
    static func row(_ nibbles: [UInt8]) -> UInt64 {
        nibbles.enumerated().reduce(0) { $0 | UInt64($1.element) << (4 * UInt64($1.offset)) }
    }

    /// Every one of the 65 536 rows against the reference rules, both ways.
    @Test func everyRowEntryMatchesTheReference() {
        var failures: [String] = []
        for raw in 0..<UInt64(1 << 16) {
            let cells = Self.nibbles(raw)
            let left = Reference.slide(cells)
            let right = Reference.slide(cells.reversed())
            // Two 15s merging make a 16, which a nibble cannot hold (documented);
            // the reward and highest merge are still exact.
            let representable = !left.line.contains(16) && !right.line.contains(16)
            let entry = Bitboard.rowTable[raw]
            var ok =
                entry >> 32 & 0xFF_FFFF == UInt64(left.reward) && entry >> 56 == UInt64(left.highest)
                && left.reward == right.reward && left.highest == right.highest
            if representable {
                ok =
                    ok && entry & 0xFFFF == Self.row(left.line)
                    && entry >> 16 & 0xFFFF == Self.row(right.line.reversed())
            }
            if !ok { failures.append("row \(cells): entry \(String(entry, radix: 16))") }
        }
        expectNoFailures(failures)
    }

    @Test func rowEntryExample() {
        // 2 2 4 8: left gives 4 4 8 .; right reads 8 4 2 2 from the right edge,
        // so the 8 and the 4 stay and the 2s merge: . 4 4 8. Either way reward 4.
        let entry = Bitboard.rowTable[Self.row([1, 1, 2, 3])]
        #expect(Self.nibbles(entry & 0xFFFF) == [2, 2, 3, 0])
        #expect(Self.nibbles(entry >> 16 & 0xFFFF) == [0, 2, 2, 3])
        #expect(entry >> 32 & 0xFF_FFFF == 4)
        #expect(entry >> 56 == 2)
    }

    @Test func tableIndexUsesOnlyTheLow16Bits() {
        var rng = Xoshiro256StarStar(seed: 40)
        for _ in 0..<1_000 {
            let raw = rng.next()
            #expect(Bitboard.rowTable[raw] == Bitboard.rowTable[raw & 0xFFFF])
        }
    }
}
