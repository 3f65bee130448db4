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

    /// The board valued in place of `board`: tiles above its largest gap halved while it holds an
    /// exponent of at least `limit`; `board` itself when it has none or no gap is left.
    public static func downgraded(_ board: Bitboard, from limit: UInt8) -> Bitboard {
        var board = board
        while holds(board.rawValue, atLeast: limit), let gap = largestGap(of: board) {
            // Every nibble above the gap loses one (all are at least 1 there, so no borrow crosses nibbles).
            var ones: UInt64 = 0
            for cell in 0..<16 where board[cell] > gap { ones |= 1 << UInt64(4 * cell) }
            board.rawValue -= ones
        }
        return board
    }

    /// ``downgraded(_:from:)-(Bitboard,_)`` on a generic board (any size, any exponent).
    public static func downgraded(_ board: Board, from limit: UInt8) -> Board {
        var board = board
        while board.maxExponent >= limit, let gap = largestGap(of: board) {
            for cell in 0..<board.cellCount where board[cell] > gap { board[cell] -= 1 }
        }
        return board
    }

    /// The largest exponent between 1 and the board's largest exponent (exclusive) that no cell holds.
    static func largestGap(of board: some GameBoard) -> UInt8? {
        var present = Set<UInt8>(), highest: UInt8 = 0
        for cell in 0..<(board.rows * board.cols) {
            present.insert(board[cell])
            highest = max(highest, board[cell])
        }
        return (1..<max(highest, 1)).reversed().first { !present.contains($0) }
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
