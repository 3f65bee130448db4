#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Game2048
@testable import Game2048Network
import GymSystem
import TestSupport

// MARK: - Helpers (shared with the metrics and plot tests)

func readBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n == 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    let file = fopen(path, "wb")!
    defer { fclose(file) }
    if !bytes.isEmpty { precondition(fwrite(bytes, 1, bytes.count, file) == bytes.count) }
}

func writeText(_ text: String, to path: String) { writeBytes(Array(text.utf8), to: path) }

func readText(_ path: String) -> String? { readBytes(path).map { String(decoding: $0, as: UTF8.self) } }

// MARK: - Tests

struct WeightsFileTests {
    @Test func aSaveRemovesTheTemporaryFileOfAKilledSave() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("w.bin")
        // A pid that cannot be alive (beyond pid_max) and one that is (this process's parent).
        let abandoned = path + ".tmp-2147483000"
        let living = path + ".tmp-\(getppid())"
        for file in [abandoned, living] { writeText("partial", to: file) }
        let network = NTupleNetwork(rows: 2, cols: 2)
        try WeightsFile.save(network, metadata: TrainingMetadata(), to: path)
        #expect(access(abandoned, F_OK) != 0)
        #expect(access(living, F_OK) == 0)
        #expect(try WeightsFile.load(from: path).network.weights.count == network.weights.count)
    }

    /// Small networks, so that every test stays fast: square and rectangular,
    /// default and custom patterns, generic and 4×4 bitboard layouts.
    static let networks: [(rows: Int, cols: Int, patterns: [[Int]]?, valueCount: Int?)] = [
        (2, 2, nil, nil),
        (3, 3, nil, nil),
        (2, 3, nil, nil),
        (4, 4, [[0, 1, 2], [4, 5, 6], [0, 5, 10, 15]], nil),
        (4, 4, [[0, 1], [1, 2]], 12),
    ]

    static func makeNetwork(
        _ shape: (rows: Int, cols: Int, patterns: [[Int]]?, valueCount: Int?), seed: UInt64,
        stages: [UInt8] = [], promoted: [Bool]? = nil
    ) -> NTupleNetwork {
        let network = NTupleNetwork(
            rows: shape.rows, cols: shape.cols, patterns: shape.patterns?.map(TuplePattern.init), valueCount: shape.valueCount,
            stageThresholds: stages, promoted: promoted)
        var rng = Xoshiro256StarStar(seed: seed)
        for i in 0..<network.weights.count {
            network.weights[i] = Float(Int32(truncatingIfNeeded: rng.next() >> 40)) / 4096
        }
        return network
    }

    /// A network small enough to flip every bit of its file: 16 weights.
    static func tinyNetwork() -> NTupleNetwork {
        makeNetwork((2, 2, [[0, 1]], 4), seed: 3)
    }

    static let metadata = TrainingMetadata(
        games: 123_456, moves: 98_765_432, seed: 0xDEAD_BEEF_0123_4567, alpha: 0.0025, initialValue: 320_000,
        elapsedSeconds: 3_601.25, rulesVersion: 1, spawnFourProbability: 0.1)

    /// ``metadata`` of an OTD+TC run that has switched to TC, which needs format version 2.
    static var coherentMetadata: TrainingMetadata {
        var metadata = metadata
        metadata.learning = .otdThenTC
        metadata.coherenceStarted = true
        metadata.coherenceAlpha = 0.75
        metadata.coherenceFrom = 0.25
        return metadata
    }

    static func weightBits(_ network: NTupleNetwork) -> [UInt32] {
        network.weights.bitPatterns
    }

    /// Saves the tiny network and returns the file's path and bytes.
    static func savedTinyFile(in directory: TemporaryDirectory) throws -> (path: String, bytes: [UInt8]) {
        let path = directory.file("tiny.bin")
        try WeightsFile.save(tinyNetwork(), metadata: metadata, to: path)
        return (path, try #require(readBytes(path)))
    }

    /// Loads `bytes` from a file and returns the error, or `nil` if it loaded.
    static func loadError(_ bytes: [UInt8], in directory: TemporaryDirectory, name: String = "x.bin") -> WeightsFileError? {
        let path = directory.file(name)
        writeBytes(bytes, to: path)
        do {
            _ = try WeightsFile.load(from: path)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Round trips

    @Test(arguments: 0..<networks.count)
    func saveThenLoadGivesTheSameNetworkAndMetadata(index: Int) throws {
        let directory = TemporaryDirectory()
        let original = Self.makeNetwork(Self.networks[index], seed: UInt64(index))
        let path = directory.file("weights.bin")
        try WeightsFile.save(original, metadata: Self.metadata, to: path)
        let (loaded, metadata) = try WeightsFile.load(from: path)
        #expect(metadata == Self.metadata)
        #expect(loaded.rows == original.rows)
        #expect(loaded.cols == original.cols)
        #expect(loaded.valueCount == original.valueCount)
        #expect(loaded.patterns == original.patterns)
        #expect(loaded.symmetryCount == original.symmetryCount)
        #expect(loaded.tableOffsets == original.tableOffsets)
        #expect(loaded.readsBitboards == original.readsBitboards)
        #expect(Self.weightBits(loaded) == Self.weightBits(original))
        var rng = Xoshiro256StarStar(seed: 9)
        for _ in 0..<20 {
            var board = try Board(rows: original.rows, cols: original.cols)
            for cell in 0..<board.cellCount { board[cell] = UInt8(rng.uniform(below: 8)) }
            #expect(loaded.value(of: board) == original.value(of: board))
        }
        #expect(directory.names == ["weights.bin"])
    }

    @Test func metadataExtremesSurviveTheRoundTrip() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("extremes.bin")
        let extremes = TrainingMetadata(
            games: TrainingMetadata.maxCount, moves: 0, seed: UInt64.max, alpha: -0.0, initialValue: -.greatestFiniteMagnitude,
            elapsedSeconds: .leastNonzeroMagnitude, rulesVersion: Rules.version, spawnFourProbability: 1)
        try WeightsFile.save(Self.tinyNetwork(), metadata: extremes, to: path)
        #expect(try WeightsFile.load(from: path).metadata == extremes)
        #expect(try WeightsFile.load(from: path).metadata.alpha.sign == .minus)
    }

    @Test func defaultFourByFourFileHasTheDocumentedSize() {
        // Computed from the layout, so the test does not allocate 268 MB.
        let (patterns, valueCount) = TuplePattern.defaults(rows: 4, cols: 4)
        let layout = NetworkLayout(rows: 4, cols: 4, valueCount: valueCount, symmetryCount: 8, patterns: patterns)
        #expect(layout.problem() == nil)
        #expect(layout.headerLength == 96)
        #expect(layout.weightCount == 4 << 24)
        let prefix = WeightsFile.encodePrefix(layout, metadata: TrainingMetadata())
        #expect(prefix.count == 16 + 96)
        #expect(prefix.count + layout.weightCount * 4 + 8 == 268_435_576)
    }

    @Test func fieldsSitAtTheDocumentedOffsets() throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        func integer(_ offset: Int, _ size: Int) -> UInt64 {
            bytes[offset..<(offset + size)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        #expect(Array(bytes[0..<8]) == [0x47, 0x32, 0x30, 0x34, 0x38, 0x4E, 0x54, 0x1A])
        #expect(integer(8, 4) == 1)  // version
        let headerLength = Int(integer(12, 4))
        #expect(headerLength == 8 + 3 + 60)  // one pattern of two cells
        #expect(integer(16, 1) == 2)  // rows
        #expect(integer(17, 1) == 2)  // cols
        #expect(integer(18, 2) == 4)  // valueCount
        #expect(integer(20, 1) == 1)  // Float32
        #expect(integer(21, 1) == 8)  // symmetries
        #expect(integer(22, 2) == 1)  // patterns
        #expect(Array(bytes[24..<27]) == [2, 0, 1])  // cell count, cells
        #expect(integer(27, 8) == 123_456)  // games
        #expect(integer(35, 8) == 98_765_432)  // moves
        #expect(integer(43, 8) == 0xDEAD_BEEF_0123_4567)  // seed
        #expect(integer(51, 8) == (0.0025).bitPattern)  // alpha
        #expect(integer(59, 8) == (320_000.0).bitPattern)  // initialValue
        #expect(integer(67, 8) == (3_601.25).bitPattern)  // elapsedSeconds
        #expect(integer(75, 4) == 1)  // rulesVersion
        #expect(integer(79, 8) == (0.1).bitPattern)  // spawnFourProbability
        let weightsStart = 16 + headerLength
        #expect(weightsStart == 87)
        #expect(bytes.count == weightsStart + 16 * 4 + 8)
        #expect(UInt32(integer(weightsStart, 4)) == Self.tinyNetwork().weights[0].bitPattern)
        #expect(integer(bytes.count - 8, 8) == WeightsFile.checksum(of: Array(bytes.dropLast(8))))
    }

    @Test func savingOverAnExistingFileReplacesIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("weights.bin")
        try WeightsFile.save(Self.makeNetwork(Self.networks[0], seed: 1), metadata: TrainingMetadata(games: 1), to: path)
        let second = Self.makeNetwork(Self.networks[2], seed: 2)
        try WeightsFile.save(second, metadata: TrainingMetadata(games: 2), to: path)
        let (loaded, metadata) = try WeightsFile.load(from: path)
        #expect(metadata.games == 2)
        #expect(loaded.cols == 3)
        #expect(Self.weightBits(loaded) == Self.weightBits(second))
        #expect(directory.names == ["weights.bin"])
    }

    // MARK: Damaged and foreign files

    @Test(arguments: [5, 12, 20, 80, 87, 87 + 30, 87 + 64, 87 + 64 + 7])
    func truncatedFileSaysHowMuchIsMissing(length: Int) throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        let error = Self.loadError(Array(bytes.prefix(length)), in: directory)
        if length < 87 {
            let needed = length < 16 ? 16 : 87
            #expect(error == .truncatedHeader(file: directory.file("x.bin"), needed: needed, found: length))
        } else {
            #expect(error == .truncated(file: directory.file("x.bin"), shape: "1 pattern of 2 cells", expected: bytes.count, found: length))
            #expect(
                error?.description == "\(directory.file("x.bin")): truncated: the header says 1 pattern of 2 cells, "
                    + "\(bytes.count) bytes (\(bytes.count) bytes); the file has \(length) bytes (\(length) bytes)")
        }
    }

    @Test func extraBytesAfterTheChecksumAreRefused() throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        let error = Self.loadError(bytes + [0, 0, 0], in: directory)
        #expect(error == .trailingBytes(file: directory.file("x.bin"), expected: bytes.count, found: bytes.count + 3))
    }

    @Test func everySingleFlippedBitIsDetected() throws {
        let directory = TemporaryDirectory()
        let (path, bytes) = try Self.savedTinyFile(in: directory)
        let metadataStart = 27
        for byte in 0..<bytes.count {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[byte] ^= 1 << bit
                writeBytes(damaged, to: path)
                do {
                    _ = try WeightsFile.load(from: path)
                    Issue.record("a flipped bit \(bit) in byte \(byte) went unnoticed")
                } catch {
                    // Metadata, weights and checksum are covered by the checksum alone.
                    if byte >= metadataStart {
                        #expect(error == .checksumMismatch(file: path), "byte \(byte) bit \(bit)")
                    }
                }
            }
        }
    }

    @Test func flippedBitInMagicVersionAndHeaderGivesTheMatchingError() throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        let file = directory.file("x.bin")
        func flipped(_ byte: Int, _ bit: Int) -> [UInt8] {
            var damaged = bytes
            damaged[byte] ^= 1 << bit
            return damaged
        }
        #expect(Self.loadError(flipped(0, 0), in: directory) == .notAWeightsFile(file: file))
        #expect(Self.loadError(flipped(8, 3), in: directory) == .unsupportedVersion(file: file, version: 9))
        #expect(Self.loadError(flipped(16, 3), in: directory) == .invalidHeader(file: file, reason: "the board has 10 rows; boards have 2 to 8"))
        #expect(Self.loadError(flipped(25, 0), in: directory) == .checksumMismatch(file: file))  // cell 0 → 1: a valid shape
    }

    @Test func checksumChangesWithEverySingleBitFlip() {
        var rng = Xoshiro256StarStar(seed: 5)
        let bytes = (0..<333).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let reference = WeightsFile.checksum(of: bytes)
        var seen: Set<UInt64> = [reference]
        for byte in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[byte] ^= 1 << bit
                seen.insert(WeightsFile.checksum(of: damaged))
            }
        }
        #expect(seen.count == bytes.count * 8 + 1)
    }

    @Test func checksumDependsOnLengthAndIsTheSameInAnyPieces() {
        #expect(WeightsFile.checksum(of: []) != WeightsFile.checksum(of: [0]))
        #expect(WeightsFile.checksum(of: [0]) != WeightsFile.checksum(of: [0, 0]))
        #expect(WeightsFile.checksum(of: Array(repeating: 0, count: 32)) != WeightsFile.checksum(of: Array(repeating: 0, count: 33)))
        var rng = Xoshiro256StarStar(seed: 6)
        let bytes = (0..<1000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let whole = WeightsFile.checksum(of: bytes)
        for _ in 0..<50 {
            var checksum = Checksum64()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + rng.uniform(below: 80))
                bytes[start..<end].withUnsafeBytes { checksum.update($0) }
                start = end
            }
            #expect(checksum.finalize() == whole)
        }
    }

    @Test func foreignFilesAreNotWeightsFiles() {
        let directory = TemporaryDirectory()
        var rng = Xoshiro256StarStar(seed: 8)
        let foreign: [[UInt8]] = [
            [],
            (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) },
            Array("games,moves,elapsed_seconds\n1000,80000,1.5\n".utf8),
            Array("G2048".utf8) + [0x0A],
            Array("G2048NT\u{1A}".utf8.dropLast()) + [0x1B] + Array(repeating: 0, count: 200),
        ]
        for bytes in foreign {
            let error = Self.loadError(bytes, in: directory)
            #expect(error == .notAWeightsFile(file: directory.file("x.bin")))
            #expect(error?.description == "\(directory.file("x.bin")): not a Gym2048 weights file (bad magic)")
        }
    }

    @Test func versionIsCheckedBeforeTheChecksum() throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        var patched = bytes
        patched[8] = 7
        let error = Self.loadError(patched, in: directory)
        #expect(error == .unsupportedVersion(file: directory.file("x.bin"), version: 7))
        #expect(error?.description == "\(directory.file("x.bin")): format version 7; this build reads versions 1 to 6")
    }

    // MARK: Version 2: stages and learning methods

    /// A version 1 file written byte by byte, as builds before stages wrote it, loads as a one-stage TD network.
    @Test func aVersionOneFileLoadsAsOneStageOfTD() throws {
        let directory = TemporaryDirectory()
        var file = ByteWriter()
        file.append(WeightsFile.magic)
        file.append(UInt32(1))
        file.append(UInt32(8 + 3 + 60))
        file.append([2, 2, 4, 0, 1, 8, 1, 0, 2, 0, 1] as [UInt8])  // 2x2, 4 values, Float32, 8 symmetries, one pattern {0, 1}
        file.append(UInt64(10))  // games
        file.append(UInt64(200))  // moves
        file.append(UInt64(7))  // seed
        file.append((0.25).bitPattern)  // alpha
        file.append((100.0).bitPattern)  // initial value
        file.append((1.5).bitPattern)  // seconds
        file.append(UInt32(1))  // rules version
        file.append((0.1).bitPattern)  // spawn 4
        for index in 0..<16 { file.append(Float(index).bitPattern) }
        file.append(WeightsFile.checksum(of: file.bytes))
        writeBytes(file.bytes, to: directory.file("v1.bin"))
        let (network, metadata) = try WeightsFile.load(from: directory.file("v1.bin"))
        #expect(network.stageCount == 1 && network.stageThresholds.isEmpty && network.weights.count == 16)
        #expect((0..<16).allSatisfy { network.weights[$0] == Float($0) })
        #expect(metadata.learning == .td && !metadata.coherenceStarted && metadata.games == 10 && metadata.alpha == 0.25)
        // Saved again, it is the same file: a one-stage TD network is still written as version 1.
        try WeightsFile.save(network, metadata: metadata, to: directory.file("again.bin"))
        #expect(readBytes(directory.file("again.bin")) == file.bytes)
    }

    /// Stages, promoted flags and the learning method survive a save and a load, in version 2.
    @Test(arguments: [[], [3], [3, 4]] as [[UInt8]])
    func versionTwoRoundTripsStagesAndMethod(stages: [UInt8]) throws {
        let directory = TemporaryDirectory()
        let promoted = stages.indices.map { $0 == 0 }
        let network = Self.makeNetwork((2, 2, [[0, 1]], 4), seed: 4, stages: stages, promoted: promoted)
        let path = directory.file("v2.bin")
        try WeightsFile.save(network, metadata: Self.coherentMetadata, to: path)
        let bytes = try #require(readBytes(path))
        #expect(bytes[8] == 2)
        #expect(bytes.count == 16 + (8 + 3 + 60 + 19 + 2 * stages.count) + 16 * 4 * (stages.count + 1) + 8)
        let (loaded, metadata) = try WeightsFile.load(from: path)
        #expect(loaded.stageThresholds == stages && loaded.promoted == promoted)
        #expect(metadata == Self.coherentMetadata)
        #expect((0..<network.weights.count).allSatisfy { loaded.weights[$0] == network.weights[$0] })
    }

    /// Each new field is checked, with a reason naming it.
    @Test(
        arguments: [
            (0, UInt8(9), "invalid header: 9 stages; a network has 1 to 8"),
            (1, 1, "invalid header: stage threshold 2^1 must be from 2^2 (the tile 4) to 2^50 on a 2x2 board"),
            (1, 5, "invalid header: stage thresholds must ascend: 2^4 after 2^5"),
            (3, 2, "invalid header: a stage's promoted flag is 2; it must be 0 or 1"),
            (5, 3, "invalid header: learning method 3 is unknown (0 = td, 1 = tc, 2 = otd+tc)"),
            (6, 2, "invalid header: the TC started flag is 2; it must be 0 or 1"),
            (5, 1, "invalid header: TC is marked started, but the learning method is tc; only otd+tc switches to TC"),
        ] as [(Int, UInt8, String)])
    func versionTwoFieldsAreValidated(offset: Int, value: UInt8, reason: String) throws {
        let directory = TemporaryDirectory()
        let network = Self.makeNetwork((2, 2, [[0, 1]], 4), seed: 4, stages: [3, 4], promoted: [true, false])
        let path = directory.file("bad.bin")
        try WeightsFile.save(network, metadata: Self.coherentMetadata, to: path)
        var bytes = try #require(readBytes(path))
        // The stage fields start right after the version 1 header: 16 + 8 + 3 + 60.
        bytes[16 + 71 + offset] = value
        let error = Self.loadError(Self.resealed(bytes), in: directory)
        #expect(error?.description == "\(directory.file("x.bin")): \(reason)")
    }

    // MARK: Version 3: the search's downgrading tile

    /// The tile survives a save and a load, in version 3, with or without stages; 0 in the file means none.
    @Test(arguments: [[], [3]] as [[UInt8]])
    func versionThreeRoundTripsTheDowngradingTile(stages: [UInt8]) throws {
        let directory = TemporaryDirectory()
        let network = Self.makeNetwork((2, 2, [[0, 1]], 4), seed: 5, stages: stages, promoted: stages.map { _ in false })
        // Plain TD with one stage would be version 1; the tile alone makes it version 3.
        var metadata = Self.metadata
        metadata.downgradeLimit = 13
        let path = directory.file("v3.bin")
        try WeightsFile.save(network, metadata: metadata, to: path)
        var bytes = try #require(readBytes(path))
        #expect(bytes[8] == 3)
        let headerLength = 8 + 3 + 60 + 19 + 2 * stages.count + 1
        #expect(bytes.count == 16 + headerLength + 16 * 4 * (stages.count + 1) + 8)
        #expect(bytes[16 + headerLength - 1] == 13)
        let (loaded, read) = try WeightsFile.load(from: path)
        #expect(read == metadata && loaded.stageThresholds == stages)
        #expect((0..<network.weights.count).allSatisfy { loaded.weights[$0] == network.weights[$0] })
        bytes[16 + headerLength - 1] = 0
        writeBytes(Self.resealed(bytes), to: path)
        #expect(try WeightsFile.load(from: path).metadata.downgradeLimit == nil)
    }

    /// Without a tile, files are written as before: version 1 for one stage of TD, else version 2.
    @Test func withoutATileTheOlderVersionsAreWritten() throws {
        let directory = TemporaryDirectory()
        try WeightsFile.save(Self.tinyNetwork(), metadata: Self.metadata, to: directory.file("v1.bin"))
        try WeightsFile.save(Self.tinyNetwork(), metadata: Self.coherentMetadata, to: directory.file("v2.bin"))
        #expect(readBytes(directory.file("v1.bin"))?[8] == 1)
        #expect(readBytes(directory.file("v2.bin"))?[8] == 2)
    }

    /// A tile outside 8…32768 is refused on load, with the reason, and never saved.
    @Test(arguments: [UInt8(1), 2, 16, 255])
    func versionThreeTileIsValidated(exponent: UInt8) throws {
        let directory = TemporaryDirectory()
        var metadata = Self.metadata
        metadata.downgradeLimit = 10
        let path = directory.file("v3.bin")
        try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: path)
        var bytes = try #require(readBytes(path))
        let headerLength = Int(bytes[12]) | Int(bytes[13]) << 8
        bytes[16 + headerLength - 1] = exponent
        let reason = "the search's downgrading tile is 2^\(exponent); it must be 8 to 32768 (2^3 to 2^15)"
        #expect(Self.loadError(Self.resealed(bytes), in: directory)?.description == "\(directory.file("x.bin")): invalid header: \(reason)")
        metadata.downgradeLimit = exponent
        #expect(throws: WeightsFileError.unsupportedContents(file: directory.file("w.bin"), reason: reason)) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("w.bin"))
        }
    }

    /// A version 2 file relabelled version 3 lacks the tile: its header is too short for version 3.
    @Test func versionThreeHeaderWithoutItsTileIsRefused() throws {
        let directory = TemporaryDirectory()
        try WeightsFile.save(Self.tinyNetwork(), metadata: Self.coherentMetadata, to: directory.file("v2.bin"))
        var bytes = try #require(readBytes(directory.file("v2.bin")))
        bytes[8] = 3
        let error = Self.loadError(Self.resealed(bytes), in: directory)
        #expect(error?.description == "\(directory.file("x.bin")): invalid header: header length 90 is too short for its contents")
    }

    /// A TC switch point or rate out of range is refused on save, as a load would refuse it.
    @Test func unusableTCSettingsAreNotSaved() {
        let directory = TemporaryDirectory()
        var metadata = Self.coherentMetadata
        metadata.coherenceFrom = 1.5
        #expect(throws: WeightsFileError.unsupportedContents(file: directory.file("w.bin"), reason: "the TC switch point is 1.5; it must be 0 to 1")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("w.bin"))
        }
        #expect(directory.names.isEmpty)
    }

    // MARK: Version 4: the rules of the training games

    /// Rules other than the defaults of their size (and spawn probability) are recorded, by name, in version 4,
    /// and read back whole.
    @Test(arguments: [
        try! Rules(rows: 2, cols: 2, winTile: 16),
        try! Rules(rows: 2, cols: 2, spawnFourProbability: 0.1, initialTiles: 1, maxSteps: 500),
        try! Rules(rows: 2, cols: 2, winTile: 64, maxSteps: 1, invalidAction: .terminate(penalty: 7)),
    ])
    func versionFourRoundTripsTheRules(rules: Rules) throws {
        let directory = TemporaryDirectory()
        var metadata = Self.metadata
        metadata.trainedRules = rules
        let path = directory.file("v4.bin")
        try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: path)
        #expect(readBytes(path)?[8] == 4)
        let read = try WeightsFile.load(from: path).metadata
        #expect(read == metadata && read.rules(rows: 2, cols: 2) == rules)
    }

    /// Default rules are what older versions imply: such a file stays in the oldest version that says it all, and
    /// a file without a rules block plays by the defaults of its size and its spawn probability.
    @Test func defaultRulesKeepTheOlderVersions() throws {
        let directory = TemporaryDirectory()
        var metadata = Self.metadata
        metadata.trainedRules = try Rules(rows: 2, cols: 2, spawnFourProbability: metadata.spawnFourProbability)
        try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("v1.bin"))
        #expect(readBytes(directory.file("v1.bin"))?[8] == 1)
        let read = try WeightsFile.load(from: directory.file("v1.bin")).metadata
        #expect(read.trainedRules == nil && read.rules(rows: 2, cols: 2) == metadata.trainedRules)
    }

    /// Rules for another board, or with another spawn probability than the metadata's, are never saved.
    @Test func rulesThatContradictTheFileAreNotSaved() throws {
        let directory = TemporaryDirectory()
        var metadata = Self.metadata
        metadata.trainedRules = try Rules(rows: 3, cols: 2, winTile: 16)
        #expect(throws: WeightsFileError.unsupportedContents(file: directory.file("w.bin"), reason: "the rules are for 3x2, the network for 2x2")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("w.bin"))
        }
        metadata.trainedRules = try Rules(rows: 2, cols: 2, spawnFourProbability: 0.5, winTile: 16)
        #expect(
            throws: WeightsFileError.unsupportedContents(
                file: directory.file("w.bin"), reason: "the rules' spawn_four_probability 0.5 is not the metadata's 0.1")
        ) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("w.bin"))
        }
        #expect(directory.names.isEmpty)
    }

    /// A forged rules block is refused with what is wrong in it: an unknown option, a value of the wrong kind or
    /// out of range, rules that `Rules` refuses, a name given twice.
    @Test(arguments: [
        ("win_tile", "winXtile", "the rules block names \"winXtile\", which is no rules option of this build"),
        ("max_steps", "MAX_STEPS", "the rules block names \"MAX_STEPS\", which is no rules option of this build"),
        // A line break in a forged name stays escaped: the message is one line.
        ("max_steps", "max\nsteps", "the rules block names \"max\\nsteps\", which is no rules option of this build"),
    ])
    func forgedRulesNamesAreRefused(original: String, forged: String, reason: String) throws {
        let bytes = try Self.versionFourBytes()
        let error = try #require(Self.loadError(Self.resealed(Self.renamed(bytes, original, forged)), in: TemporaryDirectory()))
        #expect(error.description.contains("invalid header: \(reason)"))
    }

    @Test func forgedRulesValuesAreRefused() throws {
        let directory = TemporaryDirectory()
        var bytes = try Self.versionFourBytes()
        // The win tile's value: the 8 bytes after the name "win_tile" and its tag (1, an integer).
        let at = try #require(Self.offset(of: "win_tile", in: bytes)) + 8 + 1
        bytes.replaceSubrange(at..<(at + 8), with: [3, 0, 0, 0, 0, 0, 0, 0])
        #expect(
            Self.loadError(Self.resealed(bytes), in: directory)?.description.contains(
                "invalid header: the rules block's win_tile must be a power of two from 4 to 2^50, got 3") == true)
        bytes[at - 1] = 9
        #expect(
            Self.loadError(Self.resealed(bytes), in: directory)?.description.contains(
                "invalid header: the rules block's value of 'win_tile' has tag 9; it must be 0 to 5") == true)
        bytes[at - 1] = 2
        #expect(
            Self.loadError(Self.resealed(bytes), in: directory)?.description.contains(
                "invalid header: the rules block's value of 'win_tile' is not one the option allows") == true)
    }

    /// Every kind of option value a rules block may hold reads back as written, so a rules option of any kind
    /// (a switch, a list) needs no new format; a switch of 2 or a cut list is refused.
    @Test func everyKindOfValueRoundTripsThroughARulesBlock() throws {
        let values: [OptionValue] = [
            .null, .integer(-7), .integer(Int.max), .number(0.25), .string("terminate"), .boolean(true), .boolean(false),
            .list([]), .list(["score", "steps"]),
        ]
        var writer = ByteWriter()
        for value in values { WeightsFile.append(value, to: &writer) }
        var reader = ByteReader(writer.bytes, from: 0)
        for value in values { #expect(try WeightsFile.readValue(&reader, name: "x") == value) }
        var forged = ByteReader([4, 2], from: 0)
        #expect(throws: HeaderProblem(reason: "the rules block's switch 'x' is 2; it must be 0 or 1")) { try WeightsFile.readValue(&forged, name: "x") }
        var cut = ByteReader([5, 2, 1, 65], from: 0)
        #expect(throws: HeaderProblem(reason: "the rules block is cut short")) { try WeightsFile.readValue(&cut, name: "x") }
    }

    /// A rules block for another board than the network's is refused on load, as a save refuses it.
    @Test func forgedRulesForAnotherBoardAreRefused() throws {
        var bytes = try Self.versionFourBytes()
        // The rows' value: the 8 bytes after the name "rows" and its tag (1, an integer); the network is 2x2.
        let at = try #require(Self.offset(of: "rows", in: bytes)) + 4 + 1
        bytes.replaceSubrange(at..<(at + 8), with: [3, 0, 0, 0, 0, 0, 0, 0])
        let error = Self.loadError(Self.resealed(bytes), in: TemporaryDirectory())
        #expect(error?.description.contains("invalid header: the rules are for 3x2, the network for 2x2") == true, "\(String(describing: error))")
    }

    /// The bytes of a version 4 file of the tiny network, trained with a win tile and a step limit.
    static func versionFourBytes() throws -> [UInt8] {
        let directory = TemporaryDirectory()
        var metadata = Self.metadata
        metadata.trainedRules = try Rules(rows: 2, cols: 2, winTile: 16, maxSteps: 100)
        try WeightsFile.save(Self.tinyNetwork(), metadata: metadata, to: directory.file("v4.bin"))
        return try #require(readBytes(directory.file("v4.bin")))
    }

    /// Where the UTF-8 of `name` first starts in `bytes`.
    static func offset(of name: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(name.utf8)
        return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }

    /// `bytes` with the option name `original` replaced by `forged` (same length: the header's length holds).
    static func renamed(_ bytes: [UInt8], _ original: String, _ forged: String) -> [UInt8] {
        precondition(original.utf8.count == forged.utf8.count, "a rename must keep the length")
        guard let at = offset(of: original, in: bytes) else { return bytes }
        var bytes = bytes
        bytes.replaceSubrange(at..<(at + original.utf8.count), with: Array(forged.utf8))
        return bytes
    }

    // MARK: Malicious headers

    /// A file with a hand-written header and `weightBytes` zero bytes of weights and checksum.
    static func forgedFile(
        rows: UInt8 = 2, cols: UInt8 = 2, valueCount: UInt16 = 4, elementType: UInt8 = 1, symmetries: UInt8 = 8,
        patterns: [[UInt8]] = [[0, 1]], headerLength: UInt32? = nil, extraHeader: [UInt8] = [], weightBytes: Int = 72
    ) -> [UInt8] {
        var header = ByteWriter()
        header.append(rows)
        header.append(cols)
        header.append(valueCount)
        header.append(elementType)
        header.append(symmetries)
        header.append(UInt16(truncatingIfNeeded: patterns.count))
        for pattern in patterns {
            header.append(UInt8(truncatingIfNeeded: pattern.count))
            header.append(pattern)
        }
        header.append(Array(repeating: 0, count: 60))
        header.append(extraHeader)
        var file = ByteWriter()
        file.append(WeightsFile.magic)
        file.append(UInt32(1))
        file.append(headerLength ?? UInt32(header.bytes.count))
        file.append(header.bytes)
        file.append(Array(repeating: 0, count: weightBytes))
        return file.bytes
    }

    @Test func forgedFileWithAValidHeaderFailsOnlyItsChecksum() {
        // Guards the forging helper: the header tests below differ from this in one field.
        let directory = TemporaryDirectory()
        #expect(Self.loadError(Self.forgedFile(), in: directory) == .checksumMismatch(file: directory.file("x.bin")))
    }

    /// Each reason with a file whose header has that problem and no other.
    static let invalidHeaders: [(bytes: [UInt8], reason: String)] = [
        (forgedFile(rows: 99), "the board has 99 rows; boards have 2 to 8"),
        (forgedFile(cols: 1), "the board has 1 columns; boards have 2 to 8"),
        (forgedFile(valueCount: 1), "1 values per cell; a 2x2 board allows 2 to 256"),
        (forgedFile(valueCount: 257), "257 values per cell; a 2x2 board allows 2 to 256"),
        (forgedFile(rows: 3, cols: 5, valueCount: 1000, symmetries: 4), "1000 values per cell; a 3x5 board allows 2 to 256"),
        (forgedFile(rows: 4, cols: 4, valueCount: 17), "17 values per cell; a 4x4 board allows 2 to 16"),
        (forgedFile(elementType: 2), "element type 2 is unknown (1 = Float32)"),
        (forgedFile(symmetries: 5), "5 symmetries; a 2x2 board has 8"),
        (forgedFile(rows: 2, cols: 3, symmetries: 8), "8 symmetries; a 2x3 board has 4"),
        (forgedFile(patterns: []), "0 patterns; a network has 1 to 65535"),
        (forgedFile(patterns: [[0, 1], [2, 200]]), "pattern 2 has cell 200, outside a 2x2 board (cells 0...3)"),
        (forgedFile(patterns: [[0, 1], []]), "pattern 2 has 0 cells; a 2x2 board allows 1 to 4"),
        (forgedFile(patterns: [[0, 1, 2, 3, 0]]), "pattern 1 has 5 cells; a 2x2 board allows 1 to 4"),
        (
            forgedFile(rows: 8, cols: 8, valueCount: 256, patterns: [Array(0..<26)]),
            "pattern 1 has 26 cells: 256^26 weights is more than 2^26"
        ),
        (
            forgedFile(rows: 8, cols: 8, valueCount: 2, patterns: [Array(0..<27)]),
            "pattern 1 has 27 cells: 2^27 weights is more than 2^26"
        ),
        (forgedFile(extraHeader: [0, 0]), "header length 73 does not match its contents (71 bytes)"),
        (forgedFile(headerLength: 70, extraHeader: []), "header length 70 is too short for its contents"),
        (forgedFile(headerLength: 67), "the header length is 67 bytes; it must be 68 to 4259843"),
        (forgedFile(headerLength: UInt32.max), "the header length is 4294967295 bytes; it must be 68 to 4259843"),
    ]

    @Test(arguments: invalidHeaders.map(\.reason))
    func impossibleHeaderValuesAreNamed(reason: String) throws {
        let directory = TemporaryDirectory()
        let bytes = try #require(Self.invalidHeaders.first { $0.reason == reason }).bytes
        let error = Self.loadError(bytes, in: directory)
        #expect(error == .invalidHeader(file: directory.file("x.bin"), reason: reason))
        #expect(error?.description == "\(directory.file("x.bin")): invalid header: \(reason)")
    }

    @Test func hugeDeclaredNetworkIsRefusedBeforeAnyAllocation() {
        // 65 535 patterns of 2^26 weights each claim a 16 TiB file; the real one
        // is under 2 MB, so the load must stop at the size check.
        let directory = TemporaryDirectory()
        let patterns = Array(repeating: (0..<26).map(UInt8.init), count: 65535)
        let bytes = Self.forgedFile(rows: 8, cols: 8, valueCount: 2, patterns: patterns, weightBytes: 100)
        let headerLength = 8 + 65535 * 27 + 60
        let expected = 16 + headerLength + 65535 * (1 << 26) * 4 + 8
        #expect(
            Self.loadError(bytes, in: directory)
                == .truncated(file: directory.file("x.bin"), shape: "65535 patterns of 26 cells", expected: expected, found: bytes.count))
    }

    // MARK: Forged files with valid checksums

    /// `bytes` with `value` written little-endian at `offset` and the checksum recomputed:
    /// what someone forging a file would do.
    static func forged<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, _ value: T) -> [UInt8] {
        var changed = bytes
        withUnsafeBytes(of: value.littleEndian) { changed.replaceSubrange(offset..<(offset + $0.count), with: $0) }
        return resealed(changed)
    }

    /// `bytes` with its last eight bytes replaced by the checksum of the rest.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let body = Array(bytes.dropLast(WeightsFile.checksumSize))
        var trailer = ByteWriter()
        trailer.append(WeightsFile.checksum(of: body))
        return body + trailer.bytes
    }

    /// Field offsets in the tiny file (see ``fieldsSitAtTheDocumentedOffsets()``).
    static let gamesOffset = 27, movesOffset = 35, alphaOffset = 51, initialValueOffset = 59
    static let elapsedOffset = 67, rulesVersionOffset = 75, spawnFourOffset = 79, weightsOffset = 87

    /// Each forged value that a checksum does not catch, with the refusal that names it.
    static let forgedValues: [(name: String, forge: @Sendable ([UInt8]) -> [UInt8], reason: String)] = [
        (
            "games Int64.max", { forged($0, at: gamesOffset, Int64.max) },
            "invalid header: trained games is 9223372036854775807; at most 2^53 (9007199254740992)"
        ),
        (
            "moves 2^53 + 1", { forged($0, at: movesOffset, UInt64(1 << 53) + 1) },
            "invalid header: trained moves is 9007199254740993; at most 2^53 (9007199254740992)"
        ),
        (
            "elapsed 1e300", { forged($0, at: elapsedOffset, (1e300).bitPattern) },
            "invalid header: training time is 1e+300 seconds; it must be 0 to 1000000000000.0"
        ),
        (
            "elapsed -1", { forged($0, at: elapsedOffset, (-1.0).bitPattern) },
            "invalid header: training time is -1.0 seconds; it must be 0 to 1000000000000.0"
        ),
        (
            "elapsed nan", { forged($0, at: elapsedOffset, Double.nan.bitPattern) },
            "invalid header: training time is nan seconds; it must be 0 to 1000000000000.0"
        ),
        (
            "alpha inf", { forged($0, at: alphaOffset, Double.infinity.bitPattern) },
            "invalid header: the learning rate is inf; it must be a finite number, 0 or more"
        ),
        (
            "initial value nan", { forged($0, at: initialValueOffset, Double.nan.bitPattern) },
            "invalid header: the initial value is nan; it must be a finite number"
        ),
        (
            "rules version 999", { forged($0, at: rulesVersionOffset, UInt32(999)) },
            "invalid header: rules version 999 is unknown; this build knows rules version 1"
        ),
        (
            "rules version 0", { forged($0, at: rulesVersionOffset, UInt32(0)) },
            "invalid header: rules version 0 is unknown; this build knows rules version 1"
        ),
        (
            "spawn 1.5", { forged($0, at: spawnFourOffset, (1.5).bitPattern) },
            "invalid header: the probability of a 4 is 1.5; it must be 0 to 1"
        ),
        (
            "weight nan", { forged($0, at: weightsOffset + 4 * 5, Float.nan.bitPattern) },
            "weight 5 is nan; weights must be finite numbers within ±1e+30"
        ),
        (
            "weight -inf", { forged($0, at: weightsOffset, (-Float.infinity).bitPattern) },
            "weight 0 is -inf; weights must be finite numbers within ±1e+30"
        ),
        (
            "weight 3e38", { forged($0, at: weightsOffset + 4 * 15, Float(3e38).bitPattern) },
            "weight 15 is 3e+38; weights must be finite numbers within ±1e+30"
        ),
    ]

    @Test(arguments: forgedValues.map(\.name))
    func forgedValuesWithAValidChecksumAreRefusedByName(name: String) throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        let forgery = try #require(Self.forgedValues.first { $0.name == name })
        let error = try #require(Self.loadError(forgery.forge(bytes), in: directory))
        #expect(error.description == "\(directory.file("x.bin")): \(forgery.reason)")
    }

    @Test func largestAcceptedValuesStillLoad() throws {
        let directory = TemporaryDirectory()
        let (_, bytes) = try Self.savedTinyFile(in: directory)
        var edge = Self.forged(bytes, at: Self.gamesOffset, UInt64(1 << 53))
        edge = Self.forged(edge, at: Self.weightsOffset, WeightsFile.maxWeightMagnitude.bitPattern)
        edge = Self.forged(edge, at: Self.elapsedOffset, TrainingMetadata.maxElapsedSeconds.bitPattern)
        #expect(Self.loadError(edge, in: directory) == nil)
    }

    @Test func savingWhatALoadWouldRefuseFailsAndKeepsTheFile() throws {
        let directory = TemporaryDirectory()
        let (path, before) = try Self.savedTinyFile(in: directory)
        let diverged = Self.tinyNetwork()
        diverged.weights[3] = .nan
        #expect(throws: WeightsFileError.unsupportedContents(file: path, reason: "weight 3 is nan; weights must be finite numbers within ±1e+30")) {
            try WeightsFile.save(diverged, metadata: Self.metadata, to: path)
        }
        #expect(throws: WeightsFileError.unsupportedContents(file: path, reason: "trained games is -1; it must be 0 to 2^53 (9007199254740992)")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(games: -1), to: path)
        }
        #expect(readBytes(path) == before)
        #expect(directory.names == ["tiny.bin"])
    }

    @Test func networkValueCountIsCappedToAByte() {
        // 300 values a cell would make the cap `UInt8(valueCount - 1)` trap.
        let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0])], valueCount: 300)
        #expect(network.valueCount == 256)
        var board = try! Board(rows: 3, cols: 3)
        board[0] = 40
        #expect(network.value(of: board) == 0)
    }

    @Test func sparseFileOfATerabyteNetworkIsRefusedBeforeAllocating() throws {
        // 16 000 six-tuples of 16 values: 2^24 weights each, 1 TB in all. The file has
        // exactly the size its header claims, but is sparse, so it costs no disk.
        let directory = TemporaryDirectory()
        let patterns = Array(repeating: (0..<6).map(UInt8.init), count: 16_000)
        let header = Self.forgedFile(rows: 4, cols: 4, valueCount: 16, patterns: patterns, weightBytes: 0)
        let size = header.count + 16_000 * (1 << 24) * 4 + 8
        let path = directory.file("x.bin")
        writeBytes(header, to: path)
        try #require(truncate(path, off_t(size)) == 0, "this file system has no sparse files")
        let bytes = 16_000 << 26 + 2 << 20  // the weights as mapped: and 2 MiB to align them
        #expect(
            throws: WeightsFileError.tooLarge(
                file: path, shape: "16000 patterns of 6 cells", bytes: bytes, shortfall: .machine(bytes: SystemInfo.physicalMemory))
        ) {
            try WeightsFile.load(from: path)
        }
    }

    /// A 4 KB sparse file whose valid header claims 3.75 GiB: it was allocated and read in full
    /// (3.9 GB resident, 31 s) before its checksum failed. Now it is refused from its blocks.
    @Test func sparseFileWithinMemoryIsRefusedFromItsBlocks() throws {
        let directory = TemporaryDirectory()
        // 60 six-tuples of 16 values: 2^24 weights each, 3.75 GiB.
        let patterns = Array(repeating: (0..<6).map(UInt8.init), count: 60)
        let header = Self.forgedFile(rows: 4, cols: 4, valueCount: 16, patterns: patterns, weightBytes: 0)
        let weightBytes = 60 << 26
        let path = directory.file("x.bin")
        writeBytes(header, to: path)
        try #require(truncate(path, off_t(header.count + weightBytes + 8)) == 0, "this file system has no sparse files")
        let allocated = try #require(FileStatus(path: path)).allocatedBytes
        try #require(allocated < 1 << 20, "this file system allocated the hole")
        let error = #expect(throws: WeightsFileError.self) { try WeightsFile.load(from: path) }
        if weightBytes < SystemInfo.physicalMemory && weightBytes < SystemInfo.cgroupMemoryLimit ?? .max {
            #expect(error == .tooLarge(file: path, shape: "60 patterns of 6 cells", bytes: weightBytes + 2 << 20, shortfall: .sparse(allocated: allocated)))
            #expect(
                error?.description.hasSuffix(
                    "only \(byteSize(allocated)) of the file is on disk (a sparse file), and a saved file is never sparse") == true)
        }
    }

    // MARK: Opening and saving

    @Test func fifoIsRefusedWithoutWaitingForAWriter() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo.bin")
        try #require(mkfifo(path, 0o644) == 0)
        // A blocking open would wait here forever for a writer.
        #expect(throws: WeightsFileError.cannotOpen(file: path, reason: "not a regular file (it is a FIFO)")) {
            try WeightsFile.load(from: path)
        }
    }

    @Test func saveNeverReplacesAFifo() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo.bin")
        try #require(mkfifo(path, 0o644) == 0)
        #expect(throws: WeightsFileError.cannotWrite(file: path, reason: "it is a FIFO, not a regular file; a save only replaces regular files")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(), to: path)
        }
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(directory.names == ["fifo.bin"])
    }

    @Test func saveThroughASymbolicLinkUpdatesTheFileItPointsTo() throws {
        let directory = TemporaryDirectory()
        #expect(mkdir(directory.file("runs"), 0o755) == 0)
        let real = directory.file("runs/7.bin"), link = directory.file("latest.bin")
        try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(games: 1), to: real)
        #expect(symlink("runs/7.bin", link) == 0)
        try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(games: 2), to: link)
        var status = stat()
        #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
        #expect(try WeightsFile.load(from: real).metadata.games == 2)
        #expect(listDirectory(directory.file("runs")) == ["7.bin"])
        // A link to nothing is refused: what it was meant to name is unknown.
        let dangling = directory.file("dangling.bin")
        #expect(symlink("runs/none.bin", dangling) == 0)
        #expect(throws: WeightsFileError.cannotWrite(file: dangling, reason: "it is a symbolic link to a missing file (No such file or directory)")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(), to: dangling)
        }
        #expect(directory.names == ["dangling.bin", "latest.bin", "runs"])
    }

    @Test func missingFileCannotBeOpened() {
        let directory = TemporaryDirectory()
        let path = directory.file("missing.bin")
        #expect(throws: WeightsFileError.cannotOpen(file: path, reason: "No such file or directory")) {
            try WeightsFile.load(from: path)
        }
        #expect(
            WeightsFileError.cannotOpen(file: "weights.bin", reason: "No such file or directory").description
                == "cannot open weights.bin: No such file or directory")
    }

    @Test func directoryCannotBeLoaded() {
        let directory = TemporaryDirectory()
        #expect(throws: WeightsFileError.cannotOpen(file: directory.path, reason: "Is a directory")) {
            try WeightsFile.load(from: directory.path)
        }
    }

    @Test func saveIntoAMissingDirectoryFailsAndLeavesNothing() {
        let directory = TemporaryDirectory()
        let path = directory.file("no/such/dir/weights.bin")
        #expect(throws: WeightsFileError.cannotWrite(file: path, reason: "No such file or directory")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(), to: path)
        }
        #expect(directory.names.isEmpty)
    }

    @Test func directoryTargetIsRefusedAndKeptAsItWas() throws {
        // rename(2) would fail here, but a save refuses any non-regular target before writing.
        let directory = TemporaryDirectory()
        let target = directory.file("weights.bin")
        #expect(mkdir(target, 0o755) == 0)
        writeText("keep", to: "\(target)/inside")
        #expect(throws: WeightsFileError.cannotWrite(file: target, reason: "it is a directory, not a regular file; a save only replaces regular files")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(), to: target)
        }
        #expect(directory.names == ["weights.bin"])
        #expect(listDirectory(target) == ["inside"])
    }

    @Test func failedSaveLeavesTheExistingFileByteIdentical() throws {
        let directory = TemporaryDirectory()
        let (path, before) = try Self.savedTinyFile(in: directory)
        // Every temporary name is already taken (by directories), so the new file cannot be created.
        for attempt in 0..<64 { #expect(mkdir(AtomicFile.temporaryPath(for: path, attempt: attempt), 0o755) == 0) }
        #expect(
            throws: WeightsFileError.cannotWrite(
                file: path, reason: "64 temporary names beside it (\(AtomicFile.temporaryPath(for: path)) and on) are taken")
        ) {
            try WeightsFile.save(Self.makeNetwork(Self.networks[1], seed: 4), metadata: TrainingMetadata(), to: path)
        }
        #expect(readBytes(path) == before)
        for attempt in 0..<64 { rmdir(AtomicFile.temporaryPath(for: path, attempt: attempt)) }
        #expect(directory.names == ["tiny.bin"])
    }

    @Test func aTakenTemporaryNameIsSkippedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let (path, _) = try Self.savedTinyFile(in: directory)
        let blocker = AtomicFile.temporaryPath(for: path)
        #expect(mkdir(blocker, 0o755) == 0)
        try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(games: 5), to: path)
        #expect(try WeightsFile.load(from: path).metadata.games == 5)
        #expect(rmdir(blocker) == 0)
        #expect(directory.names == ["tiny.bin"])
    }

    @Test(.enabled(if: getuid() != 0, "root writes into read-only directories"))
    func saveIntoAReadOnlyDirectoryLeavesTheExistingFile() throws {
        let directory = TemporaryDirectory()
        let (path, before) = try Self.savedTinyFile(in: directory)
        #expect(chmod(directory.path, 0o555) == 0)
        defer { chmod(directory.path, 0o755) }
        #expect(throws: WeightsFileError.cannotWrite(file: path, reason: "Permission denied")) {
            try WeightsFile.save(Self.tinyNetwork(), metadata: TrainingMetadata(games: 9), to: path)
        }
        #expect(readBytes(path) == before)
        #expect(directory.names == ["tiny.bin"])
    }

    @Test func networkTheFormatCannotHoldIsRefusedBeforeWriting() {
        let directory = TemporaryDirectory()
        let path = directory.file("big.bin")
        let network = NTupleNetwork(rows: 9, cols: 2, patterns: [TuplePattern(cells: [0, 1])], valueCount: 4)
        #expect(throws: WeightsFileError.unsupportedNetwork(file: path, reason: "the board has 9 rows; boards have 2 to 8")) {
            try WeightsFile.save(network, metadata: TrainingMetadata(), to: path)
        }
        #expect(directory.names.isEmpty)
    }

    // MARK: Messages

    static let messages: [(WeightsFileError, String)] = [
        (.cannotOpen(file: "weights.bin", reason: "No such file or directory"), "cannot open weights.bin: No such file or directory"),
        (.cannotRead(file: "x.bin", reason: "Input/output error"), "cannot read x.bin: Input/output error"),
        (.notAWeightsFile(file: "x.bin"), "x.bin: not a Gym2048 weights file (bad magic)"),
        (.unsupportedVersion(file: "x.bin", version: 7), "x.bin: format version 7; this build reads versions 1 to 6"),
        (.truncatedHeader(file: "x.bin", needed: 112, found: 50), "x.bin: truncated: the header needs 112 bytes, the file has 50"),
        (
            .truncated(file: "x.bin", shape: "4 patterns of 6 cells", expected: 268_435_576, found: 12_000),
            "x.bin: truncated: the header says 4 patterns of 6 cells, 268435576 bytes (256 MiB); the file has 12000 bytes (12 KiB)"
        ),
        (.trailingBytes(file: "x.bin", expected: 1000, found: 1004), "x.bin: 4 bytes after the checksum: the header says 1000 bytes, the file has 1004"),
        (
            .tooLarge(file: "x.bin", shape: "16000 patterns of 6 cells", bytes: 16000 << 26, shortfall: .machine(bytes: 8 << 30)),
            "x.bin: the header says 16000 patterns of 6 cells, 1000 GiB to load; this machine has 8 GiB of memory"
        ),
        (
            .invalidHeader(file: "x.bin", reason: "the board has 99 rows; boards have 2 to 8"),
            "x.bin: invalid header: the board has 99 rows; boards have 2 to 8"
        ),
        (.invalidWeight(file: "x.bin", index: 17, value: .nan), "x.bin: weight 17 is nan; weights must be finite numbers within ±1e+30"),
        (.checksumMismatch(file: "x.bin"), "x.bin: corrupted: checksum mismatch"),
        (
            .unsupportedNetwork(file: "x.bin", reason: "the board has 9 rows; boards have 2 to 8"),
            "cannot write x.bin: the network does not fit the format: the board has 9 rows; boards have 2 to 8"
        ),
        (
            .unsupportedContents(file: "x.bin", reason: "trained games is -1; it must be 0 to 2^53 (9007199254740992)"),
            "cannot write x.bin: trained games is -1; it must be 0 to 2^53 (9007199254740992)"
        ),
        (.cannotWrite(file: "x.bin", reason: "No space left on device"), "cannot write x.bin: No space left on device"),
    ]

    @Test(arguments: messages)
    func errorDescriptionIsOneLineNamingTheFile(error: WeightsFileError, description: String) {
        #expect(error.description == description)
        #expect(error.file == "weights.bin" || error.file == "x.bin")
        #expect(!error.description.contains("\n"))
    }
}
