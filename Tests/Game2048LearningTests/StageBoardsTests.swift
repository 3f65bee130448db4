import Game2048
import TestSupport
import Testing

@testable import Game2048Network
@testable import Game2048Training

/// `StageBoards.downgraded`: a later stage reads its own tables at the features of the downgraded board, on every
/// kind of network reading, in training and in the file.
struct StageBoardsTests {
    /// A network of `kind` with stages at 16 384 and 32 768: the default 4×6 (``DefaultTupleValue``), custom 4×4
    /// patterns (``PackedRunValue``), or the same with 15 values a cell, which reads cells (``CellTupleValue``).
    static func network(_ kind: String, boards: StageBoards, stages: [UInt8] = [14, 15]) -> NTupleNetwork {
        let custom = [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [1, 5, 9, 6]), TuplePattern(cells: [7, 6, 3, 4, 5])]
        return switch kind {
        case "default": NTupleNetwork(rows: 4, cols: 4, stageThresholds: stages, stageBoards: boards)
        case "runs": NTupleNetwork(rows: 4, cols: 4, patterns: custom, stageThresholds: stages, stageBoards: boards)
        default: NTupleNetwork(rows: 4, cols: 4, patterns: custom, valueCount: 15, stageThresholds: stages, stageBoards: boards)
        }
    }

    static let kinds = ["default", "runs", "cells"]

    static func board(_ exponents: [UInt8]) throws -> Board {
        try Board(rows: 4, cols: 4, exponents: exponents + Array(repeating: 0, count: 16 - exponents.count))
    }

    /// Every index `board` reads in `network`, stage offset included, by the packed path when there is one.
    static func readIndices(_ network: NTupleNetwork, _ board: Board) -> [Int] {
        var indices: [Int] = []
        if let packed = network.packed(board) {
            network.forEachFeature(of: packed) { indices.append($0) }
        } else {
            network.forEachFeature(of: board) { indices.append($0) }
        }
        return indices.sorted()
    }

    /// Boards by hand: each with the board its features are read from, and its stage.
    static let cases: [(board: [UInt8], read: [UInt8], stage: Int)] = [
        // 16384 8192 4096 without 2048: the three halve, into the first stage's shape; stage 1's tables.
        ([14, 13, 12, 1, 2, 3, 1], [13, 12, 11, 1, 2, 3, 1], 1),
        // 32768 16384 4096 2 4 8 2: 8192 missing, then 2048: halved twice; stage 2's tables.
        ([15, 14, 12, 1, 2, 3, 1], [13, 12, 11, 1, 2, 3, 1], 2),
        // No gap below 16384 (every tile from 2 up): nothing to close, read as it is.
        ([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1], [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1], 1),
        // The first stage reads its boards as they are, gaps and all.
        ([13, 11, 1, 2], [13, 11, 1, 2], 0),
    ]

    @Test(arguments: kinds)
    func aLaterStageReadsItsTablesAtTheDowngradedBoard(kind: String) throws {
        let network = Self.network(kind, boards: .downgraded), plain = Self.network(kind, boards: .plain)
        #expect(network.stageBoards == .downgraded && network.featureDowngradeLimit == 14)
        var rng = Xoshiro256StarStar(seed: 11)
        for (exponents, readExponents, stage) in Self.cases {
            let board = try Self.board(exponents), read = try Self.board(readExponents)
            // The plain network reads `read` in stage 0 as it is: the same indices, moved to `board`'s stage.
            let expected = plain.featureIndices(of: read).map { $0 + stage * network.stageSize }.sorted()
            #expect(Self.readIndices(network, board) == expected, "\(exponents)")
            #expect(network.featureIndices(of: board).sorted() == plain.featureIndices(of: read).sorted())
            // Whole numbers sum exactly in any order, so every kind's value is the sum of those weights.
            for index in expected { network.weights[index] = Float(rng.uniform(below: 2001) - 1000) }
            let sum = expected.reduce(Float(0)) { $0 + network.weights[$1] }
            #expect(network.value(of: board) == sum)
            if let packed = network.packed(board) { #expect(network.value(of: packed) == sum) }
            // A plain network reads the board itself.
            #expect(Self.readIndices(plain, board) == plain.featureIndices(of: board).map { $0 + stage * plain.stageSize }.sorted())
        }
    }

    /// Over generated boards, the packed path, the board path and the downgrade written out agree; a learning step
    /// through the packed path moves the weights the generic reading names.
    @Test(arguments: kinds)
    func everyReadingAgreesOnGeneratedBoards(kind: String) throws {
        let network = Self.network(kind, boards: .downgraded, stages: [13, 15]), plain = Self.network(kind, boards: .plain, stages: [13, 15])
        var rng = Xoshiro256StarStar(seed: 4)
        var downgradedBoards = 0
        for _ in 0..<1_500 {
            let board = NTupleNetworkTests.randomPackedBoard(&rng)
            let stage = network.stage(maxExponent: board.maxExponent)
            let read = stage == 0 ? board : TileDowngrade.downgraded(board, from: 13)
            if read != board { downgradedBoards += 1 }
            let expected = plain.featureIndices(of: read).map { $0 + stage * network.stageSize }.sorted()
            #expect(Self.readIndices(network, board) == expected)
            var generic: [Int] = []
            CellTupleValue(network).forEachFeature(of: board) { generic.append($0 + stage * network.stageSize) }
            #expect(generic.sorted() == expected)
            for index in expected { network.weights[index] = Float(rng.uniform(below: 2001) - 1000) }
            let before = expected.map { network.weights[$0] }
            network.update(board, by: 1)
            // Twins share a weight and move once per occurrence; nothing else moves.
            for (index, old) in zip(expected, before) {
                #expect(network.weights[index] == old + Float(expected.count { $0 == index }))
            }
        }
        #expect(downgradedBoards > 300)
    }

    /// A small board's packed key reads what its `Board` reads (the afterstate learner's and small search's reader).
    @Test func thePackedKeyReaderDowngradesAsTheBoardReadingDoes() throws {
        let network = NTupleNetwork(
            rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1, 2, 3]), TuplePattern(cells: [8, 4, 0])], valueCount: 12,
            stageThresholds: [5, 7], stageBoards: .downgraded)
        NTupleNetworkTests.randomize(network, seed: 2)
        let reader = PackedTupleReader(network)
        var rng = Xoshiro256StarStar(seed: 8)
        for _ in 0..<2_000 {
            let board = AfterstateTableTests.randomBoard(rows: 3, cols: 3, largest: 11, using: &rng)
            let key = try #require(PackedGrid.key(of: board))
            #expect(reader.value(of: key).bitPattern == CellTupleValue(network).featureSum(of: board).bitPattern)
        }
        // By hand: 32 16 2 4 (no 8) reads as 16 8 2 4 in stage 1's tables.
        let board = try Board(rows: 3, cols: 3, exponents: [5, 4, 1, 2, 0, 0, 0, 0, 0])
        let read = try Board(rows: 3, cols: 3, exponents: [4, 3, 1, 2, 0, 0, 0, 0, 0])
        let sum = network.featureIndices(of: read).reduce(Float(0)) { $0 + network.weights[network.stageSize + $1] }
        #expect(abs(reader.value(of: try #require(PackedGrid.key(of: board))) - sum) <= 1e-3 * max(1, abs(sum)))
    }

    /// Training reads the downgraded boards: the same seed gives the same weights every time, and other weights than
    /// a plain staged network's once its games pass the first threshold.
    @Test func trainingWithDowngradedStagesIsDeterministicAndReadsOtherWeights() throws {
        func trained(_ boards: StageBoards) throws -> NTupleNetwork {
            let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1, 2, 3])], stageThresholds: [5, 7], stageBoards: boards)
            let learner = TDLearner(network: network, rules: try Rules(rows: 3, cols: 3), alpha: 0.1)
            var rng = Xoshiro256StarStar(seed: 3)
            for _ in 0..<300 { learner.trainGame(using: &rng) }
            return network
        }
        let weights = { (network: NTupleNetwork) in network.weights.values }
        let first = try trained(.downgraded), second = try trained(.downgraded), plain = try trained(.plain)
        #expect(first.promoted == [true, true])
        #expect(weights(first) == weights(second))
        let size = first.stageSize
        #expect(weights(first)[0..<size] != weights(plain)[0..<size])
        #expect(weights(first)[size...] != weights(plain)[size...])
    }

    @Test func aNetworkOfOneStageCannotDowngradeItsStages() {
        #expect(
            NetworkLayout(rows: 2, cols: 2, valueCount: 4, symmetryCount: 8, patterns: [TuplePattern(cells: [0, 1])], stageBoards: .downgraded)
                .problem() == "downgraded stage boards in a network of one stage")
    }

    // MARK: The weights file, version 6

    /// The reading survives a save and a load as version 6; a plain staged network keeps the older versions.
    @Test func versionSixRoundTripsTheReading() throws {
        let directory = TemporaryDirectory()
        let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1])], valueCount: 6, stageThresholds: [4], stageBoards: .downgraded)
        NTupleNetworkTests.randomize(network, seed: 1)
        let path = directory.file("v6.bin"), plainPath = directory.file("plain.bin")
        try WeightsFile.save(network, metadata: WeightsFileTests.coherentMetadata, to: path)
        let bytes = try #require(readBytes(path))
        #expect(bytes[8] == 6)
        let headerLength = Int(bytes[12]) | Int(bytes[13]) << 8
        #expect(bytes[16 + headerLength - 1] == 1)
        let (loaded, metadata) = try WeightsFile.load(from: path)
        #expect(loaded.stageBoards == .downgraded && loaded.stageThresholds == [4])
        #expect(metadata.games == WeightsFileTests.coherentMetadata.games && metadata.learning == WeightsFileTests.coherentMetadata.learning)
        #expect((0..<network.weights.count).allSatisfy { loaded.weights[$0] == network.weights[$0] })
        let plain = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1])], valueCount: 6, stageThresholds: [4])
        try WeightsFile.save(plain, metadata: WeightsFileTests.coherentMetadata, to: plainPath)
        #expect(readBytes(plainPath)?[8] == 2)
        #expect(try WeightsFile.load(from: plainPath).network.stageBoards == .plain)

        // Forged: an unknown code, the plain code (loads as plain), a relabelled older file.
        var forged = bytes
        forged[16 + headerLength - 1] = 2
        #expect(
            WeightsFileTests.loadError(WeightsFileTests.resealed(forged), in: directory)?.description
                == "\(directory.file("x.bin")): invalid header: stage boards 2 are unknown (0 = plain, 1 = downgraded)")
        forged[16 + headerLength - 1] = 0
        writeBytes(WeightsFileTests.resealed(forged), to: directory.file("zero.bin"))
        #expect(try WeightsFile.load(from: directory.file("zero.bin")).network.stageBoards == .plain)
        // Read as version 5, the reading's byte is one too many.
        var older = bytes
        older[8] = 5
        #expect(
            WeightsFileTests.loadError(WeightsFileTests.resealed(older), in: directory)?.description
                == "\(directory.file("x.bin")): invalid header: header length \(headerLength) does not match its contents (\(headerLength - 1) bytes)")
    }

    /// A version 6 file that downgrades the stages of a one-stage network is refused by name.
    @Test func aForgedOneStageFileWithDowngradedStagesIsRefused() throws {
        let directory = TemporaryDirectory()
        let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1])], valueCount: 6, stageThresholds: [4], stageBoards: .downgraded)
        let path = directory.file("v6.bin")
        try WeightsFile.save(network, metadata: WeightsFileTests.coherentMetadata, to: path)
        var bytes = try #require(readBytes(path))
        // One stage: the stage count byte says 1, and the threshold and promoted flag go.
        let headerLength = Int(bytes[12]) | Int(bytes[13]) << 8
        let stageCountAt = 16 + 8 + 3 + 60
        #expect(bytes[stageCountAt] == 2)
        bytes[stageCountAt] = 1
        bytes.removeSubrange((stageCountAt + 1)...(stageCountAt + 2))
        bytes.replaceSubrange(12..<16, with: withUnsafeBytes(of: UInt32(headerLength - 2).littleEndian, Array.init))
        // The weights of one stage, not two.
        bytes.removeSubrange((16 + headerLength - 2 + network.stageSize * 4)..<(16 + headerLength - 2 + 2 * network.stageSize * 4))
        #expect(
            WeightsFileTests.loadError(WeightsFileTests.resealed(bytes), in: directory)?.description
                == "\(directory.file("x.bin")): invalid header: downgraded stage boards in a network of one stage")
    }
}
