#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Game2048
@testable import Game2048Network
@testable import Game2048Training
import GymSystem
import TestSupport

/// Seeded mutations of small weights files, each loaded: the loader must never
/// crash, never allocate much, and either return a usable network or a precise
/// error naming the file.
///
/// About 5 000 files by default (a few seconds in a debug build); set
/// `G2048_FUZZ_FILES` to a number of random mutations per kind for a longer run,
/// and `G2048_FUZZ_SEED` to explore other files.
struct WeightsFileMutationTests {
    static let randomMutations = SystemEnvironment.integer("G2048_FUZZ_FILES") ?? 500
    static let seed = UInt64(SystemEnvironment.integer("G2048_FUZZ_SEED") ?? 2048)

    /// Loads `bytes` from `path` and checks the outcome; returns whether it loaded.
    @discardableResult
    static func check(_ bytes: [UInt8], at path: String, _ what: @autoclosure () -> String) -> Bool {
        writeBytes(bytes, to: path)
        do {
            let (network, metadata) = try WeightsFile.load(from: path)
            // A load returns only what the rest of the code can use.
            #expect(NetworkLayout(network).problem() == nil, "\(what())")
            #expect(metadata.problem() == nil, "\(what())")
            #expect(network.weights.count * 4 < bytes.count, "\(what()): \(network.weights.count) weights from \(bytes.count) bytes")
            let unusable = network.weights.withBytes { WeightsFile.firstUnusableWeight(in: $0) }
            #expect(unusable == nil, "\(what())")
            // And the network works: reading a board with every exponent up to the largest.
            if var board = try? Board(rows: network.rows, cols: network.cols) {
                for cell in 0..<board.cellCount { board[cell] = UInt8(cell % (Int(Rules.maxExponent) + 1)) }
                board[0] = Rules.maxExponent
                #expect(network.value(of: board).isFinite, "\(what())")
            }
            return true
        } catch {
            let text = error.description
            #expect(text.contains(path) && !text.contains("\n") && text.count < 400, "\(what()): \(text)")
            return false
        }
    }

    /// Valid files to mutate: the tiny 2×2 network, a 2-pattern rectangular one and the default 2×2
    /// network with its cells in another order, which loads reindexed (version 1), a three-stage OTD+TC
    /// network (version 2), that network with a downgrading tile (version 3), one with an afterstate table (version 5)
    /// and a staged one whose later stages read downgraded boards (version 6).
    static func baseFiles(in directory: TemporaryDirectory) throws -> [[UInt8]] {
        let shapes: [(rows: Int, cols: Int, patterns: [[Int]]?, valueCount: Int?)] = [
            (2, 2, [[0, 1]], 4),
            (2, 3, [[0, 1, 2], [3, 4]], 5),
            (2, 2, [[1, 0, 2, 3]], TuplePattern.defaults(rows: 2, cols: 2).valueCount),
        ]
        var files = try shapes.enumerated().map { index, shape in
            let path = directory.file("base-\(index).bin")
            try WeightsFile.save(WeightsFileTests.makeNetwork(shape, seed: UInt64(index)), metadata: WeightsFileTests.metadata, to: path)
            return try #require(readBytes(path))
        }
        // The third takes the reindexing path of a load.
        #expect(try WeightsFile.load(from: directory.file("base-2.bin")).network.patterns == TuplePattern.defaults(rows: 2, cols: 2).patterns)
        let staged = WeightsFileTests.makeNetwork((2, 2, [[0, 1]], 4), seed: 9, stages: [3, 4], promoted: [true, false])
        let path = directory.file("base-staged.bin")
        try WeightsFile.save(staged, metadata: WeightsFileTests.coherentMetadata, to: path)
        files.append(try #require(readBytes(path)))
        #expect(files.last?[8] == 2)
        var withTile = WeightsFileTests.coherentMetadata
        withTile.downgradeLimit = 13
        try WeightsFile.save(staged, metadata: withTile, to: path)
        files.append(try #require(readBytes(path)))
        #expect(files.last?[8] == 3)
        // The tiny 2×2 network with a table of a few afterstates (version 5).
        let tabled = WeightsFileTests.makeNetwork((2, 2, [[0, 1]], 4), seed: 11)
        tabled.attachAfterstateTable()
        AfterstateLearner(network: tabled, rules: try Rules(rows: 2, cols: 2)).run(TrainingPlan(games: 3, seed: 1), gamesBefore: 0) { _, _ in true }
        try WeightsFile.save(tabled, metadata: WeightsFileTests.metadata, to: path)
        files.append(try #require(readBytes(path)))
        #expect(files.last?[8] == 5)
        // A staged network whose later stages read downgraded boards (version 6).
        let downgraded = NTupleNetwork(
            rows: 2, cols: 2, patterns: [TuplePattern(cells: [0, 1])], valueCount: 4, stageThresholds: [3], stageBoards: .downgraded)
        NTupleNetworkTests.randomize(downgraded, seed: 12)
        try WeightsFile.save(downgraded, metadata: WeightsFileTests.coherentMetadata, to: path)
        files.append(try #require(readBytes(path)))
        #expect(files.last?[8] == 6)
        return files
    }

    @Test func truncationsAndBitFlipsNeverCrash() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("m.bin")
        var rng = Xoshiro256StarStar(seed: Self.seed)
        // Counted for this test's own loads: the other tests map their networks beside it.
        let ledger = AlignedMemory.Ledger()
        try AlignedMemory.$ledger.withValue(ledger) {
            for (index, base) in try Self.baseFiles(in: directory).enumerated() {
                #expect(Self.check(base, at: path, "base \(index)"))
                // Every truncation, resealed or not: the interesting offsets are all of them.
                for length in 0..<base.count {
                    Self.check(Array(base.prefix(length)), at: path, "base \(index) cut at \(length)")
                    if length >= 8 { Self.check(WeightsFileTests.resealed(Array(base.prefix(length))), at: path, "base \(index) cut at \(length), resealed") }
                }
                // Every bit of the preamble and header; random ones elsewhere.
                let headerEnd = WeightsFile.preambleSize + (Int(base[12]) | Int(base[13]) << 8)
                for byte in 0..<headerEnd {
                    for bit in 0..<8 {
                        var flipped = base
                        flipped[byte] ^= 1 << bit
                        #expect(!Self.check(flipped, at: path, "base \(index) byte \(byte) bit \(bit)"))
                        Self.check(WeightsFileTests.resealed(flipped), at: path, "base \(index) byte \(byte) bit \(bit), resealed")
                    }
                }
                for round in 0..<Self.randomMutations {
                    var damaged = base
                    for _ in 0...rng.uniform(below: 4) {
                        damaged[rng.uniform(below: damaged.count)] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                    }
                    if rng.uniform(below: 2) == 0 { damaged = WeightsFileTests.resealed(damaged) }
                    if rng.uniform(below: 4) == 0 { damaged += (0..<rng.uniform(below: 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
                    Self.check(damaged, at: path, "base \(index) random round \(round)")
                }
            }
        }
        // Loads that succeed map their networks: the ledger saw them, so the bound means something.
        #expect(ledger.peak > 0)
        #expect(ledger.peak < 64 << 20, "peak \(ledger.peak)")
    }

    /// A value of `T` that is likely to find an edge: 0, 1, the extremes, powers of two, or random.
    static func edgy<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ rng: inout Xoshiro256StarStar) -> T {
        let choices: [T] = [0, 1, 2, 3, 4, 8, 16, 17, 255, 256, 257, T.max, T.max - 1, T.max / 2, T.max / 2 + 1]
        return rng.uniform(below: 3) == 0 ? T(truncatingIfNeeded: rng.next()) : choices[rng.uniform(below: choices.count)]
    }

    /// A Float64 bit pattern likely to find an edge: NaN, infinities, huge, negative, subnormal, or ordinary.
    static func edgyDouble(_ rng: inout Xoshiro256StarStar) -> UInt64 {
        let choices: [Double] = [.nan, .infinity, -.infinity, 1e300, -1, -0.0, 0, 0.1, 1, 1.5, 1e12, 1e12 + 1, .leastNonzeroMagnitude]
        return rng.uniform(below: 4) == 0 ? rng.next() : choices[rng.uniform(below: choices.count)].bitPattern
    }

    @Test func forgedHeadersWithValidChecksumsNeverCrash() {
        let directory = TemporaryDirectory()
        let path = directory.file("f.bin")
        var rng = Xoshiro256StarStar(seed: Self.seed ^ 0xF0F0)
        // Counted for this test's own loads: the other tests map their networks beside it.
        let ledger = AlignedMemory.Ledger()
        AlignedMemory.$ledger.withValue(ledger) {
            var loaded = 0
            let rounds = 2 * Self.randomMutations + 400
            for round in 0..<rounds {
                // Mostly plausible shapes, so that many files get as far as the weights.
                let plausible = rng.uniform(below: 4) != 0
                let rows = plausible ? UInt8(2 + rng.uniform(below: 7)) : Self.edgy(UInt8.self, &rng)
                let cols = plausible ? UInt8(2 + rng.uniform(below: 7)) : Self.edgy(UInt8.self, &rng)
                let valueCount = plausible ? UInt16(2 + rng.uniform(below: 16)) : Self.edgy(UInt16.self, &rng)
                let symmetries: UInt8 = plausible ? (rows == cols ? 8 : 4) : Self.edgy(UInt8.self, &rng)
                let patternCount = plausible ? 1 + rng.uniform(below: 3) : [0, 1, 2, 300, 65535][rng.uniform(below: 5)]
                let cellCount = Int(rows) * Int(cols)
                var header = ByteWriter()
                header.append(rows)
                header.append(cols)
                header.append(valueCount)
                header.append(plausible ? 1 : Self.edgy(UInt8.self, &rng))
                header.append(symmetries)
                header.append(UInt16(truncatingIfNeeded: patternCount))
                var weightCount = 0
                for _ in 0..<patternCount {
                    // Long patterns only in short lists, to keep the 65 535-pattern headers quick to build.
                    let length = plausible ? 1 + rng.uniform(below: 3) : patternCount > 2 ? rng.uniform(below: 2) : rng.uniform(below: 70)
                    header.append(UInt8(truncatingIfNeeded: length))
                    var tableSize = 1
                    for _ in 0..<length {
                        let inRange = cellCount > 0 && (plausible || rng.uniform(below: 2) == 0)
                        header.append(inRange ? UInt8(truncatingIfNeeded: rng.uniform(below: cellCount)) : Self.edgy(UInt8.self, &rng))
                        tableSize = min(tableSize * max(Int(valueCount), 1), 1 << 40)
                    }
                    weightCount = min(weightCount + tableSize, 1 << 40)
                }
                header.append(plausible ? UInt64(rng.uniform(below: 1 << 20)) : Self.edgy(UInt64.self, &rng))  // games
                header.append(plausible ? UInt64(rng.uniform(below: 1 << 30)) : Self.edgy(UInt64.self, &rng))  // moves
                header.append(rng.next())  // seed
                header.append(plausible ? (0.1).bitPattern : Self.edgyDouble(&rng))  // alpha
                header.append(plausible ? (100.0).bitPattern : Self.edgyDouble(&rng))  // initial value
                header.append(plausible ? (12.5).bitPattern : Self.edgyDouble(&rng))  // seconds
                header.append(plausible ? UInt32(Rules.version) : Self.edgy(UInt32.self, &rng))  // rules version
                header.append(plausible ? (0.1).bitPattern : Self.edgyDouble(&rng))  // spawn 4
                // A third each of versions 1, 2 (stages and a learning method after the metadata) and 3 (then
                // the search's downgrading tile).
                let version = UInt32(1 + rng.uniform(below: 3))
                if version >= 2 {
                    let stageCount = plausible ? 1 + rng.uniform(below: 3) : Int(Self.edgy(UInt8.self, &rng) % 12)
                    header.append(UInt8(truncatingIfNeeded: stageCount))
                    var threshold = UInt8(1)
                    for _ in 1..<max(stageCount, 1) {
                        threshold = plausible ? threshold + UInt8(1 + rng.uniform(below: 2)) : Self.edgy(UInt8.self, &rng)
                        header.append(threshold)
                    }
                    for _ in 1..<max(stageCount, 1) { header.append(plausible ? UInt8(rng.uniform(below: 2)) : Self.edgy(UInt8.self, &rng)) }
                    let method = plausible ? UInt8(rng.uniform(below: 3)) : Self.edgy(UInt8.self, &rng)
                    header.append(method)
                    header.append(plausible ? (method == 2 ? UInt8(rng.uniform(below: 2)) : 0) : Self.edgy(UInt8.self, &rng))
                    header.append(plausible ? (1.0).bitPattern : Self.edgyDouble(&rng))  // TC rate
                    header.append(plausible ? (0.5).bitPattern : Self.edgyDouble(&rng))  // TC from
                    weightCount = min(weightCount * max(stageCount, 1), 1 << 40)
                }
                if version == 3 { header.append(plausible ? UInt8(rng.uniform(below: 16)) : Self.edgy(UInt8.self, &rng)) }
                var file = ByteWriter()
                file.append(WeightsFile.magic)
                file.append(version)
                let honestLength = UInt32(truncatingIfNeeded: header.bytes.count)
                file.append(rng.uniform(below: 10) == 0 ? honestLength &+ UInt32(truncatingIfNeeded: rng.uniform(below: 5)) &- 2 : honestLength)
                file.append(header.bytes)
                // The weights the header implies when few, with the odd unusable one; else a random body.
                let count = weightCount <= 4096 && rng.uniform(below: 8) != 0 ? weightCount : rng.uniform(below: 300)
                let specials: [Float] = [.nan, .infinity, -.infinity, 2e30, -1e31, .greatestFiniteMagnitude]
                for _ in 0..<count {
                    let weight =
                        rng.uniform(below: 200) == 0
                        ? specials[rng.uniform(below: specials.count)] : Float(Int32(truncatingIfNeeded: rng.next() >> 44)) / 64
                    file.append(weight.bitPattern)
                }
                var trailer = ByteWriter()
                trailer.append(WeightsFile.checksum(of: file.bytes))
                if Self.check(file.bytes + trailer.bytes, at: path, "forged round \(round)") { loaded += 1 }
            }
            // The generator must reach the end of the loader too, or the test proves little.
            #expect(loaded > rounds / 20, "only \(loaded) of \(rounds) forged files loaded")
        }
        // Loads that succeed map their networks: the ledger saw them, so the bound means something.
        #expect(ledger.peak > 0)
        #expect(ledger.peak < 64 << 20, "peak \(ledger.peak)")
    }
}

/// Reads the process environment, for test knobs.
enum SystemEnvironment {
    /// The value of `name` as an integer, if it is set to one.
    static func integer(_ name: String) -> Int? {
        getenv(name).flatMap { Int(String(cString: $0)) }
    }
}
