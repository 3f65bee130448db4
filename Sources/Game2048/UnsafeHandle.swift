// One of the two files in Game2048 that make Unsafe*Pointers (the other is VectorLanes.swift,
// a vector environment's columns): the row table's memory, allocated here, and a board's
// cells, lent by `withCells` / `withMutableCells` for the length of one call. The moves, spawns and line-table checks take those lent
// pointers as parameters and never make or keep one.
//
// The bitboard's row table is read several times per move. A Swift array would
// add a bounds check, and a retain/release when it escapes into a closure; a
// raw pointer to memory allocated once and never freed has neither, and since
// the memory is never written after it is built, sharing it across threads is safe.

/// A read-only table of 65 536 `UInt64` entries, indexed by a 16-bit row.
@usableFromInline
struct RowTableHandle: @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<UInt64>

    /// Builds the table once; the memory lives for the rest of the process.
    init(entry: (UInt16) -> UInt64) {
        let memory = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 << 16)
        for row in 0..<(1 << 16) {
            memory[row] = entry(UInt16(row))
        }
        base = UnsafePointer(memory)
    }

    /// The entry for the 16-bit row in the low bits of `row`.
    @inlinable @inline(__always)
    subscript(row: UInt64) -> UInt64 {
        base[Int(truncatingIfNeeded: row & 0xFFFF)]
    }
}

// Board's word-at-a-time kernels read and write its 64 bytes of inline
// storage through a raw pointer. Through a span, each access copied the whole
// storage to the stack first, and the byte loads that followed the 16-byte
// stores of that copy stalled on store forwarding.
extension Board {
    /// Calls `body` with a pointer to the cells (64 bytes, row-major, cell i at byte i).
    @inlinable @inline(__always)
    func withCells<R>(_ body: (UnsafeRawPointer) -> R) -> R {
        storage.span.withUnsafeBytes { body($0.baseAddress.unsafelyUnwrapped) }
    }

    /// Calls `body` with a mutable pointer to the cells.
    @inlinable @inline(__always)
    mutating func withMutableCells<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        var cells = storage.mutableSpan
        return cells.withUnsafeMutableBytes { body($0.baseAddress.unsafelyUnwrapped) }
    }
}

/// Loads the little-endian word of cells at `offset` (0 ≤ offset ≤ 56).
@inlinable @inline(__always)
func loadCellWord(_ cells: UnsafeRawPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: cells.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

/// Stores a little-endian word of cells at `offset` (0 ≤ offset ≤ 56).
@inlinable @inline(__always)
func storeCellWord(_ cells: UnsafeMutableRawPointer, _ offset: Int, _ word: UInt64) {
    cells.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
}

extension Board {
    /// Copies the board's exponents (row-major) into `buffer` at `offset`: the
    /// vector environment's per-step write into its flat observation buffer.
    ///
    /// - Precondition: `buffer` has room for `cellCount` bytes at `offset`.
    @inlinable
    public func copyExponents(into buffer: inout [UInt8], at offset: Int) {
        let count = cellCount
        precondition(offset >= 0 && offset + count <= buffer.count, "buffer too small for \(count) cells at offset \(offset)")
        withCells { cells in
            buffer.withUnsafeMutableBytes { target in
                target.baseAddress.unsafelyUnwrapped.advanced(by: offset).copyMemory(from: cells, byteCount: count)
            }
        }
    }
}
