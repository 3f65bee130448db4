import CPackedLanes
import Testing

@testable import Game2048
@testable import GymCore

/// The spawn's cell found by BMI2 and POPCNT (`g2048_spawn_cell`) against Swift's prefix counts, and the hand-over
/// to Swift when the cell draw may have to be drawn again. (`BitboardTests` holds `Bitboard`'s whole spawn, by
/// whichever path this processor takes, to `Board`'s.)
struct SpawnCellTests {
    /// Swift's cell for `empty` and a first draw `draw` that needs no second one, else nil.
    static func swiftCell(_ empty: UInt64, _ draw: UInt64) -> Int? {
        let prefix = empty &* 0x1111_1111_1111_1111
        let count = UInt64(empty == 0x1111_1111_1111_1111 ? 16 : Int(prefix >> 60))
        let product = draw.multipliedFullWidth(by: count)
        return product.low < count ? nil : Bitboard.cellOfEmpty(Int(product.high), prefix: prefix)
    }

    @Test(.enabled(if: g2048_spawn_cell_available() != 0, "the processor has no BMI2 or POPCNT"))
    func theBMI2CellIsSwiftsCell() {
        var rng = Xoshiro256StarStar(seed: 31)
        var handedOver = 0
        for trial in 0..<200_000 {
            // Every number of empty cells, 1 to 16, in every position.
            var empty: UInt64 = 0
            let share = [0.05, 0.3, 0.7, 1.0][trial % 4]
            for cell in 0..<16 where rng.chance(share) { empty |= 1 << (4 * cell) }
            if empty == 0 { empty = 1 << (4 * UInt64(rng.int(in: 0...15))) }
            // Random draws, and the edges: 0 (its low word is 0: handed over), the largest, one below 2^64 / n, and
            // for odd n the inverse of n (low word 1: below n, and for n = 7, 11, 13 below the redraw floor too).
            let n = UInt64(empty.nonzeroBitCount)
            let draw = [rng.next(), 0, .max, UInt64.max / n, rng.next() >> 60, Self.inverse(n)][trial % 6]
            let cell = g2048_spawn_cell(empty, draw)
            if let expected = Self.swiftCell(empty, draw) {
                #expect(cell == UInt64(expected), "empty \(String(empty, radix: 16)), draw \(draw)")
            } else {
                #expect(cell == 16, "empty \(String(empty, radix: 16)), draw \(draw)")
                handedOver += 1
            }
        }
        #expect(handedOver >= 40_000)
    }

    /// The inverse of odd `n` modulo 2^64 (Newton's iteration doubles the correct low bits each step), else 1.
    static func inverse(_ n: UInt64) -> UInt64 {
        guard n & 1 == 1 else { return 1 }
        var x = n
        for _ in 0..<6 { x = x &* (2 &- n &* x) }
        return x
    }

    /// A cell draw of 0 with three empty cells: its low word 0 is below (2^64 − 3) mod 3 = 1, so the draw is made
    /// again; with four, (2^64 − 4) mod 4 = 0 and it stands (cell 0's k = 0). Either way the spawn is `Board`'s.
    @Test(arguments: [3, 4])
    func aCellDrawOfZeroIsFinishedAsBoardFinishesIt(empties: Int) throws {
        var board = try Board(rows: 4, cols: 4, values: (0..<16).map { 1 << (($0 % 11) + 1) })
        for cell in [1, 6, 12, 15].prefix(empties) { board[cell] = 0 }
        var generator = Xoshiro256StarStar(seed: 77)
        // The second output is 0 when s1 ^ s0 ^ s2 is (the first is the 4-or-2 draw).
        generator.s1 = generator.s0 ^ generator.s2
        var packed = Bitboard(board)!, unpacked = board
        var packedRNG = generator, boardRNG = generator
        let spawn = packed.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &packedRNG)
        #expect(spawn == unpacked.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.1), using: &boardRNG))
        #expect(Board(packed) == unpacked && packedRNG == boardRNG)
        var drawn = generator
        for _ in 0..<(empties == 3 ? 3 : 2) { _ = drawn.next() }
        #expect(packedRNG == drawn)
        if empties == 4 { #expect(spawn?.cell == 1) }
    }
}
