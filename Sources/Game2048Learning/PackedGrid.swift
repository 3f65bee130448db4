import Game2048

/// Boards of up to 16 cells as one `UInt64` (four bits per cell, cell `i` at bits `4i`, row-major), with moves
/// read from a table made by the core's own `Board.moved`: the exact solver's representation, where billions of
/// moves are made and every state is a key in a sorted array.
///
/// A line's move is looked up whole (16^length entries, 2 to 4 cells), so a move costs one lookup per line; the
/// table is built by moving each line on a `Board`, so the rules (one merge per tile, from the side moved
/// toward) are the core's and nowhere restated.
struct PackedGrid: Sendable {
    let rows: Int
    let cols: Int
    /// The largest exponent a merge may make (the rules' ceiling): a move past it is illegal, as in the environment.
    let largestExponent: UInt8
    /// For lines of `cols` cells (left and right) and of `rows` cells (up and down): the moved line (towards
    /// index 0), its reward and its largest merge, by the line's packed value.
    let rowLines: [LineMove]
    let colLines: [LineMove]

    struct LineMove: Sendable {
        var line: UInt16
        var reward: UInt32
        var highestMerge: UInt8
    }

    init(rules: Rules) {
        precondition(rules.cellCount <= 16 && rules.largestExponent <= 15, "a packed grid holds 16 cells of exponents to 15")
        rows = rules.rows
        cols = rules.cols
        largestExponent = rules.largestExponent
        rowLines = PackedGrid.lineTable(length: rules.cols)
        colLines = PackedGrid.lineTable(length: rules.rows)
    }

    /// Every line of `length` cells moved towards its first cell, through `Board.moved(.left)`.
    static func lineTable(length: Int) -> [LineMove] {
        let count = 1 << (4 * length)
        var table = [LineMove](repeating: LineMove(line: 0, reward: 0, highestMerge: 0), count: count)
        for value in 0..<count {
            let exponents = (0..<length).map { UInt8((value >> (4 * $0)) & 0xF) }
            // A 2-row board with the line on top: its left move is the line's.
            let board = try! Board(rows: 2, cols: max(2, length), exponents: exponents + [UInt8](repeating: 0, count: max(2, length) * 2 - length))
            let outcome = board.moved(.left)
            var moved = 0
            for index in 0..<length { moved |= Int(outcome.afterstate[index]) << (4 * index) }
            table[value] = LineMove(line: UInt16(moved), reward: UInt32(outcome.reward), highestMerge: outcome.highestMerge)
        }
        return table
    }

    /// The cell index of position `index` of line `line` when moving `direction` (index 0: the side moved toward).
    @inline(__always)
    func cell(line: Int, index: Int, _ direction: Direction) -> Int {
        switch direction {
        case .left: line * cols + index
        case .right: line * cols + (cols - 1 - index)
        case .up: index * cols + line
        case .down: (rows - 1 - index) * cols + line
        }
    }

    /// What `direction` does to `key`: the afterstate, the reward, and whether the move is legal (it changes the
    /// board and merges no tile past the ceiling).
    @inline(__always)
    func move(_ key: UInt64, _ direction: Direction) -> (afterstate: UInt64, reward: UInt32, legal: Bool) {
        let horizontal = direction == .left || direction == .right
        let lines = horizontal ? rows : cols
        let length = horizontal ? cols : rows
        var result: UInt64 = 0
        var reward: UInt32 = 0
        var highest: UInt8 = 0
        for line in 0..<lines {
            var value = 0
            for index in 0..<length {
                value |= Int((key >> (4 * UInt64(cell(line: line, index: index, direction)))) & 0xF) << (4 * index)
            }
            let moved = horizontal ? rowLines[value] : colLines[value]
            reward &+= moved.reward
            highest = max(highest, moved.highestMerge)
            for index in 0..<length {
                result |= UInt64((Int(moved.line) >> (4 * index)) & 0xF) << (4 * UInt64(cell(line: line, index: index, direction)))
            }
        }
        return (result, reward, result != key && highest <= largestExponent)
    }

    /// The tiles' sum in units of 2 (a 2 counts 1, a 4 counts 2): unchanged by a move, grown by 1 or 2 by a
    /// spawn, so it numbers the solver's layers.
    static func age(_ key: UInt64) -> Int {
        var sum = 0
        var rest = key
        while rest != 0 {
            let exponent = Int(rest & 0xF)
            if exponent > 0 { sum += 1 << (exponent - 1) }
            rest >>= 4
        }
        return sum
    }

    /// The empty cells of `key`, a board of `cells` cells.
    @inline(__always)
    static func emptyCount(_ key: UInt64, cells: Int) -> Int {
        (0..<cells).reduce(0) { $0 + ((key >> (4 * UInt64($1))) & 0xF == 0 ? 1 : 0) }
    }

    /// Every spawn on `key`, a board of `cells` cells, cell by cell: a 2 (`weight` 1 − p, one age older) and a 4
    /// (`weight` p, two ages older), the spawn of probability 0 left out. The chance of a spawn is its weight over
    /// the returned number of empty cells (the cell is drawn uniformly).
    @inline(__always) @discardableResult
    static func forEachSpawn(
        on key: UInt64, cells: Int, fourProbability p: Double, _ body: (_ state: UInt64, _ ageStep: Int, _ weight: Double) -> Void
    ) -> Int {
        var empty = 0
        for cell in 0..<cells where (key >> (4 * UInt64(cell))) & 0xF == 0 {
            empty += 1
            if p < 1 { body(key | 1 << (4 * UInt64(cell)), 1, 1 - p) }
            if p > 0 { body(key | 2 << (4 * UInt64(cell)), 2, p) }
        }
        return empty
    }

    /// The key of `board` (its exponents, four bits each), or `nil` when a tile is above 15.
    static func key(of board: Board) -> UInt64? {
        var key: UInt64 = 0
        for (cell, exponent) in board.exponents.enumerated() {
            guard exponent <= 15 else { return nil }
            key |= UInt64(exponent) << (4 * UInt64(cell))
        }
        return key
    }

    /// The board of `key`.
    func board(_ key: UInt64) -> Board {
        try! Board(rows: rows, cols: cols, exponents: (0..<rows * cols).map { UInt8((key >> (4 * UInt64($0))) & 0xF) })
    }
}
