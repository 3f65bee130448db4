import Testing
@testable import Game2048

/// A board size, as a test argument.
struct BoardSize: Sendable, CustomTestStringConvertible {
    let rows: Int
    let cols: Int
    var testDescription: String { "\(rows)x\(cols)" }
}

/// One line before and after a move, written toward-first (the first cell is
/// the edge the tiles move toward), in tile values.
struct LineCase: Sendable, CustomTestStringConvertible {
    let line: [Int]
    let expected: [Int]
    let reward: Int64
    var testDescription: String { "\(line) → \(expected), reward \(reward)" }

    /// The case padded with empty cells to `length`.
    func padded(to length: Int) -> (line: [Int], expected: [Int]) {
        let pad = Array(repeating: 0, count: length - line.count)
        return (line + pad, expected + pad)
    }
}

/// Builds a board whose line `index` for `direction` holds `lines[index]` (toward-first); other cells are empty.
func board(rows: Int, cols: Int, lines: [Int: [Int]], along direction: Direction) -> Board {
    var values = Array(repeating: 0, count: rows * cols)
    let geometry = Reference.lines(rows: rows, cols: cols, direction)
    for (index, line) in lines {
        for (i, cell) in geometry[index].enumerated() { values[cell] = line[i] }
    }
    return board(rows, cols, values)
}

struct BoardMoveTests {
    /// The examples the project issue names, toward-first.
    static let issueExamples: [LineCase] = [
        LineCase(line: [2, 2, 2, 2], expected: [4, 4, 0, 0], reward: 8),
        LineCase(line: [2, 2, 2, 0], expected: [4, 2, 0, 0], reward: 4),
        // `2 2 2 .` moved right, read from the right edge.
        LineCase(line: [0, 2, 2, 2], expected: [4, 2, 0, 0], reward: 4),
        LineCase(line: [4, 0, 4, 4], expected: [8, 4, 0, 0], reward: 8),
        LineCase(line: [2, 2, 4, 8], expected: [4, 4, 8, 0], reward: 4),
    ]

    /// Hand-computed lines of every length from 2 to 8.
    static let lineCases: [LineCase] =
        issueExamples + [
            LineCase(line: [2, 2], expected: [4, 0], reward: 4),
            LineCase(line: [2, 4], expected: [2, 4], reward: 0),
            LineCase(line: [0, 2], expected: [2, 0], reward: 0),
            LineCase(line: [0, 0], expected: [0, 0], reward: 0),
            LineCase(line: [2, 0, 2], expected: [4, 0, 0], reward: 4),
            LineCase(line: [4, 4, 8], expected: [8, 8, 0], reward: 8),
            LineCase(line: [2, 2, 2], expected: [4, 2, 0], reward: 4),
            LineCase(line: [0, 8, 8], expected: [16, 0, 0], reward: 16),
            LineCase(line: [0, 0, 0, 2], expected: [2, 0, 0, 0], reward: 0),
            LineCase(line: [2, 4, 8, 16], expected: [2, 4, 8, 16], reward: 0),
            LineCase(line: [8, 8, 16, 0, 16], expected: [16, 32, 0, 0, 0], reward: 48),
            LineCase(line: [2, 0, 0, 0, 0, 2], expected: [4, 0, 0, 0, 0, 0], reward: 4),
            LineCase(line: [4, 2, 2, 0, 0, 0, 4], expected: [4, 4, 4, 0, 0, 0, 0], reward: 4),
            LineCase(line: [8, 8, 8, 8, 8, 8, 8, 8], expected: [16, 16, 16, 16, 0, 0, 0, 0], reward: 64),
            LineCase(line: [2, 2, 4, 4, 8, 8, 16, 16], expected: [4, 8, 16, 32, 0, 0, 0, 0], reward: 60),
            LineCase(line: [2, 0, 0, 0, 0, 0, 0, 2], expected: [4, 0, 0, 0, 0, 0, 0, 0], reward: 4),
            LineCase(line: [16384, 16384, 2, 0, 2, 0, 0, 0], expected: [32768, 4, 0, 0, 0, 0, 0, 0], reward: 32772),
            LineCase(line: [32768, 32768, 0, 0], expected: [65536, 0, 0, 0], reward: 65536),
        ]

    static let rectangularSizes = [
        BoardSize(rows: 2, cols: 3), BoardSize(rows: 3, cols: 5), BoardSize(rows: 8, cols: 8), BoardSize(rows: 4, cols: 4),
        BoardSize(rows: 5, cols: 3), BoardSize(rows: 2, cols: 8),
    ]

    @Test(arguments: Direction.allCases, issueExamples)
    func issueExampleHoldsInEveryDirection(direction: Direction, example: LineCase) {
        let before = board(rows: 4, cols: 4, lines: [1: example.line], along: direction)
        let expected = board(rows: 4, cols: 4, lines: [1: example.expected], along: direction)
        let outcome = before.moved(direction)
        #expect(outcome.afterstate == expected)
        #expect(outcome.reward == example.reward)
        #expect(outcome.changed == (before != expected))
    }

    /// Every line of the board gets a different hand-computed case, so a
    /// direction that mixed up lines, or skipped one, would be caught.
    @Test(arguments: Direction.allCases, rectangularSizes)
    func everyLineMovesByTheRulesOnRectangularBoards(direction: Direction, size: BoardSize) {
        let horizontal = direction == .left || direction == .right
        let length = horizontal ? size.cols : size.rows
        let lineCount = horizontal ? size.rows : size.cols
        let fitting = Self.lineCases.filter { $0.line.count <= length }
        for shift in 0..<fitting.count {
            var lines: [Int: [Int]] = [:], expectedLines: [Int: [Int]] = [:]
            var reward: Int64 = 0
            for index in 0..<lineCount {
                let example = fitting[(index + shift) % fitting.count]
                (lines[index], expectedLines[index]) = example.padded(to: length)
                reward += example.reward
            }
            let before = board(rows: size.rows, cols: size.cols, lines: lines, along: direction)
            let expected = board(rows: size.rows, cols: size.cols, lines: expectedLines, along: direction)
            let outcome = before.moved(direction)
            #expect(outcome.afterstate == expected, "shift \(shift)")
            #expect(outcome.reward == reward, "shift \(shift)")
            #expect(outcome.changed == (before != expected), "shift \(shift)")
            #expect(outcome.highestMerge == Reference.move(before, direction).highestMerge)
        }
    }

    @Test func mergesFromTheSideTheTilesMoveToward() {
        let before = board(
            2, 4,
            [
                2, 2, 2, 0,
                0, 0, 0, 0,
            ])
        #expect(before.moved(.left).afterstate == board(2, 4, [4, 2, 0, 0, 0, 0, 0, 0]))
        #expect(before.moved(.right).afterstate == board(2, 4, [0, 0, 2, 4, 0, 0, 0, 0]))
        #expect(before.moved(.left).reward == 4)
        #expect(before.moved(.right).reward == 4)
    }

    @Test func mergesEachTileOnlyOnce() {
        // 2 2 4 8 → 4 4 8 .: the new 4 does not merge again with the 4, nor the 8 after it.
        let outcome = board(2, 4, [2, 2, 4, 8, 4, 4, 8, 8]).moved(.left)
        #expect(outcome.afterstate == board(2, 4, [4, 4, 8, 0, 8, 16, 0, 0]))
        #expect(outcome.reward == 4 + 8 + 16)
        #expect(outcome.highestMerge == 4)
    }

    static let handMadeBoard = board(
        4, 4,
        [
            2, 2, 4, 0,
            2, 0, 4, 8,
            0, 2, 0, 8,
            4, 4, 4, 4,
        ])

    static let handMadeOutcomes: [(Direction, [Int], Int64)] = [
        (
            .left,
            [
                4, 4, 0, 0,
                2, 4, 8, 0,
                2, 8, 0, 0,
                8, 8, 0, 0,
            ], 20
        ),
        (
            .right,
            [
                0, 0, 4, 4,
                0, 2, 4, 8,
                0, 0, 2, 8,
                0, 0, 8, 8,
            ], 20
        ),
        (
            .up,
            [
                4, 4, 8, 16,
                4, 4, 4, 4,
                0, 0, 0, 0,
                0, 0, 0, 0,
            ], 32
        ),
        (
            .down,
            [
                0, 0, 0, 0,
                0, 0, 0, 0,
                4, 4, 4, 16,
                4, 4, 8, 4,
            ], 32
        ),
    ]

    @Test(arguments: handMadeOutcomes)
    func handMadeBoardMovesInEachDirection(direction: Direction, expected: [Int], reward: Int64) {
        let outcome = Self.handMadeBoard.moved(direction)
        #expect(outcome.afterstate.values == expected)
        #expect(outcome.reward == reward)
        #expect(outcome.changed)
    }

    @Test func documentationExampleHolds() {
        let outcome = board(2, 4, [2, 2, 2, 2, 4, 0, 4, 4]).moved(.left)
        #expect(outcome.afterstate.values == [4, 4, 0, 0, 8, 4, 0, 0])
        #expect(outcome.reward == 16)
        #expect(outcome.highestMerge == 3)
    }

    @Test(arguments: Direction.allCases)
    func twoTiles32768MergeInto65536(direction: Direction) {
        let before = board(rows: 4, cols: 4, lines: [2: [32768, 32768, 0, 0]], along: direction)
        let outcome = before.moved(direction)
        #expect(outcome.reward == 65536)
        #expect(outcome.highestMerge == 16)
        #expect(outcome.afterstate.maxTile == 65536)
        #expect(outcome.afterstate == board(rows: 4, cols: 4, lines: [2: [65536, 0, 0, 0]], along: direction))
    }

    @Test func tilesUpToTheExponentLimitMergeWithoutOverflow() throws {
        let before = try Board(
            rows: 2, cols: 4,
            exponents: [
                49, 49, 50, 0,
                48, 48, 47, 47,
            ])
        let outcome = before.moved(.left)
        #expect(outcome.afterstate.exponents == [50, 50, 0, 0, 49, 48, 0, 0])
        #expect(outcome.reward == (1 << 50) + (1 << 49) + (1 << 48))
        #expect(outcome.highestMerge == 50)
        #expect(outcome.afterstate.tileSum == before.tileSum)
        // A full 8×8 board of 2^50 tiles: 32 merges, reward 32 · 2^51 = 2^56, far inside Int64.
        let full = try Board(rows: 8, cols: 8, exponents: Array(repeating: 50, count: 64))
        let merged = full.moved(.left)
        #expect(merged.reward == 1 << 56)
        #expect(merged.highestMerge == 51)
        // And merging on up from there stays positive and exact.
        let again = merged.afterstate.moved(.left)
        #expect(again.reward == 1 << 56)
        #expect(again.afterstate.moved(.up).reward == 1 << 56)
    }

    @Test(arguments: Direction.allCases)
    func moveThatChangesNothingIsReportedUnchanged(direction: Direction) {
        // Every tile already against the edge, no equal neighbours along the move.
        let before = board(rows: 3, cols: 3, lines: [0: [2, 4, 8], 1: [4, 8, 0], 2: [16, 0, 0]], along: direction)
        let outcome = before.moved(direction)
        #expect(!outcome.changed)
        #expect(outcome.afterstate == before)
        #expect(outcome.reward == 0)
        #expect(outcome.highestMerge == 0)
        #expect(!before.legalMoves.contains(direction))
    }

    // MARK: Legality

    @Test func legalMovesEqualsChangedOnEvery2x2Board() throws {
        var checked = 0
        for code in 0..<625 {
            var exponents: [UInt8] = []
            var rest = code
            for _ in 0..<4 { exponents.append(UInt8(rest % 5)); rest /= 5 }
            let b = try Board(rows: 2, cols: 2, exponents: exponents)
            for direction in Direction.allCases {
                #expect(b.legalMoves.contains(direction) == b.moved(direction).changed, "\(exponents) \(direction)")
            }
            #expect(b.legalMoves == Reference.legalMoves(b), "\(exponents)")
            checked += 1
        }
        #expect(checked == 625)
    }

    @Test(arguments: [BoardSize(rows: 2, cols: 3), BoardSize(rows: 3, cols: 2)])
    func legalMovesEqualsChangedOnEvery2x3Board(size: BoardSize) throws {
        // Exponents 0...4 in six cells: 15 625 boards.
        var failures: [String] = []
        for code in 0..<15_625 {
            var exponents: [UInt8] = []
            var rest = code
            for _ in 0..<6 { exponents.append(UInt8(rest % 5)); rest /= 5 }
            let b = try Board(rows: size.rows, cols: size.cols, exponents: exponents)
            var changed: ActionMask = []
            for direction in Direction.allCases where b.moved(direction).changed { changed.insert(ActionMask(direction)) }
            if b.legalMoves != changed { failures.append("\(exponents): \(b.legalMoves) vs \(changed)") }
        }
        expectNoFailures(failures)
    }

    @Test(arguments: Rules.sizeRange)
    func legalMovesEqualsChangedOnRandomBoards(rows: Int) {
        var rng = Xoshiro256StarStar(seed: 100 + UInt64(rows))
        var failures: [String] = []
        for cols in Rules.sizeRange {
            for _ in 0..<600 {
                let b = variedBoard(rows: rows, cols: cols, using: &rng)
                let reference = Reference.legalMoves(b)
                var changed: ActionMask = []
                for direction in Direction.allCases where b.moved(direction).changed { changed.insert(ActionMask(direction)) }
                if b.legalMoves != changed || changed != reference {
                    failures.append("\(rows)x\(cols) \(b.exponents): \(b.legalMoves) vs \(changed) vs \(reference)")
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test func fullBoardWithoutEqualNeighboursHasNoLegalMove() {
        let b = board(
            3, 3,
            [
                2, 4, 2,
                4, 2, 4,
                2, 4, 2,
            ])
        #expect(b.legalMoves.isEmpty)
        for direction in Direction.allCases { #expect(!b.moved(direction).changed) }
    }

    @Test func emptyBoardHasNoLegalMove() throws {
        for size in allSizes {
            #expect(try Board(rows: size.rows, cols: size.cols).legalMoves.isEmpty)
        }
    }

    // MARK: Properties

    @Test(arguments: Rules.sizeRange)
    func moveMatchesReferenceOnRandomBoards(rows: Int) {
        var rng = Xoshiro256StarStar(seed: 200 + UInt64(rows))
        var failures: [String] = []
        for cols in Rules.sizeRange {
            for trial in 0..<300 {
                // Every third board has tiles too large for the line table.
                let b =
                    trial % 3 == 0
                    ? randomBoard(rows: rows, cols: cols, exponents: 10...50, emptyShare: 0.3, using: &rng)
                    : variedBoard(rows: rows, cols: cols, using: &rng)
                for direction in Direction.allCases {
                    let outcome = b.moved(direction)
                    let reference = Reference.move(b, direction)
                    if outcome.afterstate.exponents != reference.afterstate || outcome.reward != reference.reward
                        || outcome.changed != reference.changed || outcome.highestMerge != reference.highestMerge
                    {
                        failures.append("\(rows)x\(cols) \(direction) \(b.exponents)")
                    }
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test(arguments: Rules.sizeRange)
    func moveConservesTileSumAndRewardIsTheMergedValue(rows: Int) {
        var rng = Xoshiro256StarStar(seed: 300 + UInt64(rows))
        var failures: [String] = []
        for cols in Rules.sizeRange {
            for _ in 0..<300 {
                let b = variedBoard(rows: rows, cols: cols, using: &rng)
                for direction in Direction.allCases {
                    let outcome = b.moved(direction)
                    let merges = b.movements(direction).filter(\.merged)
                    let mergedValue = merges.reduce(Int64(0)) { $0 + Int64(outcome.afterstate.values[$1.to]) }
                    if outcome.afterstate.tileSum != b.tileSum
                        || tileCount(b) - tileCount(outcome.afterstate) != merges.count
                        || outcome.reward != mergedValue
                        || outcome.reward % 4 != 0
                    {
                        failures.append("\(rows)x\(cols) \(direction) \(b.exponents)")
                    }
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test(arguments: Rules.sizeRange)
    func movementsReplayedReproduceTheAfterstate(rows: Int) {
        var rng = Xoshiro256StarStar(seed: 400 + UInt64(rows))
        var failures: [String] = []
        for cols in Rules.sizeRange {
            for trial in 0..<200 {
                let b =
                    trial % 4 == 0
                    ? randomBoard(rows: rows, cols: cols, exponents: 13...20, emptyShare: 0.4, using: &rng)
                    : variedBoard(rows: rows, cols: cols, using: &rng)
                for direction in Direction.allCases {
                    var replay = b.exponents
                    var consistent = true
                    let movements = b.movements(direction)
                    for m in movements {
                        let exponent = replay[m.from]
                        replay[m.from] = 0
                        if m.merged {
                            consistent = consistent && replay[m.to] == exponent && m.from != m.to
                            replay[m.to] = exponent + 1
                        } else {
                            consistent = consistent && replay[m.to] == 0 && m.from != m.to
                            replay[m.to] = exponent
                        }
                    }
                    let outcome = b.moved(direction)
                    if !consistent || replay != outcome.afterstate.exponents || movements.isEmpty == outcome.changed {
                        failures.append("\(rows)x\(cols) \(direction) \(b.exponents): \(movements)")
                    }
                }
            }
        }
        expectNoFailures(failures)
    }

    @Test func movementsListTheDocumentedExample() {
        // Row [2 2 . 4] moved left: cell 1 merges into cell 0, cell 3 slides to cell 1.
        let b = board(2, 4, [2, 2, 0, 4, 0, 0, 0, 0])
        #expect(
            b.movements(.left) == [
                TileMovement(from: 1, to: 0, merged: true), TileMovement(from: 3, to: 1, merged: false),
            ])
        // Moved right, the line is read from the right edge: 4 stays, the 2s merge on cell 2.
        #expect(
            b.movements(.right) == [
                TileMovement(from: 1, to: 2, merged: false), TileMovement(from: 0, to: 2, merged: true),
            ])
        #expect(b.movements(.up).isEmpty)
    }
}
