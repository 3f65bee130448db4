// The move rule, written once as a line kernel. Every direction is a set of
// lines (a start cell and a stride), and the kernel slides and merges each line
// toward its start, so the four directions cannot disagree.

extension Board: GameBoard {
    /// The board after a move in `direction`, the reward, and whether anything changed.
    ///
    ///     let board = try Board(rows: 2, cols: 4, values: [2, 2, 2, 2,
    ///                                                      4, 0, 4, 4])
    ///     let outcome = board.moved(.left)
    ///     outcome.afterstate.values   // [4, 4, 0, 0,
    ///                                 //  8, 4, 0, 0]
    ///     outcome.reward              // 16: 4 + 4 + 8
    ///
    /// The rules of the original game: every tile slides as far as it can toward
    /// `direction`; two equal tiles that meet merge into one of twice the value;
    /// a tile merges at most once per move; and merging is resolved starting
    /// from the side the tiles move toward (`2 2 2 .` left is `4 2 . .`, right is
    /// `. . 2 4`).
    ///
    /// - Complexity: O(`cellCount`).
    @inlinable
    public func moved(_ direction: Direction) -> MoveOutcome<Board> {
        var afterstate = self
        var events: [TileMovement]? = nil
        let (reward, changed, highest) = afterstate.slideAndMerge(direction, events: &events)
        return MoveOutcome(afterstate: afterstate, reward: reward, changed: changed, highestMerge: highest)
    }

    /// The movement of every tile that a move in `direction` moves, in line order.
    ///
    /// - Complexity: O(`cellCount`).
    public func movements(_ direction: Direction) -> [TileMovement] {
        var afterstate = self
        var events: [TileMovement]? = []
        _ = afterstate.slideAndMerge(direction, events: &events)
        return events!
    }

    /// Applies a move in place and returns its reward, whether it changed the
    /// board, and the largest tile a merge created.
    @inlinable
    mutating func slideAndMerge(
        _ direction: Direction, events: inout [TileMovement]?
    ) -> (reward: Int64, changed: Bool, highestMerge: UInt8) {
        let rows = self.rows, cols = self.cols
        let horizontal = direction == .left || direction == .right
        let lineCount = horizontal ? rows : cols, length = horizontal ? cols : rows
        // Each line runs from the edge the tiles move toward, inward: cell
        // `first + i * stride` is the line's i-th cell.
        //     left: origin 0, next line +cols, stride +1      right: origin cols-1, +cols, -1
        //     up:   origin 0, next line +1,    stride +cols   down:  origin (rows-1)·cols, +1, -cols
        // Selected without a switch: a jump table on a random action mispredicts.
        let backward = direction == .right || direction == .down
        let step = horizontal ? 1 : cols
        let stride = backward ? -step : step
        let lineStep = horizontal ? cols : 1
        let origin = backward ? (length - 1) * step : 0
        var reward: Int64 = 0
        var highest: UInt8 = 0
        var difference: UInt64 = 0
        let useTable = events == nil && withCells(fitsLineTable)
        let table = Board.lineTable
        withMutableCells { cells in
            for line in 0..<lineCount {
                let first = origin + line * lineStep
                let before = Board.gatherLine(cells, first: first, stride: stride, length: length)
                let after: UInt64
                if useTable {
                    after = Board.slideAndMergeLine(before, length: length, table: table, reward: &reward, highestMerge: &highest)
                } else if events == nil {
                    after = Board.slideAndMergeLine(before, reward: &reward, highestMerge: &highest) { _, _, _ in }
                } else {
                    after = Board.slideAndMergeLine(before, reward: &reward, highestMerge: &highest) { from, to, merged in
                        events!.append(TileMovement(from: first + from * stride, to: first + to * stride, merged: merged))
                    }
                }
                // Accumulated without a branch: whether a line changes is another coin flip.
                difference |= after ^ before
                Board.scatterLine(cells, after, first: first, stride: stride, length: length)
            }
        }
        return (reward, difference != 0, highest)
    }

    /// The line kernel: slides and merges one line toward its first cell.
    ///
    ///     [1 1 1 1] → [2 2 0 0], reward 8     (2 2 2 2 → 4 4 . .)
    ///     [1 1 2 3] → [2 2 3 0], reward 4     (2 2 4 8 → 4 4 8 .: no chain merge)
    ///     [2 0 2 2] → [3 2 0 0], reward 8     (4 . 4 4 → 8 4 . .)
    ///
    /// The line is a word of up to eight exponents, cell `i` in byte `i`.
    /// Tiles are visited in order, skipping empty cells by their non-zero
    /// flags, and appended to the output; `mergeable` holds the exponent of
    /// the last appended tile while it has not merged yet, which is what makes
    /// a tile merge at most once and merging start at the side the tiles move
    /// toward.
    ///
    /// - Parameters:
    ///   - line: the exponents of the line, cell `i` in byte `i`.
    ///   - reward: increased by the value of every merged tile.
    ///   - highestMerge: raised to the exponent of the largest merged tile.
    ///   - record: told `(from, to, merged)` for every tile that moves,
    ///     as positions along the line; the no-op closure of the fast path
    ///     compiles away.
    /// - Returns: the line after the move, in the same layout.
    @inlinable @inline(__always)
    static func slideAndMergeLine(
        _ line: UInt64, reward: inout Int64, highestMerge: inout UInt8,
        record: (_ from: Int, _ to: Int, _ merged: Bool) -> Void
    ) -> UInt64 {
        var tiles = (line &+ 0x7F7F_7F7F_7F7F_7F7F) & 0x8080_8080_8080_8080
        var output: UInt64 = 0
        var slot: UInt64 = 0
        var mergeable: UInt64 = 0
        var gained: UInt64 = 0
        var highest: UInt64 = 0
        while tiles != 0 {
            let shift = UInt64(truncatingIfNeeded: tiles.trailingZeroBitCount &- 7)
            tiles &= tiles &- 1
            let exponent = (line &>> shift) & 0xFF
            // 0/1 multipliers rather than `if`: whether a tile merges is a coin
            // flip that a branch predictor would often miss.
            let merges: UInt64 = exponent == mergeable ? 1 : 0
            let places = 1 &- merges
            // A merge raises the previous tile by one (2^e + 2^e = 2^(e+1));
            // otherwise the tile goes into the next free slot.
            output &+= merges &<< ((8 &* (slot &- merges)) & 63)
            output |= (exponent &* places) &<< ((8 &* slot) & 63)
            gained &+= merges &<< ((exponent &+ 1) & 63)
            highest = max(highest, merges &* (exponent &+ 1))
            let read = Int(truncatingIfNeeded: shift &>> 3), target = Int(truncatingIfNeeded: slot &- merges)
            if merges != 0 || read != target { record(read, target, merges != 0) }
            mergeable = exponent &* places
            slot &+= places
        }
        reward &+= Int64(truncatingIfNeeded: gained)
        highestMerge = max(highestMerge, UInt8(truncatingIfNeeded: highest))
        return output
    }

    /// The `length` cells `first, first + stride, …` as a line word (cell i in byte i).
    @inlinable @inline(__always)
    static func gatherLine(_ cells: UnsafeRawPointer, first: Int, stride: Int, length: Int) -> UInt64 {
        if stride == 1 {
            // A row read forward is one load (row offsets stay ≤ 56, inside the 64 bytes).
            return loadCellWord(cells, first) & prefixMask(bytes: length)
        }
        var line: UInt64 = 0
        for i in 0..<length {
            line |= UInt64(cells.load(fromByteOffset: first &+ i &* stride, as: UInt8.self)) &<< UInt64(truncatingIfNeeded: 8 &* i)
        }
        return line
    }

    /// Writes a line word back to the cells `first, first + stride, …`.
    @inlinable @inline(__always)
    static func scatterLine(_ cells: UnsafeMutableRawPointer, _ line: UInt64, first: Int, stride: Int, length: Int) {
        if stride == 1 {
            let keep = ~prefixMask(bytes: length)
            storeCellWord(cells, first, (loadCellWord(cells, first) & keep) | line)
            return
        }
        for i in 0..<length {
            cells.storeBytes(of: UInt8(truncatingIfNeeded: line &>> UInt64(truncatingIfNeeded: 8 &* i)), toByteOffset: first &+ i &* stride, as: UInt8.self)
        }
    }

    /// The directions that change this board.
    ///
    ///     try Board(rows: 2, cols: 2, values: [2, 4, 0, 0]).legalMoves   // [down]
    ///
    /// A direction is legal when some pair of neighbours along it has an empty
    /// cell on the side the tiles move toward and a tile behind it, or two
    /// equal tiles. This is exactly "the move changes the board", without
    /// making the move.
    ///
    /// Eight cells at a time: each 64-bit word of the storage is compared
    /// bytewise with its east and south neighbours (the storage shifted by one
    /// cell and by one row), with a flag in the high bit of each byte.
    ///
    /// - Complexity: O(`cellCount` / 8).
    @inlinable
    public var legalMoves: ActionMask {
        let cells = cellCount, cols = self.cols
        let high: UInt64 = 0x8080_8080_8080_8080
        // Exponents are at most 61, so adding 0x7F to a byte sets its high bit
        // exactly when the byte is non-zero, and never carries into the next.
        @inline(__always) func nonzero(_ x: UInt64) -> UInt64 { (x &+ 0x7F7F_7F7F_7F7F_7F7F) & high }
        var left: UInt64 = 0, right: UInt64 = 0, up: UInt64 = 0, down: UInt64 = 0
        return withCells { storage in
            var word = loadCellWord(storage, 0)
            for index in 0..<((cells &+ 7) >> 3) {
                let next = index == 7 ? 0 : loadCellWord(storage, 8 &* (index &+ 1))
                let east = word &>> 8 | next &<< 56
                let rowBits = UInt64(truncatingIfNeeded: 8 &* cols)
                let south = cols == 8 ? next : word &>> rowBits | next &<< (64 &- rowBits)
                // Pairs (cell i, i + 1) inside a row, and (cell i, i + cols) inside the board.
                let first = index &* 8
                let eastPairs = Board.eastPairMasks[(cols &- 2) &* 8 &+ index] & Board.prefixMask(bytes: cells &- 1 &- first)
                let southPairs = Board.prefixMask(bytes: cells &- cols &- first) & high
                let here = nonzero(word), eastTile = nonzero(east), southTile = nonzero(south)
                let sameEast = ~nonzero(word ^ east) & here
                let sameSouth = ~nonzero(word ^ south) & here
                left |= (sameEast | (~here & eastTile)) & eastPairs
                right |= (sameEast | (here & ~eastTile & high)) & eastPairs
                up |= (sameSouth | (~here & southTile)) & southPairs
                down |= (sameSouth | (here & ~southTile & high)) & southPairs
                word = next
            }
            @inline(__always) func bit(_ x: UInt64, _ direction: Direction) -> UInt8 {
                (x != 0 ? 1 : 0) << UInt8(direction.rawValue)
            }
            return ActionMask(rawValue: bit(up, .up) | bit(right, .right) | bit(down, .down) | bit(left, .left))
        }
    }
}

extension Board {
    /// For `cols` = 2…8 (eight words each): the high bit of every byte whose
    /// cell is not in the last column, that is, whose east neighbour is in the
    /// same row. A literal, so the optimizer stores it as constant data.
    @usableFromInline
    static let eastPairMasks: [UInt64] = [
        0x0080_0080_0080_0080, 0x0080_0080_0080_0080, 0x0080_0080_0080_0080, 0x0080_0080_0080_0080, 0x0080_0080_0080_0080, 0x0080_0080_0080_0080,
        0x0080_0080_0080_0080, 0x0080_0080_0080_0080,
        0x8080_0080_8000_8080, 0x8000_8080_0080_8000, 0x0080_8000_8080_0080, 0x8080_0080_8000_8080, 0x8000_8080_0080_8000, 0x0080_8000_8080_0080,
        0x8080_0080_8000_8080, 0x8000_8080_0080_8000,
        0x0080_8080_0080_8080, 0x0080_8080_0080_8080, 0x0080_8080_0080_8080, 0x0080_8080_0080_8080, 0x0080_8080_0080_8080, 0x0080_8080_0080_8080,
        0x0080_8080_0080_8080, 0x0080_8080_0080_8080,
        0x8080_8000_8080_8080, 0x8000_8080_8080_0080, 0x8080_8080_0080_8080, 0x8080_0080_8080_8000, 0x0080_8080_8000_8080, 0x8080_8000_8080_8080,
        0x8000_8080_8080_0080, 0x8080_8080_0080_8080,
        0x8080_0080_8080_8080, 0x8080_8080_0080_8080, 0x0080_8080_8080_0080, 0x8080_0080_8080_8080, 0x8080_8080_0080_8080, 0x0080_8080_8080_0080,
        0x8080_0080_8080_8080, 0x8080_8080_0080_8080,
        0x8000_8080_8080_8080, 0x8080_0080_8080_8080, 0x8080_8000_8080_8080, 0x8080_8080_0080_8080, 0x8080_8080_8000_8080, 0x8080_8080_8080_0080,
        0x0080_8080_8080_8000, 0x8000_8080_8080_8080,
        0x0080_8080_8080_8080, 0x0080_8080_8080_8080, 0x0080_8080_8080_8080, 0x0080_8080_8080_8080, 0x0080_8080_8080_8080, 0x0080_8080_8080_8080,
        0x0080_8080_8080_8080, 0x0080_8080_8080_8080,
    ]
}
