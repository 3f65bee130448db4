import Game2048

/// Tile-downgrading (Guei, Chen & Wu 2022, used by TDL2048+; Jaśkowski 2018 discusses the idea): a board
/// past the range a network was trained on is valued as a smaller board of the same shape.
///
/// A network rarely or never sees a 32 768 tile in training, so its weights for one are noise (or the
/// initial value). But the board's shape usually has a gap: some tile below the largest is missing.
/// Halving every tile above the gap closes it and keeps the order of all tiles, and the network values
/// a board it knows. Only the evaluation sees the downgraded board; the search still moves the real one.
///
///     // 32768 16384 4096 2 …: 8192 is missing, so 32768 → 16384 and 16384 → 8192.
///     TileDowngrade.downgraded(board, from: 15)
///
/// The gap closed is the largest missing exponent below the largest tile, so the fewest tiles change;
/// it repeats while a tile at `limit` or above is left and a gap remains.
public enum TileDowngrade {
    /// The exponent of the default `limit`: 15, the 32 768 tile.
    public static let defaultLimit: UInt8 = 15

    /// The limit a search uses: the one `given` (an inner `nil`: downgrading off), else the one a weights file
    /// `recorded`, else ``defaultLimit``.
    public static func limit(given: UInt8??, recorded: UInt8?) -> UInt8? { given ?? recorded ?? defaultLimit }

    /// The limits a search takes: the exponents of the tiles 8 to 32 768.
    public static let limitRange: ClosedRange<UInt8> = 3...15

    /// The board valued in place of `board`: tiles above its largest gap halved while it holds an
    /// exponent of at least `limit`; `board` itself when it has none or no gap is left.
    public static func downgraded(_ board: Bitboard, from limit: UInt8) -> Bitboard {
        // Called at every leaf of a search once a game nears the limit, so no allocation and no
        // per-exponent scan: the exponents present are one 16-bit mask.
        var x = board.rawValue
        while holds(x, atLeast: limit) {
            var present: UInt32 = 0
            for cell in 0..<16 { present |= 1 &<< UInt32(truncatingIfNeeded: (x &>> UInt64(4 &* cell)) & 0xF) }
            guard let gap = largestGap(present: UInt64(present)) else { break }
            // Every nibble above the gap loses one (all are at least 1 there, so no borrow crosses nibbles).
            var ones: UInt64 = 0
            for cell in 0..<16 where (x &>> UInt64(4 &* cell)) & 0xF > UInt64(gap) { ones |= 1 &<< UInt64(4 &* cell) }
            x &-= ones
        }
        return Bitboard(rawValue: x)
    }

    /// ``downgraded(_:from:)-(Bitboard,_)`` on a generic board (any size, any exponent).
    public static func downgraded(_ board: Board, from limit: UInt8) -> Board {
        var board = board
        while board.maxExponent >= limit {
            var present: UInt64 = 0
            for cell in 0..<board.cellCount { present |= 1 &<< UInt64(board[cell] & 63) }
            guard let gap = largestGap(present: present) else { break }
            for cell in 0..<board.cellCount where board[cell] > gap { board[cell] -= 1 }
        }
        return board
    }

    /// The largest exponent between 1 and the largest exponent present (exclusive) that is absent,
    /// from the set of exponents present as a bit mask (bit `e` for exponent `e`).
    @inlinable @inline(__always)
    static func largestGap(present: UInt64) -> UInt8? {
        guard present > 1 else { return nil }
        let highest = 63 &- present.leadingZeroBitCount
        // Bits 1 up to (not including) the highest exponent, minus those present.
        let missing = ((UInt64(1) &<< UInt64(highest)) &- 2) & ~present
        return missing == 0 ? nil : UInt8(63 &- missing.leadingZeroBitCount)
    }

    /// Whether some nibble of `packed` is at least `limit`, with no loop: even and odd nibbles are
    /// spread into bytes, and `(byte | 0x80) - limit` keeps its high bit exactly when `byte >= limit`.
    @inlinable @inline(__always)
    public static func holds(_ packed: UInt64, atLeast limit: UInt8) -> Bool {
        guard limit > 0 else { return true }
        let low: UInt64 = 0x0F0F_0F0F_0F0F_0F0F, high: UInt64 = 0x8080_8080_8080_8080
        let threshold = UInt64(min(limit, 16)) &* 0x0101_0101_0101_0101
        let even = ((packed & low) | high) &- threshold, odd = (((packed >> 4) & low) | high) &- threshold
        return (even | odd) & high != 0
    }
}
