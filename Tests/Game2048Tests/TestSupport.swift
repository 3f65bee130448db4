// Shared helpers for the Game2048 tests: seeded random boards, and a reference
// implementation of the rules written as plainly as possible (arrays, no bit
// tricks, no tables), which the optimized kernels are checked against.

import Testing
@testable import Game2048

/// Every board size the rules allow, as `(rows, cols)` pairs.
let allSizes: [(rows: Int, cols: Int)] = Rules.sizeRange.flatMap { r in Rules.sizeRange.map { c in (r, c) } }

extension Xoshiro256StarStar {
    /// An integer drawn uniformly from `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + uniform(below: range.count)
    }

    /// An exponent drawn uniformly from `range`.
    mutating func exponent(in range: ClosedRange<UInt8>) -> UInt8 {
        UInt8(int(in: Int(range.lowerBound)...Int(range.upperBound)))
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        bernoulli(threshold: bernoulliThreshold(probability: p))
    }

    /// A direction drawn uniformly.
    mutating func direction() -> Direction {
        Direction(rawValue: uniform(below: 4))!
    }
}

/// A random board: each cell is empty with probability `emptyShare`, else holds an exponent from `exponents`.
func randomBoard(
    rows: Int, cols: Int, exponents: ClosedRange<UInt8> = 1...4, emptyShare: Double = 0.3,
    using rng: inout Xoshiro256StarStar
) -> Board {
    var board = try! Board(rows: rows, cols: cols)
    for cell in 0..<board.cellCount where !rng.chance(emptyShare) {
        board[cell] = rng.exponent(in: exponents)
    }
    return board
}

/// A random board whose density and tile range vary from call to call, so that
/// a batch covers empty, sparse, full, merge-rich and merge-free boards.
func variedBoard(rows: Int, cols: Int, maxExponent: UInt8 = 14, using rng: inout Xoshiro256StarStar) -> Board {
    let shares = [0.0, 0.0, 0.1, 0.3, 0.5, 0.8, 1.0]
    let share = shares[rng.uniform(below: shares.count)]
    let top = rng.chance(0.5) ? min(3, maxExponent) : rng.exponent(in: 1...maxExponent)
    return randomBoard(rows: rows, cols: cols, exponents: 1...top, emptyShare: share, using: &rng)
}

/// A plain restatement of the rules, used as the oracle.
enum Reference {
    /// The cells of each line, ordered from the edge the tiles move toward.
    static func lines(rows: Int, cols: Int, _ direction: Direction) -> [[Int]] {
        switch direction {
        case .left: (0..<rows).map { r in (0..<cols).map { c in r * cols + c } }
        case .right: (0..<rows).map { r in (0..<cols).reversed().map { c in r * cols + c } }
        case .up: (0..<cols).map { c in (0..<rows).map { r in r * cols + c } }
        case .down: (0..<cols).map { c in (0..<rows).reversed().map { r in r * cols + c } }
        }
    }

    /// One line, toward-first: drop the gaps, merge equal neighbours pairwise
    /// from the front, each tile at most once, and pad with empties.
    static func slide(_ line: [UInt8]) -> (line: [UInt8], reward: Int64, merges: Int, highest: UInt8) {
        let tiles = line.filter { $0 != 0 }
        var output: [UInt8] = []
        var reward: Int64 = 0, merges = 0, highest: UInt8 = 0
        var i = 0
        while i < tiles.count {
            if i + 1 < tiles.count && tiles[i] == tiles[i + 1] {
                output.append(tiles[i] + 1)
                reward += Int64(1) << Int64(tiles[i] + 1)
                merges += 1
                highest = max(highest, tiles[i] + 1)
                i += 2
            } else {
                output.append(tiles[i])
                i += 1
            }
        }
        output += Array(repeating: 0, count: line.count - output.count)
        return (output, reward, merges, highest)
    }

    struct Outcome: Equatable {
        var afterstate: [UInt8]
        var reward: Int64
        var changed: Bool
        var highestMerge: UInt8
        var merges: Int
    }

    /// A whole move, on row-major exponents.
    static func move(_ board: Board, _ direction: Direction) -> Outcome {
        let before = board.exponents
        var after = before
        var reward: Int64 = 0, merges = 0, highest: UInt8 = 0
        for cells in lines(rows: board.rows, cols: board.cols, direction) {
            let result = slide(cells.map { before[$0] })
            for (i, cell) in cells.enumerated() { after[cell] = result.line[i] }
            reward += result.reward
            merges += result.merges
            highest = max(highest, result.highest)
        }
        return Outcome(afterstate: after, reward: reward, changed: after != before, highestMerge: highest, merges: merges)
    }

    /// The legal moves by definition: the directions whose move changes the board.
    static func legalMoves(_ board: Board) -> ActionMask {
        var mask: ActionMask = []
        for direction in Direction.allCases where move(board, direction).changed { mask.insert(ActionMask(direction)) }
        return mask
    }

    /// The spawn rule replayed by hand: value first, then the k-th empty cell in row-major order.
    static func spawn(on board: Board, fourThreshold: UInt64, using rng: inout Xoshiro256StarStar) -> Spawn? {
        let empty = board.exponents.indices.filter { board.exponents[$0] == 0 }
        guard !empty.isEmpty else { return nil }
        let four = rng.bernoulli(threshold: fourThreshold)
        let k = rng.uniform(below: empty.count)
        return Spawn(cell: empty[k], exponent: four ? 2 : 1)
    }
}

/// A board from tile values; traps on a malformed literal (a bug in the test itself).
func board(_ rows: Int, _ cols: Int, _ values: [Int]) -> Board {
    try! Board(rows: rows, cols: cols, values: values)
}

/// The number of occupied cells.
func tileCount(_ board: Board) -> Int {
    board.exponents.count { $0 != 0 }
}

/// Checks that a batch of random cases produced no failure, reporting the
/// count and the first few cases rather than the whole list.
func expectNoFailures(_ failures: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let failureCount = failures.count
    #expect(failureCount == 0, "first failures: \(failures.prefix(5).joined(separator: " | "))", sourceLocation: sourceLocation)
}
