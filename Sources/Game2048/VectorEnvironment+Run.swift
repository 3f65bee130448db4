// The step loop of a vector environment: each lane's transition, written into the result
// buffers. The transition itself is `Episode`'s (shared with `Environment`); what is here is
// where the boards live (a packed `UInt64` column on 4×4, a `Board` column otherwise) and what
// each step writes. Independent lanes, one after the other, keep the core busy: the next lane's
// table lookups start while the last one's spawn is still drawing.

extension VectorEnvironment {
    /// Steps every lane with its action (checked: `0…3`, and the checks of ``check(_:)`` passed).
    mutating func run(_ actions: UnsafePointer<UInt8>, into out: VectorStepBuffers) {
        clearFinals(out)
        let episodes = lanes.episodes, packed = lanes.packed, generators = lanes.generators
        let packs = rules.rows == 4 && rules.cols == 4
        let table = Bitboard.rowTable
        let limits = self.limits
        // Blocks of lanes: first every packed lane's row lookups, then the rest of each move.
        // The lookups are independent loads, so a short loop keeps dozens in flight; inside one
        // lane's whole step the next lane's loads would wait behind a few hundred instructions.
        withUnsafeTemporaryAllocation(of: RowLookup.self, capacity: VectorEnvironment.block) { lookups in
            var start = 0
            while start < count {
                let end = min(start + VectorEnvironment.block, count)
                if packs {
                    for index in start..<end {
                        let direction = Direction(unchecked: actions[index])
                        lookups[index - start] = Bitboard(rawValue: packed[index]).rowLookup(direction, table: table)
                    }
                }
                for index in start..<end {
                    let direction = Direction(unchecked: actions[index])
                    guard episodes[index].phase == .running else {
                        // Ended at the last step or at its reset: the action is ignored, a new episode starts.
                        restart(index, seed: nil, board: nil, into: out, reportsFlags: true)
                        continue
                    }
                    if packs && episodes[index].highest < 15 {
                        let board = Bitboard(rawValue: packed[index])
                        let outcome = board.moved(direction, rows: lookups[index - start])
                        guard outcome.changed else {
                            // Uniformly random agents make many: kept on the packed board.
                            let (reward, terminated, truncated) = episodes[index].refuse(limits: limits)
                            report(
                                index, observation: board, afterstate: board, spawn: nil, invalid: true, reward: reward,
                                terminated: terminated, truncated: truncated, into: out)
                            continue
                        }
                        var next = outcome.afterstate
                        let spawn = next.spawnRandomTile(fourThreshold: limits.fourThreshold, using: &generators[index])
                        let (terminated, truncated) = episodes[index].advance(
                            to: next, legalMoves: next.legalMoves, reward: outcome.reward, highestMerge: outcome.highestMerge,
                            spawn: spawn, limits: limits)
                        // A 32 768 tile: the next merge may need a fifth bit.
                        if episodes[index].highest < 15 { packed[index] = next.rawValue } else { lanes.boards[index] = Board(next) }
                        report(
                            index, observation: next, afterstate: outcome.afterstate, spawn: spawn, invalid: false,
                            reward: outcome.reward, terminated: terminated, truncated: truncated, into: out)
                    } else if !stepGeneric(index, direction, into: out) {
                        refuse(index, into: out)
                    }
                }
                start = end
            }
        }
    }

    /// The lanes whose row lookups go out together.
    static let block = 64

    /// A legal move of a lane on the generic board, reported; false (nothing changed) when the move is illegal.
    mutating func stepGeneric(_ index: Int, _ direction: Direction, into out: VectorStepBuffers) -> Bool {
        let outcome = board(at: index).moved(direction)
        guard outcome.changed, outcome.highestMerge <= limits.largestExponent else { return false }
        var next = outcome.afterstate
        let spawn = next.spawnRandomTile(fourThreshold: limits.fourThreshold, using: &lanes.generators[index])
        let (terminated, truncated) = lanes.episodes[index].advance(
            to: next, legalMoves: next.legalMoves, reward: outcome.reward, highestMerge: outcome.highestMerge,
            spawn: spawn, limits: limits)
        lanes.boards[index] = next
        report(
            index, observation: next, afterstate: outcome.afterstate, spawn: spawn, invalid: false, reward: outcome.reward,
            terminated: terminated, truncated: truncated, into: out)
        return true
    }

    /// An action that would not change lane `index`'s generic board (``InvalidActionPolicy/reject`` was
    /// checked before the loop).
    @inline(never)
    mutating func refuse(_ index: Int, into out: VectorStepBuffers) {
        let current = board(at: index)
        let (reward, terminated, truncated) = lanes.episodes[index].refuse(limits: limits)
        report(
            index, observation: current, afterstate: current, spawn: nil, invalid: true, reward: reward,
            terminated: terminated, truncated: truncated, into: out)
    }

    /// Writes what lane `index`'s step made: its observation and info, or under same-step autoreset
    /// for an episode that ended, its final observation and info, and then the new episode's start.
    @inline(__always)
    mutating func report(
        _ index: Int, observation: some ExponentStoring, afterstate: some ExponentStoring, spawn: Spawn?, invalid: Bool,
        reward: Int64, terminated: Bool, truncated: Bool, into out: VectorStepBuffers
    ) {
        let cells = rules.cellCount
        out.rewards[index] = reward
        out.terminations[index] = terminated
        out.truncations[index] = truncated
        if (terminated || truncated) && autoresetMode == .sameStep {
            observation.storeExponents(at: out.finalObservations.map { $0 + index &* cells })
            write(lanes.episodes[index], index, afterstate: afterstate, spawn: spawn, invalid: invalid, cells: cells, to: out.finalInfo)
            out.finals?[index] = true
            restart(index, seed: nil, board: nil, into: out, reportsFlags: false)
        } else {
            observation.storeExponents(at: out.observations + index &* cells)
            write(lanes.episodes[index], index, afterstate: afterstate, spawn: spawn, invalid: invalid, cells: cells, to: out.info)
        }
    }

    /// Starts a new episode in lane `index` (with `seed`, else continuing its stream; on `board`,
    /// else with random tiles) and writes its first observation and info; `reportsFlags` also
    /// writes reward 0, `terminated` (over at once) and `truncated` false, as a reset does (a
    /// same-step restart keeps the flags of the step that ended the episode).
    mutating func restart(_ index: Int, seed: UInt64?, board given: Board?, into out: VectorStepBuffers, reportsFlags: Bool) {
        if let seed { lanes.generators[index] = Xoshiro256StarStar(seed: seed) }
        var board: Board
        if let given {
            board = given
        } else {
            board = Board(rules: rules)
            for _ in 0..<rules.initialTiles {
                board.spawnRandomTile(fourThreshold: limits.fourThreshold, using: &lanes.generators[index])
            }
        }
        if lanes.episodes[index].phase == .needsReset { lanes.unstarted -= 1 }
        let episode = Episode(starting: board, limits: limits)
        lanes.episodes[index] = episode
        if let packed = Bitboard(board), episode.highest < 15 { lanes.packed[index] = packed.rawValue }
        lanes.boards[index] = board
        let cells = rules.cellCount
        board.storeExponents(at: out.observations + index * cells)
        write(episode, index, afterstate: Board?.none, spawn: nil, invalid: false, cells: cells, to: out.info)
        if reportsFlags {
            out.rewards[index] = 0
            out.terminations[index] = episode.isOver
            out.truncations[index] = false
            out.finals?[index] = false
        }
    }

    /// Writes one lane's info into the columns that are there.
    @inline(__always)
    func write<B: ExponentStoring>(
        _ episode: Episode, _ index: Int, afterstate: B?, spawn: Spawn?, invalid: Bool, cells: Int, to info: VectorInfoBuffers
    ) {
        info.actionMasks?[index] = episode.mask.rawValue
        info.scores?[index] = episode.score
        info.maxTiles?[index] = Int64(episode.maxTile)
        info.steps?[index] = Int64(episode.steps)
        info.invalid?[index] = invalid
        info.won?[index] = episode.won
        if let afterstates = info.afterstates {
            if let afterstate {
                afterstate.storeExponents(at: afterstates + index &* cells)
            } else {
                (afterstates + index &* cells).initialize(repeating: 0, count: cells)
            }
        }
        info.spawnCells?[index] = Int8(truncatingIfNeeded: spawn?.cell ?? -1)
        info.spawnExponents?[index] = spawn?.exponent ?? 0
    }

    /// Before a reset or a step: no lane has a final result yet (only same-step autoreset makes them).
    func clearFinals(_ out: VectorStepBuffers) {
        out.finals?.initialize(repeating: false, count: count)
        out.finalObservations?.initialize(repeating: 0, count: count * rules.cellCount)
        let info = out.finalInfo
        info.actionMasks?.initialize(repeating: 0, count: count)
        info.scores?.initialize(repeating: 0, count: count)
        info.maxTiles?.initialize(repeating: 0, count: count)
        info.steps?.initialize(repeating: 0, count: count)
        info.invalid?.initialize(repeating: false, count: count)
        info.won?.initialize(repeating: false, count: count)
        info.afterstates?.initialize(repeating: 0, count: count * rules.cellCount)
        info.spawnCells?.initialize(repeating: -1, count: count)
        info.spawnExponents?.initialize(repeating: 0, count: count)
    }
}

/// A board that can write its exponents, row-major, as bytes.
protocol ExponentStoring {
    /// Writes the board's `rows × cols` exponents at `target`; nothing when `target` is `nil`.
    func storeExponents(at target: UnsafeMutablePointer<UInt8>?)
}

extension Bitboard: ExponentStoring {
    @inline(__always)
    func storeExponents(at target: UnsafeMutablePointer<UInt8>?) {
        guard let target else { return }
        let raw = UnsafeMutableRawPointer(target)
        // Byte k of a little-endian word is cell k.
        raw.storeBytes(of: Bitboard.spread(rawValue).littleEndian, as: UInt64.self)
        raw.storeBytes(of: Bitboard.spread(rawValue >> 32).littleEndian, toByteOffset: 8, as: UInt64.self)
    }
}

extension Board: ExponentStoring {
    @inline(__always)
    func storeExponents(at target: UnsafeMutablePointer<UInt8>?) {
        guard let target else { return }
        let count = cellCount
        withCells { UnsafeMutableRawPointer(target).copyMemory(from: $0, byteCount: count) }
    }
}
