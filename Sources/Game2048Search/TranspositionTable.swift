import Game2048

/// The transposition table of ``PackedExpectimax``: chance-node values keyed by (packed afterstate, depth).
///
/// A fixed array of ``entryCount`` entries (a power of two) with open addressing: a key lives in one of
/// ``probeLimit`` slots from its hash. It is allocated once, on first use, so a move allocates nothing;
/// and it is emptied per decision by bumping a generation counter, since an entry of an older generation
/// counts as empty, instead of rewriting megabytes. When all of a key's slots hold live entries, the
/// first is overwritten: the value is then computed again if needed, the same value, since the search
/// is deterministic.
struct TranspositionTable {
    /// 2^18 entries of 16 bytes: 4 MiB a search. A full depth-2 search on 4×4 (at most about 58 000 chance
    /// nodes, and the default budget of 100 000) stays under half full, so entries are rarely overwritten.
    static let entryCount = 1 << 18
    /// Slots tried per key before overwriting.
    static let probeLimit = 8

    struct Entry {
        var board: UInt64 = 0
        var value: Float = 0
        /// `generation << 8 | depth`; generation 0 never occurs, so a fresh entry is empty.
        var tag: UInt32 = 0
    }

    var entries: [Entry] = []
    /// The current generation, 1 ..< 2^24.
    var generation: UInt32 = 1

    /// Empties the table for a new decision; allocates it on first use.
    mutating func clear() {
        if entries.isEmpty {
            entries = Array(repeating: Entry(), count: Self.entryCount)
            generation = 1
            return
        }
        generation &+= 1
        // After 2^24 - 1 decisions the tags would repeat: start over once, for real.
        if generation == 1 << 24 {
            for index in entries.indices { entries[index].tag = 0 }
            generation = 1
        }
    }

    @inline(__always)
    func home(_ board: UInt64, _ depth: Int) -> Int {
        // Fibonacci hashing of the board mixed with the depth; the top bits are the best mixed.
        let key = (board ^ (UInt64(truncatingIfNeeded: depth) &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: key >> UInt64(64 - Self.entryCount.trailingZeroBitCount))
    }

    @inline(__always)
    func tag(_ depth: Int) -> UInt32 { generation << 8 | UInt32(truncatingIfNeeded: depth) & 0xFF }

    /// The value stored for (`board`, `depth`) in this generation, if any.
    @inline(__always)
    func value(of board: UInt64, depth: Int) -> Float? {
        let wanted = tag(depth), live = generation << 8
        var index = home(board, depth)
        for _ in 0..<Self.probeLimit {
            let entry = entries[index]
            if entry.tag == wanted && entry.board == board { return entry.value }
            // An entry of an older generation is empty: the key was never stored past it.
            if entry.tag & ~0xFF != live { return nil }
            index = (index &+ 1) & (Self.entryCount - 1)
        }
        return nil
    }

    /// Stores the value of (`board`, `depth`).
    @inline(__always)
    mutating func store(_ value: Float, of board: UInt64, depth: Int) {
        let live = generation << 8, first = home(board, depth)
        var index = first
        for _ in 0..<Self.probeLimit {
            if entries[index].tag & ~0xFF != live {
                entries[index] = Entry(board: board, value: value, tag: tag(depth))
                return
            }
            index = (index &+ 1) & (Self.entryCount - 1)
        }
        entries[first] = Entry(board: board, value: value, tag: tag(depth))
    }
}
