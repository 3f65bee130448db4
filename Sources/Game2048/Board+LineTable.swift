// A table-driven line kernel for boards whose tiles are all below 2^15.
//
// A line is read three cells at a time. The state carried between chunks is
// the last tile written while it may still merge ("pending"); the table maps
// (pending, three cells) to what that chunk finalizes:
//
//     bits  0–23  up to three finished tiles, one exponent per byte, in order
//     bits 24–25  how many
//     bits 28–31  the new pending tile (0 = none)
//     bits 32–49  the reward of the chunk's merges
//     bits 56–60  the largest exponent a merge created
//
// So a line of up to eight cells costs three lookups and no data-dependent
// branch, where the scalar kernel in Board+Move.swift spends a mispredicted
// branch on most "empty?" and "merge?" decisions. The tests check the two
// kernels against each other on random lines and boards.

extension Board {
    @usableFromInline
    static let lineTable = RowTableHandle { key in
        var pending = UInt64(key & 0xF)
        var finished: UInt64 = 0, count: UInt64 = 0, reward: UInt64 = 0, highest: UInt64 = 0
        for index in 1...3 {
            let exponent = UInt64(key >> (4 * index)) & 0xF
            if exponent == 0 { continue }
            if exponent == pending {
                // The original game's rule: equal neighbours merge, each tile once.
                finished |= (exponent + 1) << (8 * count)
                count += 1
                reward += 1 << (exponent + 1)
                highest = max(highest, exponent + 1)
                pending = 0
            } else {
                if pending != 0 {
                    finished |= pending << (8 * count)
                    count += 1
                }
                pending = exponent
            }
        }
        return finished | count << 24 | pending << 28 | reward << 32 | highest << 56
    }

    /// Whether every tile is below 2^15, so that ``lineTable`` can move this board.
    @inlinable @inline(__always)
    func fitsLineTable(_ cells: UnsafeRawPointer) -> Bool {
        var high: UInt64 = 0
        for index in 0..<((cellCount &+ 7) &>> 3) {
            // A byte of 15 or more (exponents stay below 0x80) sets its top bit.
            high |= loadCellWord(cells, index &* 8) &+ 0x7171_7171_7171_7171
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// The line kernel, by table: same result as `slideAndMergeLine` for lines of tiles below 2^15.
    @inlinable @inline(__always)
    static func slideAndMergeLine(
        _ line: UInt64, length: Int, table: RowTableHandle, reward: inout Int64, highestMerge: inout UInt8
    ) -> UInt64 {
        var output: UInt64 = 0, written: UInt64 = 0, pending: UInt64 = 0
        var gained: UInt64 = 0, highest: UInt64 = 0
        var offset: UInt64 = 0
        while offset < UInt64(truncatingIfNeeded: 8 &* length) {
            let chunk = line &>> offset
            let key = pending | (chunk & 0xF) &<< 4 | (chunk &>> 8 & 0xF) &<< 8 | (chunk &>> 16 & 0xF) &<< 12
            let entry = table[key]
            output |= (entry & 0xFF_FFFF) &<< ((8 &* written) & 63)
            written &+= entry &>> 24 & 3
            pending = entry &>> 28 & 0xF
            gained &+= entry &>> 32 & 0x3_FFFF
            highest = max(highest, entry &>> 56)
            offset &+= 24
        }
        output |= pending &<< ((8 &* written) & 63)
        reward &+= Int64(truncatingIfNeeded: gained)
        highestMerge = max(highestMerge, UInt8(truncatingIfNeeded: highest))
        return output
    }
}
