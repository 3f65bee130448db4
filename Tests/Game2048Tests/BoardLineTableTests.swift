import Testing
@testable import Game2048

struct BoardLineTableTests {
    /// A line word (cell i in byte i) from exponents.
    static func word(_ exponents: [UInt8]) -> UInt64 {
        exponents.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    static func exponents(_ word: UInt64, length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
    }

    /// Both kernels on one line: (output, reward, highest merge).
    static func kernels(_ line: UInt64, length: Int) -> (table: (UInt64, Int64, UInt8), scalar: (UInt64, Int64, UInt8)) {
        var tableReward: Int64 = 0, tableHighest: UInt8 = 0
        let tableOut = Board.slideAndMergeLine(line, length: length, table: Board.lineTable, reward: &tableReward, highestMerge: &tableHighest)
        var scalarReward: Int64 = 0, scalarHighest: UInt8 = 0
        let scalarOut = Board.slideAndMergeLine(line, reward: &scalarReward, highestMerge: &scalarHighest) { _, _, _ in }
        return ((tableOut, tableReward, tableHighest), (scalarOut, scalarReward, scalarHighest))
    }

    @Test func tableKernelEqualsScalarKernelOnRandomLines() {
        var rng = Xoshiro256StarStar(seed: 30)
        var failures: [String] = []
        for _ in 0..<200_000 {
            let length = rng.int(in: 2...8)
            let top = rng.exponent(in: 1...14)
            let emptyShare = rng.chance(0.5) ? 0.2 : 0.5
            let line = (0..<length).map { _ in rng.chance(emptyShare) ? 0 : rng.exponent(in: 1...top) }
            let (table, scalar) = Self.kernels(Self.word(line), length: length)
            if table != scalar { failures.append("\(line): table \(table) scalar \(scalar)") }
        }
        expectNoFailures(failures)
    }

    @Test(arguments: [2, 3, 4])
    func bothKernelsMatchTheReferenceOnEveryShortLine(length: Int) {
        // Every line of `length` cells with exponents 0...11 (up to 20 736 lines).
        var failures: [String] = []
        let base = 12
        var total = 1
        for _ in 0..<length { total *= base }
        for code in 0..<total {
            var line: [UInt8] = [], rest = code
            for _ in 0..<length { line.append(UInt8(rest % base)); rest /= base }
            let reference = Reference.slide(line)
            let expected = (Self.word(reference.line), reference.reward, reference.highest)
            let (table, scalar) = Self.kernels(Self.word(line), length: length)
            if table != expected || scalar != expected { failures.append("\(line)") }
        }
        expectNoFailures(failures)
    }

    @Test func kernelsAccumulateIntoTheirArguments() {
        var reward: Int64 = 100, highest: UInt8 = 9
        let out = Board.slideAndMergeLine(Self.word([1, 1, 2, 2]), length: 4, table: Board.lineTable, reward: &reward, highestMerge: &highest)
        #expect(Self.exponents(out, length: 4) == [2, 3, 0, 0])
        #expect(reward == 100 + 4 + 8)
        #expect(highest == 9)
        var scalarReward: Int64 = 100, scalarHighest: UInt8 = 2
        _ = Board.slideAndMergeLine(Self.word([1, 1, 2, 2]), reward: &scalarReward, highestMerge: &scalarHighest) { _, _, _ in }
        #expect(scalarReward == 112)
        #expect(scalarHighest == 3)
    }

    @Test func scalarKernelRecordsEachMovingTile() {
        var reward: Int64 = 0, highest: UInt8 = 0
        var recorded: [TileMovement] = []
        // 2 2 . 4 . 4 8 → 4 8 8 . . . .
        let out = Board.slideAndMergeLine(Self.word([1, 1, 0, 2, 0, 2, 3]), reward: &reward, highestMerge: &highest) { from, to, merged in
            recorded.append(TileMovement(from: from, to: to, merged: merged))
        }
        #expect(Self.exponents(out, length: 7) == [2, 3, 3, 0, 0, 0, 0])
        #expect(reward == 12)
        #expect(
            recorded == [
                TileMovement(from: 1, to: 0, merged: true),
                TileMovement(from: 3, to: 1, merged: false),
                TileMovement(from: 5, to: 1, merged: true),
                TileMovement(from: 6, to: 2, merged: false),
            ])
    }

    @Test func tableEntryPacksAChunkAsDocumented() {
        // Pending 2 (exponent 1), then cells 2, 4, 4 (exponents 1, 2, 2): the
        // pending 2 merges with the first cell, the two 4s merge: finished [4, 8].
        let key: UInt64 = 1 | 1 << 4 | 2 << 8 | 2 << 12
        let entry = Board.lineTable[key]
        #expect(entry & 0xFF_FFFF == 0x0302)
        #expect(entry >> 24 & 3 == 2)
        #expect(entry >> 28 & 0xF == 0)
        #expect(entry >> 32 & 0x3_FFFF == 12)
        #expect(entry >> 56 == 3)
        // No pending tile, cells 8 . 16: the 8 is finished when the 16 arrives; the 16 is pending.
        let other = Board.lineTable[0 | 3 << 4 | 0 << 8 | 4 << 12]
        #expect(other & 0xFF_FFFF == 0x03)
        #expect(other >> 24 & 3 == 1)
        #expect(other >> 28 & 0xF == 4)
        #expect(other >> 32 & 0x3_FFFF == 0)
        #expect(other >> 56 == 0)
    }

    @Test func boardsFitTheTableExactlyWhenEveryTileIsBelow32768() {
        for size in allSizes {
            var b = try! Board(rows: size.rows, cols: size.cols)
            for cell in [0, b.cellCount / 2, b.cellCount - 1] {
                b[cell] = 14
                #expect(b.withCells(b.fitsLineTable), "\(size) cell \(cell)")
                b[cell] = 15
                #expect(!b.withCells(b.fitsLineTable), "\(size) cell \(cell)")
                b[cell] = 50
                #expect(!b.withCells(b.fitsLineTable), "\(size) cell \(cell)")
                b[cell] = 0
            }
        }
    }
}
