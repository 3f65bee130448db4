import Testing
@testable import Game2048

struct BitboardTests {
    @Test func packsCellsAsDocumented() throws {
        let b = board(4, 4, [2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4])
        let packed = try #require(Bitboard(b))
        #expect(packed.rawValue == 0x2000_0000_0000_0011)
        #expect(packed.moved(.left).reward == 4)
        #expect(packed.rows == 4)
        #expect(packed.cols == 4)
        for cell in 0..<16 { #expect(packed[cell] == b[cell]) }
    }

    @Test func refusesBoardsItCannotHold() throws {
        #expect(Bitboard(try Board(rows: 3, cols: 4)) == nil)
        #expect(Bitboard(try Board(rows: 4, cols: 5)) == nil)
        #expect(Bitboard(try Board(rows: 4, cols: 4, exponents: [16] + Array(repeating: 0, count: 15))) == nil)
        #expect(Bitboard(try Board(rows: 4, cols: 4, exponents: Array(repeating: 0, count: 15) + [17])) == nil)
        let limit = try #require(Bitboard(try Board(rows: 4, cols: 4, exponents: Array(repeating: 0, count: 15) + [15])))
        #expect(limit[15] == 15)
        #expect(limit.holdsLimitTile)
    }

    @Test func roundTripsThroughBoard() throws {
        var rng = Xoshiro256StarStar(seed: 10)
        for _ in 0..<2_000 {
            let raw = rng.next()
            let unpacked = Board(Bitboard(rawValue: raw))
            #expect(unpacked.rows == 4 && unpacked.cols == 4)
            for cell in 0..<16 { #expect(unpacked[cell] == UInt8((raw >> (4 * UInt64(cell))) & 0xF)) }
            #expect(try #require(Bitboard(unpacked)).rawValue == raw)
        }
    }

    @Test func transposedMirrorsOverTheMainDiagonal() {
        var rng = Xoshiro256StarStar(seed: 11)
        for _ in 0..<1_000 {
            let b = Bitboard(rawValue: rng.next())
            let t = b.transposed
            for r in 0..<4 {
                for c in 0..<4 { #expect(t[c * 4 + r] == b[r * 4 + c]) }
            }
            #expect(t.transposed == b)
        }
    }

    @Test func holdsLimitTileExactlyWhenSomeCellIs15() {
        var rng = Xoshiro256StarStar(seed: 12)
        for _ in 0..<5_000 {
            let b = Bitboard(rawValue: rng.next())
            #expect(b.holdsLimitTile == (0..<16).contains { b[$0] == 15 })
        }
    }

    /// Everything the two representations report about one board, for a single comparison.
    struct Snapshot: Equatable {
        var outcomes: [(afterstate: Board, reward: Int64, changed: Bool, highestMerge: UInt8)]
        var legalMoves: ActionMask
        var emptyCount: Int
        var maxExponent: UInt8
        var spawn: Spawn?
        var spawned: Board
        var rngAfter: Xoshiro256StarStar

        static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.outcomes.elementsEqual(rhs.outcomes) { $0 == $1 }
                && lhs.legalMoves == rhs.legalMoves && lhs.emptyCount == rhs.emptyCount
                && lhs.maxExponent == rhs.maxExponent && lhs.spawn == rhs.spawn && lhs.spawned == rhs.spawned
                && lhs.rngAfter == rhs.rngAfter
        }
    }

    static func snapshot<G: GameBoard>(_ grid: G, rng: Xoshiro256StarStar, fourThreshold: UInt64, unpack: (G) -> Board) -> Snapshot {
        var rng = rng
        var spawned = grid
        let spawn = spawned.spawnRandomTile(fourThreshold: fourThreshold, using: &rng)
        return Snapshot(
            outcomes: Direction.allCases.map { d in
                let o = grid.moved(d)
                return (unpack(o.afterstate), o.reward, o.changed, o.highestMerge)
            },
            legalMoves: grid.legalMoves, emptyCount: grid.emptyCount, maxExponent: grid.maxExponent,
            spawn: spawn, spawned: unpack(spawned), rngAfter: rng)
    }

    /// The differential test: 100 000 random boards (exponents 0...14, one in
    /// eight with a single 15), every query and every move, bit for bit.
    @Test(arguments: 0..<4)
    func agreesWithBoardBitForBit(part: Int) throws {
        var rng = Xoshiro256StarStar(seed: 20 + UInt64(part))
        let fourThreshold = bernoulliThreshold(probability: 0.1)
        var failures: [String] = []
        for trial in 0..<25_000 {
            var b = variedBoard(rows: 4, cols: 4, using: &rng)
            if trial % 8 == 0 { b[rng.uniform(below: 16)] = 15 }
            let packed = try #require(Bitboard(b))
            let seed = rng.next()
            let generic = Self.snapshot(b, rng: Xoshiro256StarStar(seed: seed), fourThreshold: fourThreshold) { $0 }
            let fast = Self.snapshot(packed, rng: Xoshiro256StarStar(seed: seed), fourThreshold: fourThreshold) { Board($0) }
            if generic != fast { failures.append("\(b.exponents)") }
        }
        expectNoFailures(failures)
    }

    @Test func legalMovesEqualsChangedOnEveryBoardOf2sAndEmpties() {
        // All 2^16 boards whose cells are empty or 2, and all 2^16 whose cells are empty or 8.
        var failures: [String] = []
        for raw in 0..<UInt64(1 << 16) {
            var spread: UInt64 = 0
            for cell in 0..<16 where raw >> UInt64(cell) & 1 == 1 { spread |= 1 << (4 * UInt64(cell)) }
            for scale: UInt64 in [1, 3] {
                let b = Bitboard(rawValue: spread * scale)
                var changed: ActionMask = []
                for direction in Direction.allCases where b.moved(direction).changed { changed.insert(ActionMask(direction)) }
                // Both forms: one board's (the directions tested side by side) and many boards' (folded).
                if b.legalMoves != changed || b.legalMoves(manyBoards: true) != changed || Board(b).legalMoves != changed {
                    failures.append(String(b.rawValue, radix: 16))
                }
            }
        }
        expectNoFailures(failures)
    }

    /// Random boards of every tile up to 16 384, a third of their cells empty: both forms of the mask are the
    /// directions whose move changes the board.
    @Test func bothMaskFormsAreTheChangingMovesOnRandomBoards() {
        var rng = Xoshiro256StarStar(seed: 49)
        var failures: [String] = []
        for _ in 0..<50_000 {
            var raw: UInt64 = 0
            for cell in 0..<16 where rng.uniform(below: 3) != 0 { raw |= UInt64(1 + rng.uniform(below: 14)) << (4 * UInt64(cell)) }
            let b = Bitboard(rawValue: raw)
            var changed: ActionMask = []
            for direction in Direction.allCases where b.moved(direction).changed { changed.insert(ActionMask(direction)) }
            if b.legalMoves != changed || b.legalMoves(manyBoards: true) != changed { failures.append(String(raw, radix: 16)) }
        }
        expectNoFailures(failures)
    }

    @Test func emptyCountCountsEveryEmptyNibble() {
        #expect(Bitboard(rawValue: 0).emptyCount == 16)
        #expect(Bitboard(rawValue: 0x1111_1111_1111_1111).emptyCount == 0)
        #expect(Bitboard(rawValue: 0xF000_0000_0000_0000).emptyCount == 15)
        #expect(Bitboard(rawValue: 0x0000_0000_0000_0008).emptyCount == 15)
        var rng = Xoshiro256StarStar(seed: 13)
        for _ in 0..<5_000 {
            var raw = rng.next()
            // Clear about half the nibbles so that counts spread over 0...16.
            raw &= rng.next() | rng.next()
            let b = Bitboard(rawValue: raw)
            #expect(b.emptyCount == (0..<16).count { b[$0] == 0 })
            #expect(b.maxExponent == (0..<16).map { b[$0] }.max())
        }
    }

    @Test func cellOfEmptyFindsTheKthEmptyCell() {
        var rng = Xoshiro256StarStar(seed: 14)
        for trial in 0..<3_000 {
            var raw = rng.next()
            if trial % 2 == 0 { raw &= rng.next() & rng.next() }
            if trial == 0 { raw = 0 }
            let b = Bitboard(rawValue: raw)
            let empty = (0..<16).filter { b[$0] == 0 }
            let occupied = b.occupiedBits
            let prefix = (~occupied & 0x1111_1111_1111_1111) &* 0x1111_1111_1111_1111
            for (k, cell) in empty.enumerated() {
                #expect(Bitboard.cellOfEmpty(k, prefix: prefix) == cell, "\(String(raw, radix: 16)) k=\(k)")
            }
        }
    }

    @Test func spawnOnFullBoardDrawsNothing() {
        var b = Bitboard(rawValue: 0x1234_5678_9ABC_DEF1)
        var rng = Xoshiro256StarStar(seed: 15)
        let before = rng
        #expect(b.spawnRandomTile(fourThreshold: bernoulliThreshold(probability: 0.5), using: &rng) == nil)
        #expect(rng == before)
        #expect(b.rawValue == 0x1234_5678_9ABC_DEF1)
    }

    @Test func mergingTwo14sMakesThe32768Tile() throws {
        let packed = try #require(Bitboard(board(4, 4, [16384, 16384, 0, 0] + Array(repeating: 0, count: 12))))
        let outcome = packed.moved(.right)
        #expect(outcome.reward == 32768)
        #expect(outcome.highestMerge == 15)
        #expect(outcome.afterstate[3] == 15)
        #expect(outcome.afterstate.holdsLimitTile)
    }
}
