import CPackedLanes
import Glibc
import Testing

@testable import Game2048
@testable import GymCore

/// The vector step's two producers of a block's board work, the AVX-512 kernel (CPackedLanes) and the Swift stages,
/// held to the same columns and the same generators on blocks of random lanes; the kernel's refusal of a draw that
/// must be drawn again; and the generator layout the kernel reads.
struct PackedLanesTests {
    /// A block of lanes in two environments, one moving them together and one in stages, with the same boards,
    /// episodes and generators.
    struct Pair {
        var together: VectorEnvironment
        var stages: VectorEnvironment
        let count: Int

        init(rules: Rules, count: Int) {
            together = VectorEnvironment(rules: rules, count: count)
            stages = VectorEnvironment(rules: rules, count: count)
            together.movesLanesTogether = true
            stages.movesLanesTogether = false
            self.count = count
        }

        func set(lane: Int, board: UInt64, episode: Episode, generator: Xoshiro256StarStar) {
            for env in [together, stages] {
                env.lanes.packed[lane] = board
                env.lanes.episodes[lane] = episode
                env.lanes.generators[lane] = generator
            }
        }

        /// Both environments' columns for `actions`, and whether they and the generators agree.
        func compare(_ actions: [UInt8], _ comment: Comment) {
            var columns: [[UInt64]] = []
            for env in [together, stages] {
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: PackedMoves.words) { scratch in
                    scratch.initialize(repeating: 0xDEAD_BEEF)
                    let moves = PackedMoves(scratch.baseAddress!)
                    actions.withUnsafeBufferPointer {
                        env.lanes.movePacked(
                            0..<count, actions: $0.baseAddress!, fourThreshold: env.limits.fourThreshold, together: env.movesLanesTogether,
                            into: moves)
                    }
                    columns.append(
                        (0..<count).flatMap { [moves.after[$0], moves.next[$0], moves.rewards[$0], moves.facts[$0], UInt64(moves.takes[$0])] })
                }
            }
            #expect(columns[0] == columns[1], comment)
            #expect((0..<count).allSatisfy { together.lanes.generators[$0] == stages.lanes.generators[$0] }, comment)
        }
    }

    /// A running episode on a board whose largest exponent is `highest`, or one that takes no packed move.
    static func episode(takes: Bool, highest: UInt8, rng: inout Xoshiro256StarStar) -> Episode {
        Episode(
            mask: [], highest: takes ? highest : 15, won: false, phase: takes ? .running : [.over, .needsReset, .running][rng.int(in: 0...2)],
            steps: 0, score: 0)
    }

    @Test(.enabled(if: PackedMoves.kernelAvailable, "the processor has no AVX-512"), arguments: [0.0, 0.1, 0.5, 1.0])
    func theKernelEqualsTheStagesOnRandomBlocks(fourProbability: Double) throws {
        let rules = try Rules(spawnFourProbability: fourProbability)
        var rng = Xoshiro256StarStar(seed: UInt64(fourProbability * 10) &+ 17)
        var spawned = 0, unchanged = 0
        for round in 0..<300 {
            // Every tail length of a group of eight, and whole blocks.
            let count = round < 64 ? round + 1 : rng.int(in: 1...PackedMoves.block)
            let pair = Pair(rules: rules, count: count)
            var actions: [UInt8] = []
            for lane in 0..<count {
                let takes = rng.chance(0.8)
                // Sparse to full boards, up to 2^14 where the lane takes the packed move (two 2^14 merge into 2^15).
                let board = randomBoard(
                    rows: 4, cols: 4, exponents: 1...(takes ? 14 : 15), emptyShare: [0.0, 0.1, 0.4, 0.8][rng.int(in: 0...3)], using: &rng)
                let packed = Bitboard(board)!.rawValue
                var generator = Xoshiro256StarStar(seed: rng.next())
                if rng.chance(0.1) { generator.s1 = rng.next() }
                pair.set(lane: lane, board: packed, episode: Self.episode(takes: takes, highest: board.maxExponent, rng: &rng), generator: generator)
                let action = UInt8(rng.int(in: 0...3))
                actions.append(action)
                let moved = Bitboard(rawValue: packed).moved(Direction(unchecked: action))
                if takes && moved.changed { spawned += 1 } else { unchanged += 1 }
            }
            pair.compare(actions, "round \(round), \(count) lanes")
        }
        #expect(spawned > 5_000 && unchanged > 1_000)
    }

    /// The kernel's columns against a lane-by-lane statement of the rules (the move, then a spawn by
    /// `spawnRandomTile`, then the legal moves), not against the stages alone.
    @Test(.enabled(if: PackedMoves.kernelAvailable, "the processor has no AVX-512"))
    func theKernelEqualsTheBitboardLaneByLane() {
        var rng = Xoshiro256StarStar(seed: 5)
        let table = Bitboard.rowTable, threshold = bernoulliThreshold(probability: 0.1)
        for round in 0..<200 {
            let count = rng.int(in: 1...PackedMoves.block)
            let boards = (0..<count).map { _ in Bitboard(randomBoard(rows: 4, cols: 4, exponents: 1...13, emptyShare: 0.4, using: &rng))!.rawValue }
            let actions = (0..<count).map { _ in UInt8(rng.int(in: 0...3)) }
            let takes = (0..<count).map { _ in UInt8(rng.chance(0.7) ? 1 : 0) }
            var generators = (0..<count).map { _ in Xoshiro256StarStar(seed: rng.next()) }
            var expected = generators
            var after = [UInt64](repeating: 0, count: count), next = after, rewards = after, facts = after
            let undone = generators.withUnsafeMutableBytes { words in
                g2048_packed_lanes_step(
                    count, boards, actions, takes, table.base, threshold, words.baseAddress!.assumingMemoryBound(to: UInt64.self), &after, &next,
                    &rewards, &facts)
            }
            #expect(undone == 0)
            for lane in 0..<count {
                let outcome = Bitboard(rawValue: boards[lane]).moved(Direction(unchecked: actions[lane]))
                var board = outcome.afterstate
                var fact = PackedMoves.Facts(highestMerge: outcome.highestMerge, changed: outcome.changed)
                if takes[lane] != 0 && outcome.changed {
                    let spawn = board.spawnRandomTile(fourThreshold: threshold, using: &expected[lane])!
                    fact.record(spawn: spawn, legalMoves: board.legalMoves)
                }
                let comment: Comment = "round \(round), lane \(lane)"
                #expect(after[lane] == outcome.afterstate.rawValue && next[lane] == board.rawValue, comment)
                #expect(rewards[lane] == UInt64(outcome.reward) && facts[lane] == fact.rawValue, comment)
                #expect(generators[lane] == expected[lane], comment)
            }
        }
    }

    /// A generator whose cell draw is 0 (its second output: `s1 ^ s0 ^ s2` is 0): 0 · n leaves a low word below n,
    /// where the unbiased draw may have to draw again. The kernel leaves that lane's group to the stages, which
    /// redraw when n is not a power of two; the other groups stay the kernel's.
    @Test(.enabled(if: PackedMoves.kernelAvailable, "the processor has no AVX-512"), arguments: [3, 4])
    func aDrawThatMayBeDrawnAgainGoesTheScalarWay(empties: Int) throws {
        var rng = Xoshiro256StarStar(seed: 8)
        let count = 20, lane = 11
        let pair = Pair(rules: Rules(), count: count)
        var actions: [UInt8] = []
        for index in 0..<count {
            // Left on a board whose first row slides: `empties` empty cells after the move.
            var board = try Board(rows: 4, cols: 4, values: [0, 2, 4, 8] + (0..<12).map { 1 << (($0 % 11) + 1) })
            for cell in 4..<(4 + empties - 1) { board[cell] = 0 }
            var generator = Xoshiro256StarStar(seed: rng.next())
            if index == lane { generator.s1 = generator.s0 ^ generator.s2 }
            let episode = Self.episode(takes: true, highest: board.maxExponent, rng: &rng)
            pair.set(lane: index, board: Bitboard(board)!.rawValue, episode: episode, generator: generator)
            actions.append(UInt8(Direction.left.rawValue))
        }
        var copy = pair.together.lanes.generators[lane]
        _ = copy.next()
        #expect(copy.next() == 0)
        let undone = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * count) { out in
            out.initialize(repeating: 7)
            let base = out.baseAddress!
            let bits = pair.together.lanes.generators.withMemoryRebound(to: UInt64.self, capacity: 4 * count) { generators in
                g2048_packed_lanes_step(
                    count, pair.together.lanes.packed, actions, [UInt8](repeating: 1, count: count), Bitboard.rowTable.base,
                    pair.together.limits.fourThreshold, generators, base, base + count, base + 2 * count, base + 3 * count)
            }
            // Lanes 8–15 are untouched; the other groups were written.
            #expect((8..<16).allSatisfy { base[$0] == 7 } && base[0] != 7 && base[16] != 7)
            return bits
        }
        #expect(undone == 0b010)
        // The kernel's call above advanced the other groups' generators: start again from the same lanes.
        let fresh = Pair(rules: Rules(), count: count)
        for index in 0..<count {
            fresh.set(
                lane: index, board: pair.stages.lanes.packed[index], episode: pair.stages.lanes.episodes[index],
                generator: pair.stages.lanes.generators[index])
        }
        fresh.compare(actions, "\(empties) empty cells")
        // A redraw (3 empty cells) draws a third time; 4 do not.
        var unmoved = pair.stages.lanes.generators[lane]
        for _ in 0..<(empties == 3 ? 3 : 2) { _ = unmoved.next() }
        #expect(fresh.stages.lanes.generators[lane] == unmoved)
    }

    /// The kernel reads lane i's generator as the four words at `4 i`: the Swift layout it relies on.
    @Test func aGeneratorIsFourWordsInOrder() {
        #expect(MemoryLayout<Xoshiro256StarStar>.size == 32 && MemoryLayout<Xoshiro256StarStar>.stride == 32)
        #expect(MemoryLayout<Xoshiro256StarStar>.offset(of: \.s0) == 0 && MemoryLayout<Xoshiro256StarStar>.offset(of: \.s1) == 8)
        #expect(MemoryLayout<Xoshiro256StarStar>.offset(of: \.s2) == 16 && MemoryLayout<Xoshiro256StarStar>.offset(of: \.s3) == 24)
    }

    /// Where the processor has the kernel, a new vector environment uses it.
    @Test func theKernelIsChosenWhereThereIsOne() {
        #expect(VectorEnvironment(count: 1).movesLanesTogether == (g2048_packed_lanes_available() != 0))
        #if arch(x86_64)
        #expect(PackedMoves.kernelAvailable == (cpuHasAVX512() ?? PackedMoves.kernelAvailable))
        #endif
    }

    /// Whether /proc/cpuinfo lists the four AVX-512 subsets the kernel needs (nil where it cannot be read).
    func cpuHasAVX512() -> Bool? {
        guard let file = fopen("/proc/cpuinfo", "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while case let read = fread(&chunk, 1, chunk.count, file), read > 0 { bytes += chunk[..<read] }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let flags = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
        let set = Set(flags.split(separator: " ").map(String.init))
        return ["avx512f", "avx512dq", "avx512bw", "avx512vl"].allSatisfy(set.contains)
    }
}
