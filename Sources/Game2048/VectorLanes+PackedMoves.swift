// The board work of a block of 4×4 lanes (their move, spawn and new legal moves) before their
// episodes take it: eight lanes at a time in AVX-512 registers (CPackedLanes) where the processor
// has them, else in stages, each a short loop over the block. One lane's whole move is a chain of
// a few hundred instructions, longer than the core's reorder window; a stage's loop body is short
// enough that several lanes' chains are in flight at once. Methods of the lanes' class, so that a
// call copies no environment.

internal import CPackedLanes

extension VectorLanes {
    /// The board work of the 4×4 lanes `range` (one block): which of them take the packed move, and for those
    /// their move, spawn (spawns 4s below `fourThreshold`) and new legal moves, into `moves` (indexed from
    /// `range.lowerBound`); `together` takes the AVX-512 kernel.
    @inline(__always)
    func movePacked(_ range: Range<Int>, actions: UnsafePointer<UInt8>, fourThreshold: UInt64, together: Bool, into moves: PackedMoves) {
        let start = range.lowerBound
        for index in range { moves.takes[index &- start] = episodes[index].takesPackedMove ? 1 : 0 }
        guard together else { return movePackedInStages(range, actions: actions, fourThreshold: fourThreshold, into: moves, from: start) }
        var undone = g2048_packed_lanes_step(
            range.count, packed + start, actions + start, moves.takes, Bitboard.rowTable.base, fourThreshold,
            UnsafeMutableRawPointer(generators + start).assumingMemoryBound(to: UInt64.self),
            moves.after, moves.next, moves.rewards, moves.facts)
        // A group of eight whose cell draw must be drawn again (almost never): the scalar way, which redraws.
        while undone != 0 {
            let group = start &+ 8 &* undone.trailingZeroBitCount
            movePackedInStages(group..<min(group &+ 8, range.upperBound), actions: actions, fourThreshold: fourThreshold, into: moves, from: start)
            undone &= undone &- 1
        }
    }

    /// ``movePacked(_:actions:fourThreshold:together:into:)``'s work for `range` one stage at a time over the
    /// lanes, in Swift; `moves` is indexed from `base` (the block's first lane).
    func movePackedInStages(_ range: Range<Int>, actions: UnsafePointer<UInt8>, fourThreshold: UInt64, into moves: PackedMoves, from base: Int) {
        let packed = self.packed, generators = self.generators, table = Bitboard.rowTable, rows = moves.rows
        // The row lookups: independent loads, dozens in flight.
        for index in range {
            let direction = Direction(unchecked: actions[index])
            rows[index &- base] = Bitboard(rawValue: packed[index]).rowLookup(direction, table: table, manyBoards: true)
        }
        for index in range {
            let direction = Direction(unchecked: actions[index]), lane = index &- base
            let outcome = Bitboard(rawValue: packed[index]).moved(direction, rows: rows[lane], manyBoards: true)
            moves.after[lane] = outcome.afterstate.rawValue
            moves.next[lane] = outcome.afterstate.rawValue
            moves.rewards[lane] = UInt64(truncatingIfNeeded: outcome.reward)
            moves.facts[lane] = PackedMoves.Facts(highestMerge: outcome.highestMerge, changed: outcome.changed).rawValue
        }
        // The spawns, of exactly the lanes that take the packed legal move.
        for index in range {
            let lane = index &- base
            var facts = PackedMoves.Facts(rawValue: moves.facts[lane])
            guard moves.takes[lane] != 0 && facts.changed else { continue }
            var next = Bitboard(rawValue: moves.after[lane])
            // A changed board has an empty cell.
            let spawn = next.spawnRandomTile(fourThreshold: fourThreshold, using: &generators[index]).unsafelyUnwrapped
            facts.record(spawn: spawn, legalMoves: next.legalMoves(manyBoards: true))
            moves.next[lane] = next.rawValue
            moves.facts[lane] = facts.rawValue
        }
    }
}
