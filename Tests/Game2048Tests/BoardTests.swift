import Testing
@testable import Game2048

struct BoardTests {
    @Test func valuesAndExponentsDescribeTheSameBoard() throws {
        let b = try Board(rows: 2, cols: 3, values: [2, 2, 0, 0, 4, 8])
        #expect(b.rows == 2)
        #expect(b.cols == 3)
        #expect(b.cellCount == 6)
        #expect(b[row: 0, col: 0] == 1)
        #expect(b[row: 1, col: 2] == 3)
        #expect(b[4] == 2)
        #expect(b.values == [2, 2, 0, 0, 4, 8])
        #expect(b.exponents == [1, 1, 0, 0, 2, 3])
        #expect(try Board(rows: 2, cols: 3, exponents: [1, 1, 0, 0, 2, 3]) == b)
        #expect(try Board(rows: 2, cols: 2, exponents: [1, 0, 0, 11]).values == [2, 0, 0, 2048])
    }

    @Test func subscriptsWriteTheCellTheyName() throws {
        var b = try Board(rows: 3, cols: 4)
        b[row: 2, col: 1] = 5
        b[3] = 7
        #expect(b.exponents == [0, 0, 0, 7, 0, 0, 0, 0, 0, 5, 0, 0])
    }

    @Test func largestValuesRoundTrip() throws {
        let top = 1 << 50
        let b = try Board(rows: 2, cols: 2, values: [top, 65536, 32768, 0])
        #expect(b.exponents == [50, 16, 15, 0])
        #expect(b.values == [top, 65536, 32768, 0])
        #expect(b.maxTile == top)
        #expect(b.maxExponent == 50)
    }

    static let badValues: [(Int, RulesError)] = [
        (1, .tileValue(1, cell: 1)),
        (3, .tileValue(3, cell: 1)),
        (-2, .tileValue(-2, cell: 1)),
        (6, .tileValue(6, cell: 1)),
        (1 << 62, .tileValue(1 << 62, cell: 1)),
        (1 << 51, .tileValue(1 << 51, cell: 1)),
        (Int.min, .tileValue(Int.min, cell: 1)),
    ]

    @Test(arguments: badValues)
    func initRejectsValuesThatAreNotTiles(value: Int, error: RulesError) {
        #expect(throws: error) { try Board(rows: 2, cols: 2, values: [2, value, 0, 0]) }
    }

    @Test func initRejectsBadShapesAndExponents() {
        #expect(throws: RulesError.rows(1)) { try Board(rows: 1, cols: 4) }
        #expect(throws: RulesError.cols(9)) { try Board(rows: 4, cols: 9) }
        #expect(throws: RulesError.boardShape(expected: 4, got: 3)) { try Board(rows: 2, cols: 2, values: [2, 2, 2]) }
        #expect(throws: RulesError.boardShape(expected: 6, got: 7)) {
            try Board(rows: 2, cols: 3, exponents: [1, 1, 1, 1, 1, 1, 1])
        }
        #expect(throws: RulesError.tileExponent(51, cell: 2)) { try Board(rows: 2, cols: 2, exponents: [0, 0, 51, 0]) }
        #expect(throws: Never.self) { try Board(rows: 2, cols: 2, exponents: [50, 0, 0, 0]) }
    }

    @Test func valueOfExponentIsAPowerOfTwo() {
        #expect(Board.value(ofExponent: 0) == 0)
        #expect(Board.value(ofExponent: 1) == 2)
        #expect(Board.value(ofExponent: 11) == 2048)
        #expect(Board.value(ofExponent: 61) == 1 << 61)
    }

    @Test func summariesMatchANaiveCount() {
        var rng = Xoshiro256StarStar(seed: 1)
        var failures: [String] = []
        for size in allSizes {
            for trial in 0..<100 {
                let b =
                    trial % 2 == 0
                    ? variedBoard(rows: size.rows, cols: size.cols, using: &rng)
                    : randomBoard(rows: size.rows, cols: size.cols, exponents: 1...50, emptyShare: 0.5, using: &rng)
                let exponents = b.exponents
                let empty = exponents.count { $0 == 0 }
                let highest = exponents.max() ?? 0
                let sum = exponents.reduce(0) { $0 + ($1 == 0 ? 0 : 1 << Int($1)) }
                if b.emptyCount != empty || b.maxExponent != highest || b.tileSum != sum
                    || b.maxTile != (highest == 0 ? 0 : 1 << Int(highest))
                {
                    failures.append("\(size) \(exponents)")
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test func emptyCountAndMaxExponentOfEmptyAndFullBoards() throws {
        for size in allSizes {
            let empty = try Board(rows: size.rows, cols: size.cols)
            #expect(empty.emptyCount == size.rows * size.cols)
            #expect(empty.maxExponent == 0)
            #expect(empty.maxTile == 0)
            #expect(empty.tileSum == 0)
            let full = try Board(rows: size.rows, cols: size.cols, exponents: Array(repeating: 50, count: size.rows * size.cols))
            #expect(full.emptyCount == 0)
            #expect(full.maxExponent == 50)
        }
    }

    @Test func equalityComparesSizeAndTiles() throws {
        #expect(try Board(rows: 2, cols: 3) != Board(rows: 3, cols: 2))
        #expect(try Board(rows: 2, cols: 3, values: [2, 0, 0, 0, 0, 0]) != Board(rows: 2, cols: 3, values: [0, 0, 0, 0, 0, 2]))
        #expect(try Board(rows: 2, cols: 3, values: [2, 0, 0, 0, 0, 4]) == Board(rows: 2, cols: 3, values: [2, 0, 0, 0, 0, 4]))
        // The last cell of an 8×8 board is in the last word.
        var a = try Board(rows: 8, cols: 8), b = a
        b[63] = 1
        #expect(a != b)
        a[63] = 1
        #expect(a == b)
    }

    @Test func equalBoardsHashAlikeAndCollectionsCompare() {
        var rng = Xoshiro256StarStar(seed: 2)
        // Boards stored in arrays, at every offset an array of 66-byte elements gives them.
        let boards = (0..<200).map { i in
            variedBoard(rows: 2 + i % 7, cols: 2 + (i / 7) % 7, using: &rng)
        }
        let copies = boards.map { $0 }
        #expect(boards == copies)
        #expect(Set(boards).count == Set(copies).count)
        for (a, b) in zip(boards, copies) {
            #expect(a.hashValue == b.hashValue)
        }
        var changed = copies
        changed[137][0] = changed[137][0] == 0 ? 1 : 0
        #expect(boards != changed)
    }

    @Test func rulesInitializerGivesAnEmptyBoardOfTheRulesSize() throws {
        let b = Board(rules: try Rules(rows: 3, cols: 7))
        #expect(b.rows == 3)
        #expect(b.cols == 7)
        #expect(b.emptyCount == 21)
    }
}
