public import CPackedLanes

/// A 4×4 board packed into a `UInt64`, four bits a cell: the fast path.
///
///     let board = try Board(rows: 4, cols: 4, values: [2, 2, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 4])
///     let packed = Bitboard(board)!          // rawValue 0x2000_0000_0000_0011
///     packed.moved(.left).reward             // 4
///
/// Cell `i` (row-major, as in ``Board``) is the nibble at bits `4i ..< 4i+4`,
/// so row `r` is the 16-bit word at bits `16r` and column 0 is its low nibble:
///
///     bit 63                                           bit 0
///     [ row 3: c3 c2 c1 c0 ][ row 2 ][ row 1 ][ row 0: c3 c2 c1 c0 ]
///
/// Horizontal moves are four lookups in a 65 536-entry row table; vertical
/// moves transpose, look up, and transpose back. Legality needs no lookups at
/// all (bit tricks over the nibbles), so a whole environment step is a few
/// dozen instructions.
///
/// Four bits hold exponents up to 15 (the 32 768 tile). A move that would merge
/// two 15s cannot be represented: ``Environment`` switches to the generic
/// ``Board`` before a board can hold a 15, and ``init(_:)`` refuses boards it
/// cannot hold.
@frozen
public struct Bitboard: Hashable, Sendable {
    /// The packed cells.
    public var rawValue: UInt64

    /// Creates a bitboard from its packed cells.
    @inlinable @inline(__always)
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Packs a 4×4 board, or returns `nil` when the board is another size or holds an exponent above 15.
    @inlinable
    public init?(_ board: Board) {
        guard board.rows == 4, board.cols == 4 else { return nil }
        let bytes = board.storage.span.bytes
        let low = UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: 0, as: UInt64.self))
        let high = UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: 8, as: UInt64.self))
        guard (low | high) & 0xF0F0_F0F0_F0F0_F0F0 == 0 else { return nil }
        @inline(__always) func gather(_ x: UInt64) -> UInt64 {
            var x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF
            x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF
            return (x | x >> 16) & 0xFFFF_FFFF
        }
        rawValue = gather(low) | gather(high) << 32
    }

    /// Always 4.
    @inlinable public var rows: Int { 4 }
    /// Always 4.
    @inlinable public var cols: Int { 4 }

    /// The exponent in a cell (0 = empty).
    ///
    /// - Precondition: `0 <= cell < 16`.
    @inlinable
    public subscript(cell: Int) -> UInt8 {
        precondition(cell >= 0 && cell < 16, "cell \(cell) out of range for a 4x4 board")
        return UInt8(truncatingIfNeeded: rawValue >> (4 * cell)) & 0xF
    }

    /// The board mirrored over its main diagonal: cell (r, c) moves to (c, r).
    ///
    /// Two swaps of bit groups: the 2×2 blocks' off-diagonal cells 12 bits apart, then the
    /// off-diagonal 2×2 blocks 24 bits apart. Each swap is a "delta swap" (`t = (x ^ x >> d) & m;
    /// x ^= t ^ t << d`): six operations and one constant, where masking both groups and the rest
    /// takes seven and three.
    ///
    /// - Complexity: O(1), six operations per level.
    @inlinable @inline(__always)
    public var transposed: Bitboard {
        let x = rawValue
        let a = (x & 0xF0F0_0F0F_F0F0_0F0F) | ((x & 0x0000_F0F0_0000_F0F0) << 12) | ((x & 0x0F0F_0000_0F0F_0000) >> 12)
        let b = (a & 0xFF00_FF00_00FF_00FF) | ((a & 0x00FF_00FF_0000_0000) >> 24) | ((a & 0x0000_0000_FF00_FF00) << 24)
        return Bitboard(rawValue: b)
    }

    /// ``transposed`` in fewer operations along a longer chain, for many independent boards.
    ///
    /// Two "delta swaps" (`t = (x ^ x >> d) & m; x ^= t ^ t << d`): the 2×2 blocks' off-diagonal
    /// cells, 12 bits apart, then the off-diagonal 2×2 blocks, 24 bits apart. Six operations and
    /// one constant a level against ``transposed``'s seven and three, but each operation waits
    /// for the one before. A vector step, whose lanes are independent, runs out of execution
    /// units before it runs out of parallel work, and takes this form; one game's step waits on
    /// its chain, and takes ``transposed``'s (measured both ways in `g2048 bench`).
    @inlinable @inline(__always)
    var transposedBySwaps: Bitboard {
        var x = rawValue
        let t = (x ^ (x >> 12)) & 0x0000_F0F0_0000_F0F0
        x ^= t ^ (t << 12)
        let u = (x ^ (x >> 24)) & 0x0000_0000_FF00_FF00
        x ^= u ^ (u << 24)
        return Bitboard(rawValue: x)
    }

    /// The board after a move, its reward, and whether it changed.
    ///
    /// Same semantics as ``Board/moved(_:)``, checked against it on random boards by the tests.
    ///
    /// - Precondition: the move does not merge two 15s (see the type's discussion).
    /// - Complexity: O(1): two transposes and four table lookups.
    @inlinable
    public func moved(_ direction: Direction) -> MoveOutcome<Bitboard> {
        moved(direction, table: Bitboard.rowTable)
    }

    /// ``moved(_:)`` with the table passed in, so a loop can load it once.
    ///
    /// Branch-free in the direction: agents pick directions at random, and a
    /// switch on it would mispredict most of the time. Vertical moves are
    /// horizontal moves of the transposed board; right and down read the
    /// table's second half.
    @inlinable @inline(__always)
    func moved(_ direction: Direction, table: RowTableHandle) -> MoveOutcome<Bitboard> {
        moved(direction, rows: rowLookup(direction, table: table))
    }

    /// The four row-table entries a move in `direction` reads: the first half of a move.
    ///
    /// Split from the second half (``moved(_:rows:manyBoards:)``) so that a loop over many boards can issue
    /// the lookups of a whole block before it waits on any of them.
    ///
    /// `manyBoards`: the caller moves many independent boards (see ``transposedBySwaps``).
    @inlinable @inline(__always)
    func rowLookup(_ direction: Direction, table: RowTableHandle, manyBoards: Bool = false) -> RowLookup {
        // All ones for up (0) and down (2), zero for right and left. Both boards computed, then one
        // picked by the mask: a conditional transpose compiles to a branch that a random
        // direction mispredicts half the time.
        let vertical = (UInt64(truncatingIfNeeded: direction.rawValue) & 1) &- 1
        let flipped = manyBoards ? transposedBySwaps : transposed
        let source = (flipped.rawValue & vertical) | (rawValue & ~vertical)
        return RowLookup(table[source], table[source >> 16], table[source >> 32], table[source >> 48], vertical: vertical)
    }

    /// The board after a move in `direction` whose row-table entries are `rows`: the second half of a move.
    @inlinable @inline(__always)
    func moved(_ direction: Direction, rows entries: RowLookup, manyBoards: Bool = false) -> MoveOutcome<Bitboard> {
        let raw = UInt64(truncatingIfNeeded: direction.rawValue)
        let shift = ((raw &+ 1) >> 1 & 1) &* 16  // right = 1, down = 2 read bits 16–31
        let e0 = entries.e0, e1 = entries.e1, e2 = entries.e2, e3 = entries.e3
        // `&>>`: the shift is 0 or 16, so the overshift check of `>>` is dead weight.
        let rows =
            (e0 &>> shift) & 0xFFFF | ((e1 &>> shift) & 0xFFFF) << 16
            | ((e2 &>> shift) & 0xFFFF) << 32 | ((e3 &>> shift) & 0xFFFF) << 48
        // The mask comes from the lookup: where that went through memory (a vector step's blocks)
        // the compiler cannot turn this back into a branch on the direction.
        let flipped = manyBoards ? Bitboard(rawValue: rows).transposedBySwaps : Bitboard(rawValue: rows).transposed
        let after = (flipped.rawValue & entries.vertical) | (rows & ~entries.vertical)
        // A row's reward is below 2^18 (two merges of at most 2^16 each), so the four 24-bit fields
        // add without a carry into the bits above them, and one mask after the sum does.
        let reward = Int64(truncatingIfNeeded: ((e0 >> 32) &+ (e1 >> 32) &+ (e2 >> 32) &+ (e3 >> 32)) & 0xFF_FFFF)
        let highest = UInt8(truncatingIfNeeded: max(max(e0 >> 56, e1 >> 56), max(e2 >> 56, e3 >> 56)))
        return MoveOutcome(afterstate: Bitboard(rawValue: after), reward: reward, changed: after != rawValue, highestMerge: highest)
    }

    /// One bit (the low bit of each nibble) set for every non-empty cell.
    @inlinable @inline(__always)
    var occupiedBits: UInt64 { Bitboard.anyBit(rawValue) }

    /// The low bit of each nibble set when any bit of that nibble of `x` is (the other bits are cleared).
    @inlinable @inline(__always)
    static func anyBit(_ x: UInt64) -> UInt64 {
        let pairs = x | x >> 2
        return (pairs | pairs >> 1) & 0x1111_1111_1111_1111
    }

    /// The directions that change the board, by bit-parallel comparison of neighbours.
    ///
    /// A direction is legal when some neighbour pair along it is "empty toward
    /// the move, tile behind" or "two equal tiles" (see ``Board/legalMoves``).
    ///
    /// - Complexity: O(1), no table lookups.
    @inlinable @inline(__always)
    public var legalMoves: ActionMask { legalMoves(manyBoards: false) }

    /// ``legalMoves``, in the form that suits the caller (see ``transposedBySwaps``): one board's step waits on
    /// the mask (the next action is drawn from it), so it takes the four directions' tests side by side, a
    /// chain of five operations; many independent boards take the fold, fewer operations along a chain of eleven.
    @inlinable @inline(__always)
    func legalMoves(manyBoards: Bool) -> ActionMask {
        let x = rawValue
        let occupied = occupiedBits
        let empty = ~occupied & 0x1111_1111_1111_1111
        // Pairs (cell i, cell i+1) within a row: columns 0–2 only.
        let horizontal: UInt64 = 0x0111_0111_0111_0111
        // Pairs (cell i, cell i+4): rows 0–2 only.
        let vertical: UInt64 = 0x0000_1111_1111_1111
        let sameH = ~Bitboard.anyBit(x ^ (x >> 4)) & occupied & horizontal
        let sameV = ~Bitboard.anyBit(x ^ (x >> 16)) & occupied & vertical
        // `|` rather than `||`: no branches to mispredict.
        let left = sameH | (empty & (occupied >> 4) & horizontal)
        let right = sameH | (occupied & (empty >> 4) & horizontal)
        let up = sameV | (empty & (occupied >> 16) & vertical)
        let down = sameV | (occupied & (empty >> 16) & vertical)
        if manyBoards {
            // Each direction's pairs are low bits of nibbles: moved to bit `direction` of the nibbles, the four
            // fold into one nibble with four shifts, where a test of each direction (arithmetic, as a comparison
            // compiled to branches in some callers) took twice as many operations.
            var any = up | right << 1 | down << 2 | left << 3
            any |= any >> 32
            any |= any >> 16
            any |= any >> 8
            any |= any >> 4
            return ActionMask(rawValue: UInt8(truncatingIfNeeded: any))
        }
        // Bit 63 of `x | -x` is set exactly when `x` is not 0: four such tests side by side.
        @inline(__always) func bit(_ pairs: UInt64, _ direction: UInt64) -> UInt64 { ((pairs | (0 &- pairs)) >> 63) << direction }
        return ActionMask(rawValue: UInt8(truncatingIfNeeded: bit(up, 0) | bit(right, 1) | bit(down, 2) | bit(left, 3)))
    }

    /// Number of empty cells.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var emptyCount: Int {
        let occupied = occupiedBits
        // The multiply sums the nibbles into the top one; 16 wraps to 0 there.
        return occupied == 0x1111_1111_1111_1111 ? 0 : 16 &- Int(truncatingIfNeeded: (occupied &* 0x1111_1111_1111_1111) >> 60)
    }

    /// The largest exponent on the board (0 when empty).
    ///
    /// - Complexity: O(16).
    @inlinable
    public var maxExponent: UInt8 {
        // The even and the odd cells as eight bytes each, then a byte-wise maximum: no loop, no branch
        // (a multi-stage network asks this for every board it values).
        let even = rawValue & 0x0F0F_0F0F_0F0F_0F0F, odd = (rawValue >> 4) & 0x0F0F_0F0F_0F0F_0F0F
        return pointwiseMax(unsafeBitCast(even, to: SIMD8<UInt8>.self), unsafeBitCast(odd, to: SIMD8<UInt8>.self)).max()
    }

    /// Whether some cell holds 15, the largest exponent four bits can hold.
    @inlinable
    public var holdsLimitTile: Bool {
        let x = rawValue
        return x & (x >> 1) & (x >> 2) & (x >> 3) & 0x1111_1111_1111_1111 != 0
    }

    /// Places a random tile by the spawn rule, drawing exactly as ``Board/spawnRandomTile(fourThreshold:using:)`` does.
    ///
    /// Where the processor has BMI2 and POPCNT the cell is found by them (`g2048_spawn_cell`, a call: Swift's
    /// baseline target cannot spell them), else by a bytewise comparison of prefix counts: the same cell either way.
    ///
    /// - Complexity: O(1); its branches (the path, a redraw) go one way nearly always.
    @inlinable @inline(__always)
    @discardableResult
    public mutating func spawnRandomTile(fourThreshold: UInt64, using rng: inout some RandomNumberGenerator) -> Spawn? {
        let empty = ~occupiedBits & 0x1111_1111_1111_1111
        guard empty != 0 else { return nil }
        let exponent: UInt64 = rng.bernoulli(threshold: fourThreshold) ? 2 : 1
        let draw = rng.next()
        var cell = g2048_spawn_cell_available() != 0 ? Int(truncatingIfNeeded: g2048_spawn_cell(empty, draw)) : 16
        if cell == 16 { cell = Bitboard.cellOfEmpty(empty, draw: draw, using: &rng) }
        rawValue |= exponent &<< UInt64(4 &* cell)
        return Spawn(cell: cell, exponent: UInt8(exponent))
    }

    /// The empty cell that a spawn's cell draw `draw` picks (drawing again from `rng` if the unbiased draw needs it),
    /// for `empty` with the low bit of each empty cell's nibble set (at least one).
    @inlinable @inline(__always)
    static func cellOfEmpty(_ empty: UInt64, draw: UInt64, using rng: inout some RandomNumberGenerator) -> Int {
        // Multiplying by 0x1111… makes nibble j the number of empty cells among
        // cells 0…j: one multiply gives the count and every prefix count.
        let prefix = empty &* 0x1111_1111_1111_1111
        let count = empty == 0x1111_1111_1111_1111 ? 16 : Int(prefix >> 60)
        return Bitboard.cellOfEmpty(rng.uniform(below: count, firstDraw: draw), prefix: prefix)
    }

    /// The cell of the `k`-th empty cell (from 0), given the prefix counts of empty cells.
    ///
    /// That cell is the number of cells among 0…14 whose prefix count is at most
    /// `k`. The nibbles are split into bytes (even and odd cells) so that a
    /// bytewise subtraction compares all fifteen at once, without the
    /// branches of a bit-clearing loop or the cost of a software popcount
    /// (the baseline x86-64 target has no POPCNT instruction).
    @inlinable @inline(__always)
    static func cellOfEmpty(_ k: Int, prefix: UInt64) -> Int {
        let low: UInt64 = 0x0F0F_0F0F_0F0F_0F0F, high: UInt64 = 0x8080_8080_8080_8080
        let threshold = UInt64(truncatingIfNeeded: k &+ 1) &* 0x0101_0101_0101_0101
        let even = prefix & low, odd = (prefix >> 4) & low
        // Byte b keeps its high bit exactly when its count is ≥ k + 1.
        let evenAtMost = ~((even | high) &- threshold) & high
        // Cell 15 never counts: the k-th empty cell is at most 15 anyway.
        let oddAtMost = ~((odd | high) &- threshold) & high & 0x0080_8080_8080_8080
        let bits = (evenAtMost >> 7) &+ (oddAtMost >> 7)
        return Int(truncatingIfNeeded: (bits &* 0x0101_0101_0101_0101) >> 56)
    }
}

extension Bitboard: GameBoard {}

/// The four row-table entries of one move (see ``Bitboard/rowLookup(_:table:manyBoards:)``).
@frozen @usableFromInline
struct RowLookup: Sendable {
    /// The entries of the four rows (or columns, for a vertical move).
    @usableFromInline var e0, e1, e2, e3: UInt64
    /// All ones for a vertical move, zero for a horizontal one.
    @usableFromInline var vertical: UInt64

    @inlinable @inline(__always)
    init(_ e0: UInt64, _ e1: UInt64, _ e2: UInt64, _ e3: UInt64, vertical: UInt64) {
        self.e0 = e0
        self.e1 = e1
        self.e2 = e2
        self.e3 = e3
        self.vertical = vertical
    }
}

extension Board {
    /// Unpacks a bitboard into a 4×4 board.
    ///
    /// - Complexity: O(1): each half of the board spreads eight nibbles into eight bytes.
    @inlinable
    public init(_ bitboard: Bitboard) {
        self.init(unchecked: 4, 4)
        var cells = storage.mutableSpan
        var bytes = cells.mutableBytes
        // Byte k of a little-endian word is cell k.
        bytes.storeBytes(of: Bitboard.spread(bitboard.rawValue).littleEndian, toByteOffset: 0, as: UInt64.self)
        bytes.storeBytes(of: Bitboard.spread(bitboard.rawValue >> 32).littleEndian, toByteOffset: 8, as: UInt64.self)
    }
}

extension Bitboard {
    /// The sixteen exponents as bytes, cell `k` in element `k`.
    ///
    /// The even cells are the low nibbles of the word's bytes and the odd cells the high ones:
    /// interleaving the two halves' bytes is one instruction in vector registers (`punpcklbw` on
    /// x86-64), where spreading each nibble into its own byte word-wise takes about twenty.
    @inlinable @inline(__always)
    var exponentBytes: SIMD16<UInt8> {
        #if _endian(little)
        let even = unsafeBitCast(rawValue & 0x0F0F_0F0F_0F0F_0F0F, to: SIMD8<UInt8>.self)
        let odd = unsafeBitCast((rawValue >> 4) & 0x0F0F_0F0F_0F0F_0F0F, to: SIMD8<UInt8>.self)
        return SIMD16(
            even[0], odd[0], even[1], odd[1], even[2], odd[2], even[3], odd[3],
            even[4], odd[4], even[5], odd[5], even[6], odd[6], even[7], odd[7])
        #else
        let low = Bitboard.spread(rawValue), high = Bitboard.spread(rawValue >> 32)
        return SIMD16(
            lowHalf: unsafeBitCast(low.littleEndian, to: SIMD8<UInt8>.self),
            highHalf: unsafeBitCast(high.littleEndian, to: SIMD8<UInt8>.self))
        #endif
    }

    /// The eight nibbles in the low half of `half` spread into the eight bytes of a word: the
    /// exponents of eight cells, byte `k` of the little-endian word holding cell `k`.
    @inlinable @inline(__always)
    static func spread(_ half: UInt64) -> UInt64 {
        var x = half & 0xFFFF_FFFF
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        return (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
    }
}
