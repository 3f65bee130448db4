// The step loop of a vector environment: each lane's transition, written into the result
// buffers. The transition itself is `Episode`'s (shared with `Environment`); what is here is
// where the boards live (a packed `UInt64` column on 4×4, a `Board` column otherwise) and what
// each step writes.
//
// On 4×4 a block of lanes first goes through the board work of its step (the move, the spawn
// and the new board's legal moves) together, into columns of their own: eight lanes to an
// AVX-512 register where the processor has them, else Swift's stages (VectorLanes+PackedMoves.swift).
// Then each lane's episode takes its result.

extension VectorEnvironment {
    /// Steps every lane with its action (checked: `0…3`, and the checks of ``check(_:)`` passed).
    mutating func run(_ actions: UnsafePointer<UInt8>, into out: VectorStepBuffers) {
        clearFinals(out)
        let episodes = lanes.episodes, packed = lanes.packed
        let packs = rules.rows == 4 && rules.cols == 4
        let limits = self.limits
        let recordsSteps = out.info.recordsStepColumns
        let cells = rules.cellCount
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: PackedMoves.words) { scratch in
            let moves = PackedMoves(scratch.baseAddress.unsafelyUnwrapped)
            var start = 0
            while start < count {
                let end = min(start + VectorEnvironment.block, count)
                if packs {
                    lanes.movePacked(
                        start..<end, actions: actions, fourThreshold: limits.fourThreshold, together: movesLanesTogether, into: moves)
                }
                for index in start..<end {
                    guard episodes[index].phase == .running else {
                        // Ended at the last step or at its reset: the action is ignored, a new episode starts.
                        restart(index, seed: nil, board: nil, into: out, reportsFlags: true)
                        continue
                    }
                    let lane = index &- start
                    if packs && moves.takes[lane] != 0 {
                        let facts = PackedMoves.Facts(rawValue: moves.facts[lane])
                        guard facts.changed else {
                            // Uniformly random agents make many: kept on the packed board.
                            let board = Bitboard(rawValue: packed[index])
                            let (reward, terminated, truncated) = episodes[index].refuse(limits: limits)
                            report(
                                index, observation: board, afterstate: board, spawn: nil, invalid: true, reward: reward,
                                terminated: terminated, truncated: truncated, cells: cells, into: out, recordsSteps: recordsSteps)
                            continue
                        }
                        let next = Bitboard(rawValue: moves.next[lane]), afterstate = Bitboard(rawValue: moves.after[lane])
                        let reward = Int64(truncatingIfNeeded: moves.rewards[lane]), spawn = facts.spawn
                        let (terminated, truncated) = episodes[index].advance(
                            to: next, legalMoves: facts.legalMoves, reward: reward, highestMerge: facts.highestMerge,
                            spawn: spawn, limits: limits)
                        // A 32 768 tile: the next merge may need a fifth bit.
                        if episodes[index].highest < 15 { packed[index] = next.rawValue } else { lanes.boards[index] = Board(next) }
                        report(
                            index, observation: next, afterstate: afterstate, spawn: spawn, invalid: false,
                            reward: reward, terminated: terminated, truncated: truncated, cells: cells, into: out,
                            recordsSteps: recordsSteps)
                    } else if !stepGeneric(index, Direction(unchecked: actions[index]), into: out) {
                        refuse(index, into: out)
                    }
                }
                // The columns that follow from the episode counters, a column at a time: one test of
                // each column a block instead of one a lane (a learner asks for two or three of them).
                writeEpisodeColumns(start..<end, to: out.info)
                start = end
            }
        }
    }

    /// The lanes that go through the board work together.
    static let block = PackedMoves.block

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
            terminated: terminated, truncated: truncated, cells: rules.cellCount, into: out, recordsSteps: out.info.recordsStepColumns)
        return true
    }

    /// An action that would not change lane `index`'s generic board (`InvalidActionPolicy/reject` was
    /// checked before the loop).
    @inline(never)
    mutating func refuse(_ index: Int, into out: VectorStepBuffers) {
        let current = board(at: index)
        let (reward, terminated, truncated) = lanes.episodes[index].refuse(limits: limits)
        report(
            index, observation: current, afterstate: current, spawn: nil, invalid: true, reward: reward,
            terminated: terminated, truncated: truncated, cells: rules.cellCount, into: out, recordsSteps: out.info.recordsStepColumns)
    }

    /// Writes what lane `index`'s step made: its observation and info, or under same-step autoreset
    /// for an episode that ended, its final observation and info, and then the new episode's start.
    @inline(__always)
    mutating func report(
        _ index: Int, observation: some ExponentStoring, afterstate: some ExponentStoring, spawn: Spawn?, invalid: Bool,
        reward: Int64, terminated: Bool, truncated: Bool, cells: Int, into out: VectorStepBuffers, recordsSteps: Bool
    ) {
        out.rewards[index] = reward
        out.terminations[index] = terminated
        out.truncations[index] = truncated
        if (terminated || truncated) && autoresetMode == .sameStep {
            observation.storeExponents(at: out.finalObservations.map { $0 + index &* cells })
            write(index, afterstate: afterstate, spawn: spawn, invalid: invalid, cells: cells, to: out.finalInfo)
            out.finals?[index] = true
            restart(index, seed: nil, board: nil, into: out, reportsFlags: false)
        } else {
            observation.storeExponents(at: out.observations + index &* cells)
            // The episode's columns are written after the block (`writeEpisodeColumns`).
            if recordsSteps {
                writeStepColumns(index, afterstate: afterstate, spawn: spawn, invalid: invalid, cells: cells, to: out.info)
            }
        }
    }

    /// Starts a new episode in lane `index` (with `seed`, else continuing its stream; on `board`,
    /// else with random tiles) and writes its first observation and info; `reportsFlags` also
    /// writes reward 0, `terminated` (over at once) and `truncated` false, as a reset does (a
    /// same-step restart keeps the flags of the step that ended the episode).
    mutating func restart(_ index: Int, seed: UInt64?, board given: Board?, into out: VectorStepBuffers, reportsFlags: Bool) {
        if let seed { lanes.generators[index] = Xoshiro256StarStar(seed: seed) }
        if lanes.episodes[index].phase == .needsReset { lanes.unstarted -= 1 }
        let episode: Episode
        let cells = rules.cellCount
        if given == nil && rules.rows == 4 && rules.cols == 4 {
            // A new 4×4 game (every 120 steps or so under a random agent) starts on the packed board,
            // which draws its tiles exactly as `Board` does, at a tenth of the cost.
            var board = Bitboard(rawValue: 0)
            spawnInitialTiles(on: &board, lane: index)
            episode = Episode(starting: board, limits: limits)
            lanes.packed[index] = board.rawValue
            board.storeExponents(at: out.observations + index &* cells)
        } else {
            var board: Board
            if let given {
                board = given
            } else {
                board = Board(rules: rules)
                spawnInitialTiles(on: &board, lane: index)
            }
            episode = Episode(starting: board, limits: limits)
            if let packed = Bitboard(board), episode.highest < 15 { lanes.packed[index] = packed.rawValue }
            lanes.boards[index] = board
            board.storeExponents(at: out.observations + index &* cells)
        }
        lanes.episodes[index] = episode
        write(index, afterstate: Board?.none, spawn: nil, invalid: false, cells: cells, to: out.info)
        if reportsFlags {
            out.rewards[index] = 0
            out.terminations[index] = episode.isOver
            out.truncations[index] = false
            out.finals?[index] = false
        }
    }

    /// Places a new episode's starting tiles on `board`, drawn from lane `index`'s generator.
    func spawnInitialTiles(on board: inout some GameBoard, lane index: Int) {
        limits.placeStartingTiles(on: &board, using: &lanes.generators[index])
    }

    /// Writes lane `index`'s info (its episode as it is now, and what its step did) into the columns that are there.
    @inline(__always)
    func write<B: ExponentStoring>(
        _ index: Int, afterstate: B?, spawn: Spawn?, invalid: Bool, cells: Int, to info: VectorInfoBuffers
    ) {
        writeEpisodeColumns(index..<(index &+ 1), to: info)
        writeStepColumns(index, afterstate: afterstate, spawn: spawn, invalid: invalid, cells: cells, to: info)
    }

    /// Writes the episode counters of lanes `range` into the columns that are there.
    @inline(__always)
    func writeEpisodeColumns(_ range: Range<Int>, to info: VectorInfoBuffers) {
        let episodes = lanes.episodes
        if let masks = info.actionMasks { for index in range { masks[index] = episodes[index].mask.rawValue } }
        if let scores = info.scores { for index in range { scores[index] = episodes[index].score } }
        if let maxTiles = info.maxTiles { for index in range { maxTiles[index] = Int64(episodes[index].maxTile) } }
        if let steps = info.steps { for index in range { steps[index] = Int64(episodes[index].steps) } }
        if let won = info.won { for index in range { won[index] = episodes[index].won } }
        if let legal = info.legalActions {
            for index in range { episodes[index].mask.storeBytes(at: legal + index &* 4) }
        }
    }

    /// Writes what one lane's step did (illegal or not, its afterstate, its spawn) into the columns that are there.
    @inline(__always)
    func writeStepColumns<B: ExponentStoring>(
        _ index: Int, afterstate: B?, spawn: Spawn?, invalid: Bool, cells: Int, to info: VectorInfoBuffers
    ) {
        info.invalid?[index] = invalid
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
    func clearFinals(_ out: VectorStepBuffers) { out.clearFinals(count: count, cells: rules.cellCount) }
}

extension Episode {
    /// Whether a running 4×4 lane's move goes the packed way: its largest tile is below 2^15.
    @inline(__always)
    var takesPackedMove: Bool { phase == .running && highest < 15 }
}

extension VectorInfoBuffers {
    /// Whether any column describes the step itself rather than the episode (invalid, afterstate, spawn).
    @inline(__always)
    var recordsStepColumns: Bool { invalid != nil || afterstates != nil || spawnCells != nil || spawnExponents != nil }
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
        UnsafeMutableRawPointer(target).storeBytes(of: exponentBytes, as: SIMD16<UInt8>.self)
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
