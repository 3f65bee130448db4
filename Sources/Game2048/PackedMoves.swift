// The board work of a block of 4×4 lanes, a column for each result, which the vector step's
// episode loop reads lane by lane. The same columns come from the AVX-512 kernel (CPackedLanes)
// and from the Swift stages; `Facts` is the one Swift reading of the kernel's packed word (its
// header states the bits), and the tests hold the two producers to the same columns.

internal import CPackedLanes

/// Columns over scratch memory for one block of packed 4×4 lanes: what each lane's move, spawn and
/// new legal moves came to, indexed from the block's first lane.
struct PackedMoves {
    /// The lanes in a block.
    static let block = 64
    /// The 64-bit words a block's columns take (the row lookups of the Swift stages among them).
    static let words = 4 * block + block / 8 + block * MemoryLayout<RowLookup>.stride / 8

    /// Whether this processor runs the AVX-512 kernel (asked once).
    static let kernelAvailable = g2048_packed_lanes_available() != 0

    /// The board after the move, before the spawn.
    let after: UnsafeMutablePointer<UInt64>
    /// The board after the spawn (`after` for a lane that did not spawn).
    let next: UnsafeMutablePointer<UInt64>
    /// The move's reward.
    let rewards: UnsafeMutablePointer<UInt64>
    /// The rest, packed (see ``Facts``).
    let facts: UnsafeMutablePointer<UInt64>
    /// 1 for a lane that takes the packed move (running, its largest tile below 2^15), else 0.
    let takes: UnsafeMutablePointer<UInt8>
    /// The Swift stages' row lookups.
    let rows: UnsafeMutablePointer<RowLookup>

    /// The columns over `words` words at `base`.
    init(_ base: UnsafeMutablePointer<UInt64>) {
        after = base
        next = base + PackedMoves.block
        rewards = base + 2 * PackedMoves.block
        facts = base + 3 * PackedMoves.block
        takes = UnsafeMutableRawPointer(base + 4 * PackedMoves.block).assumingMemoryBound(to: UInt8.self)
        rows = UnsafeMutableRawPointer(base + 4 * PackedMoves.block + PackedMoves.block / 8).bindMemory(to: RowLookup.self, capacity: PackedMoves.block)
    }

    /// A lane's facts in one word: bits 0–7 the largest merged exponent, bit 8 whether the board changed;
    /// after a spawn, bits 16–23 its cell, 24–31 its exponent and 32–35 the new board's legal moves.
    struct Facts {
        var rawValue: UInt64

        init(rawValue: UInt64) { self.rawValue = rawValue }

        /// A move's facts, before any spawn.
        @inline(__always)
        init(highestMerge: UInt8, changed: Bool) { rawValue = UInt64(highestMerge) | (changed ? 1 << 8 : 0) }

        @inline(__always) var highestMerge: UInt8 { UInt8(truncatingIfNeeded: rawValue) }
        @inline(__always) var changed: Bool { rawValue & (1 << 8) != 0 }
        @inline(__always) var spawn: Spawn {
            Spawn(cell: Int(truncatingIfNeeded: (rawValue >> 16) & 0xFF), exponent: UInt8(truncatingIfNeeded: rawValue >> 24))
        }
        @inline(__always) var legalMoves: ActionMask { ActionMask(rawValue: UInt8(truncatingIfNeeded: rawValue >> 32) & 0xF) }

        /// Adds a spawn and the legal moves of the board it made.
        @inline(__always)
        mutating func record(spawn: Spawn, legalMoves: ActionMask) {
            rawValue |= UInt64(truncatingIfNeeded: spawn.cell) << 16 | UInt64(spawn.exponent) << 24 | UInt64(legalMoves.rawValue) << 32
        }
    }
}

extension VectorEnvironment {
    /// The instructions a 4×4 vector's lanes move, spawn and find their legal moves on.
    public enum LaneInstructions: String, Sendable {
        /// Eight lanes a register, where the processor has AVX-512 F, DQ, BW and VL.
        case avx512
        /// One lane at a time, in Swift's stages.
        case scalar

        /// How a person reads it: "AVX-512" or "scalar code".
        public var name: String {
            switch self {
            case .avx512: "AVX-512"
            case .scalar: "scalar code"
            }
        }
    }

    /// The instructions a 4×4 vector's lanes take in this process. The results are the same either way; the speed is
    /// not, so benchmarks record it.
    public static var laneInstructions: LaneInstructions { PackedMoves.kernelAvailable ? .avx512 : .scalar }
}
