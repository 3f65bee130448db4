#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Game2048

#if !_endian(little)
#error("WeightsFile copies weights in memory order, and the format is little-endian")
#endif

/// Saves and loads an ``NTupleNetwork`` with its training metadata, in a
/// versioned, checksummed binary file.
///
///     try WeightsFile.save(network, metadata: metadata, to: "weights.bin")
///     let (network, metadata) = try WeightsFile.load(from: "weights.bin")
///
/// The format (little-endian: magic, version, header length, a header with the
/// board, the patterns and the training metadata, the weights, a checksum),
/// what a load checks and in which order, and how a save stays atomic are
/// described once, in <doc:WEIGHTS>. A load checks the header and the file
/// size it implies before it allocates anything, so a malicious or damaged
/// header costs a few bytes of reading, never a large allocation.
///
/// - Complexity: O(W) for both save and load, in a single pass of large
///   sequential reads or writes; the checksum is computed on each chunk while
///   it is in cache.
public enum WeightsFile {
    /// The eight bytes every weights file starts with: "G2048NT" and Ctrl-Z
    /// (which stops `type` on Windows and marks the file as binary).
    public static let magic: [UInt8] = Array("G2048NT\u{1A}".utf8)

    /// The newest format version this build writes and reads (it reads every version from 1).
    public static let formatVersion: UInt32 = 2

    /// The element type code of Float32 weights.
    static let float32ElementType: UInt8 = 1

    /// The preamble: magic, version, header length.
    static let preambleSize = 16

    /// The bytes of the trailing checksum.
    static let checksumSize = 8

    /// The bytes read, written and checksummed at a time.
    static let chunkSize = 8 << 20

    /// Writes `network` and `metadata` to `path`, atomically.
    ///
    ///     let metadata = TrainingMetadata(games: 100_000, moves: 90_000_000, seed: 1, alpha: 0.1)
    ///     try WeightsFile.save(learner.network, metadata: metadata, to: "weights.bin")
    ///
    /// The file is written as `<path>.tmp-<pid>` in the same directory, synced
    /// to disk and renamed over `path`, and the directory is synced, so `path`
    /// holds either the old file or the complete new one, even after a crash.
    ///
    /// Saving while training threads update the weights is safe: each chunk is
    /// copied before it is checksummed and written, so the file is always
    /// consistent, though its chunks come from slightly different moments.
    ///
    /// - Parameters:
    ///   - network: the network; its shape must fit the format (rows and columns
    ///     2 to 8, 2 to 65 535 values a cell, 1 to 65 535 patterns).
    ///   - metadata: how the weights were trained.
    ///   - path: the file to create or replace.
    /// - Throws: ``WeightsFileError/unsupportedNetwork(file:reason:)`` for a
    ///   network the format cannot describe,
    ///   ``WeightsFileError/unsupportedContents(file:reason:)`` for metadata or a
    ///   weight that a load would refuse (a diverged network's NaN, say), or
    ///   ``WeightsFileError/cannotWrite(file:reason:)`` with the system's reason
    ///   (also when `path` is a directory, a device, a FIFO or a socket, which a
    ///   save never replaces);
    ///   in both cases an existing file at `path` is untouched and no temporary
    ///   file is left behind. (One exception: if only the final sync of the
    ///   directory fails, the new file is already in place, and the error is
    ///   still reported because the rename might not survive a crash.)
    /// - Complexity: O(W), W the number of weights.
    public static func save(_ network: NTupleNetwork, metadata: TrainingMetadata, to path: String) throws(WeightsFileError) {
        let layout = NetworkLayout(network)
        if let problem = layout.problem() { throw .unsupportedNetwork(file: path, reason: problem) }
        // Refused here rather than written: every file a save makes must load.
        if let problem = metadata.problem() { throw .unsupportedContents(file: path, reason: problem) }
        let prefix = encodePrefix(layout, metadata: metadata)
        // The weights and the header must agree even if a stage is promoted during the save.
        let weightCount = layout.weightCount
        var checksum = Checksum64()
        var unusableWeight: (index: Int, value: Float)? = nil
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(to: path) { (file: inout AtomicFile.Sink) throws(AtomicFile.Failure) in
                prefix.withUnsafeBytes { checksum.update($0) }
                try file.write(prefix)
                // Each chunk is copied before it is checksummed and written: training
                // threads may still be updating the weights, and the checksum must
                // describe exactly the bytes that reach the file.
                assert(weightCount == network.weights.count)
                var buffer = [UInt8](repeating: 0, count: min(chunkSize, network.weights.count * MemoryLayout<Float>.stride))
                let failure: AtomicFile.Failure? = network.weights.withBytes { weights -> AtomicFile.Failure? in
                    buffer.withUnsafeMutableBytes { copy in
                        var start = 0
                        while start < weights.count {
                            let count = min(chunkSize, weights.count - start)
                            let chunk = UnsafeMutableRawBufferPointer(rebasing: copy[0..<count])
                            chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: weights[start..<(start + count)]))
                            checksum.update(UnsafeRawBufferPointer(chunk))
                            if let bad = firstUnusableWeight(in: UnsafeRawBufferPointer(chunk)) {
                                let index = start / MemoryLayout<Float>.stride + bad
                                let value = chunk.loadUnaligned(fromByteOffset: bad * 4, as: Float.self)
                                unusableWeight = (index, value)
                                return AtomicFile.Failure(reason: "weight \(index) is \(value)")
                            }
                            do throws(AtomicFile.Failure) { try file.write(UnsafeRawBufferPointer(chunk)) } catch { return error }
                            start += count
                        }
                        return nil
                    }
                }
                if let failure { throw failure }
                var trailer = ByteWriter()
                trailer.append(checksum.finalize())
                try file.write(trailer.bytes)
            }
        } catch {
            if let (index, value) = unusableWeight {
                throw .unsupportedContents(
                    file: path, reason: "weight \(index) is \(value); weights must be finite numbers within ±\(maxWeightMagnitude)")
            }
            throw .cannotWrite(file: path, reason: error.reason)
        }
    }

    /// Reads a network and its training metadata from `path`.
    ///
    ///     let (network, metadata) = try WeightsFile.load(from: "weights.bin")
    ///     print("trained on \(metadata.games) games")
    ///
    /// Every check that needs no weights runs before the network is allocated:
    /// see the type's description for the order.
    ///
    /// - Parameter path: the file to read.
    /// - Returns: the network, with the shape and weights saved, and the metadata.
    /// - Throws: ``WeightsFileError`` naming the file and what is wrong with it:
    ///   it cannot be opened or read, is not a weights file, has another format
    ///   version, an invalid header, the wrong length, or a checksum mismatch.
    /// - Complexity: O(W), W the number of weights.
    public static func load(from path: String) throws(WeightsFileError) -> (network: NTupleNetwork, metadata: TrainingMetadata) {
        // Non-blocking, and checked on the descriptor: a FIFO given as the file would otherwise hang here.
        let opened: (descriptor: Int32, status: FileStatus)
        do throws(OpenFailure) { opened = try openRegularFile(path) } catch { throw .cannotOpen(file: path, reason: error.reason) }
        let file = opened.descriptor, size = opened.status.size
        defer { close(file) }
        #if os(Linux)
        _ = posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        var reader = FileReader(descriptor: file, path: path)

        // Magic and version come first, so a foreign or newer file is named as such.
        let preamble = try reader.read(count: min(size, preambleSize))
        if preamble.count < magic.count {
            if !preamble.isEmpty && preamble == Array(magic.prefix(preamble.count)) {
                throw .truncatedHeader(file: path, needed: preambleSize, found: size)
            }
            throw .notAWeightsFile(file: path)
        }
        guard Array(preamble.prefix(magic.count)) == magic else { throw .notAWeightsFile(file: path) }
        guard preamble.count == preambleSize else { throw .truncatedHeader(file: path, needed: preambleSize, found: size) }
        var fields = ByteReader(preamble, from: magic.count)
        let version = fields.uint32()!
        guard (1...formatVersion).contains(version) else { throw .unsupportedVersion(file: path, version: version) }
        let headerLength = Int(fields.uint32()!)
        let lengthRange = NetworkLayout.headerLengthRange(version: version)
        guard lengthRange.contains(headerLength) else {
            throw .invalidHeader(
                file: path,
                reason: "the header length is \(headerLength) bytes; it must be \(lengthRange.lowerBound) to \(lengthRange.upperBound)")
        }
        guard size >= preambleSize + headerLength else {
            throw .truncatedHeader(file: path, needed: preambleSize + headerLength, found: size)
        }

        // The header, validated before anything is allocated for the weights.
        let header = try reader.read(count: headerLength)
        let decoded: DecodedHeader
        do throws(HeaderProblem) {
            decoded = try decodeHeader(header, version: version)
        } catch {
            throw .invalidHeader(file: path, reason: error.reason)
        }
        let layout = decoded.layout
        // The layout's checks bound every table to 2^26 weights and the count to 65 535, so this cannot overflow.
        let weightBytes = layout.weightCount * MemoryLayout<Float>.stride
        let expectedSize = preambleSize + headerLength + weightBytes + checksumSize
        guard size >= expectedSize else {
            throw .truncated(file: path, shape: layout.shapeDescription, expected: expectedSize, found: size)
        }
        guard size == expectedSize else { throw .trailingBytes(file: path, expected: expectedSize, found: size) }
        // A sparse file can have the size its header claims without the disk space; the
        // allocation would still be real. Refuse what this machine could not hold.
        guard weightBytes <= memoryLimit else {
            throw .tooLarge(file: path, shape: layout.shapeDescription, bytes: weightBytes, limit: memoryLimit)
        }

        let network = NTupleNetwork(
            rows: layout.rows, cols: layout.cols, patterns: layout.patterns, valueCount: layout.valueCount,
            stageThresholds: layout.stageThresholds, promoted: layout.promoted)
        guard network.symmetryCount == layout.symmetryCount, network.valueCount == layout.valueCount,
            network.weights.count == layout.weightCount
        else {
            throw .invalidHeader(
                file: path,
                reason: "the header describes \(layout.symmetryCount) symmetries and \(layout.weightCount) weights, the network has \(network.symmetryCount) and \(network.weights.count)")
        }

        var checksum = Checksum64()
        preamble.withUnsafeBytes { checksum.update($0) }
        header.withUnsafeBytes { checksum.update($0) }
        var firstBadWeight: Int? = nil
        let failure: WeightsFileError? = network.weights.withMutableBytes { weights in
            var start = 0
            while start < weights.count {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: weights[start..<min(start + chunkSize, weights.count)])
                do throws(WeightsFileError) { try reader.read(into: chunk) } catch { return error }
                checksum.update(UnsafeRawBufferPointer(chunk))
                if firstBadWeight == nil, let bad = firstUnusableWeight(in: UnsafeRawBufferPointer(chunk)) {
                    firstBadWeight = start / MemoryLayout<Float>.stride + bad
                }
                start += chunk.count
            }
            return nil
        }
        if let failure { throw failure }
        var stored = ByteReader(try reader.read(count: checksumSize), from: 0)
        guard stored.uint64()! == checksum.finalize() else { throw .checksumMismatch(file: path) }
        // Past the checksum, a bad value is no accident: it was written (or forged) so.
        let metadata: TrainingMetadata
        do throws(HeaderProblem) {
            metadata = try decoded.metadata()
        } catch {
            throw .invalidHeader(file: path, reason: error.reason)
        }
        if let index = firstBadWeight {
            throw .invalidWeight(file: path, index: index, value: network.weights[index])
        }
        return (network, metadata)
    }

    /// The most bytes of weights a load allocates: this machine's physical memory.
    static var memoryLimit: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return Int.max }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? Int.max : pages * pageSize
    }

    /// The largest magnitude a weight may have: the sum of the most features a
    /// network reads (65 535 patterns × 8 symmetries) stays far from overflowing a Float.
    public static let maxWeightMagnitude: Float = 1e30

    /// The index of the first weight in `bytes` that is not a finite number within
    /// ±``maxWeightMagnitude``, or `nil`.
    static func firstUnusableWeight(in bytes: UnsafeRawBufferPointer) -> Int? {
        let limit = maxWeightMagnitude.bitPattern
        // NaN and infinity have the largest magnitude bit patterns, so one comparison covers them.
        for index in 0..<(bytes.count / 4) {
            let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            if bits & 0x7FFF_FFFF > limit { return index }
        }
        return nil
    }

    /// The checksum the format uses, of `bytes`.
    ///
    ///     WeightsFile.checksum(of: Array("abc".utf8))
    ///
    /// The bytes are read as little-endian 64-bit words (the last one padded with
    /// zero bytes), dealt in turn to four lanes so that four multiplications run
    /// at once. Each lane absorbs a word `w` as
    ///
    ///     h = (h ^ w) &* 0x9E3779B97F4A7C15;  h ^= h >> 32
    ///
    /// starting from the lane's seed (the first four outputs of
    /// `SplitMix64(seed: 0x4732_3034_384E_541A)`, the magic as a number). At
    /// the end the lanes are folded into one value with the same step, then the
    /// byte length, and the result goes through SplitMix64's finalizer.
    ///
    /// For a fixed `h` the step is a bijection of `w`, and for a fixed `w` a
    /// bijection of `h` (xor, multiplication by an odd constant and `h ^= h >> 32`
    /// are all invertible), and so is every later step. So two inputs of the same
    /// length that differ within one 8-byte word (a flipped bit, a torn byte)
    /// always have different checksums; other damage goes unnoticed with
    /// probability about 2^-64. It is a checksum against accidents, not a
    /// cryptographic hash.
    ///
    /// - Complexity: O(n), in four independent multiply chains: a few GB/s, a
    ///   small part of the time a load spends copying the file into memory.
    public static func checksum(of bytes: [UInt8]) -> UInt64 {
        var checksum = Checksum64()
        bytes.withUnsafeBytes { checksum.update($0) }
        return checksum.finalize()
    }
}

// MARK: - Training metadata

/// How the weights in a file were trained: what `g2048 train` needs to resume,
/// and what `g2048 eval` reports.
///
///     let metadata = TrainingMetadata(games: 100_000, moves: 90_000_000, seed: 1, alpha: 0.1,
///                                     elapsedSeconds: 3_600, spawnFourProbability: rules.spawnFourProbability)
///
/// The values are stored as given; the file format fixes their widths
/// (`games`, `moves` and `seed` 64 bits, `rulesVersion` 32 bits, the rest Float64).
public struct TrainingMetadata: Hashable, Sendable {
    /// Games trained, in total over every run.
    public var games: Int
    /// Moves played in those games.
    public var moves: Int
    /// The seed of the training run.
    public var seed: UInt64
    /// The learning rate (before it is split over the features).
    public var alpha: Double
    /// The value every weight started at (optimistic initialization when above 0).
    public var initialValue: Double
    /// Wall-clock seconds spent training, in total over every run.
    public var elapsedSeconds: Double
    /// `Rules.version` of the rules the games were played under.
    public var rulesVersion: Int
    /// The spawn probability of a 4 in those games.
    public var spawnFourProbability: Double
    /// How the weights learn (format version 2; a version 1 file is ``LearningMethod/td``).
    public var learning: LearningMethod = .td
    /// TC's meta learning rate β (for ``LearningMethod/tc`` and ``LearningMethod/otdThenTC``).
    public var coherenceAlpha: Double = 1
    /// For ``LearningMethod/otdThenTC``: the fraction of the run (its games, else its seconds) after which TC takes over.
    public var coherenceFrom: Double = 0.5
    /// For ``LearningMethod/otdThenTC``: whether TC has taken over (a resumed run continues in TC).
    public var coherenceStarted: Bool = false

    /// Creates metadata; every parameter has the value of a fresh, untrained network.
    public init(
        games: Int = 0, moves: Int = 0, seed: UInt64 = 0, alpha: Double = 0.1, initialValue: Double = 0,
        elapsedSeconds: Double = 0, rulesVersion: Int = Rules.version, spawnFourProbability: Double = 0.1
    ) {
        self.games = games
        self.moves = moves
        self.seed = seed
        self.alpha = alpha
        self.initialValue = initialValue
        self.elapsedSeconds = elapsedSeconds
        self.rulesVersion = rulesVersion
        self.spawnFourProbability = spawnFourProbability
    }

    /// The most games or moves a file may count: 2^53. Far beyond any run, and
    /// far enough from `Int.max` that a resumed run cannot overflow its counters;
    /// exact as a `Double` too.
    public static let maxCount = 1 << 53

    /// The most training seconds a file may count: 10^12 (some 31 700 years).
    public static let maxElapsedSeconds = 1e12

    /// What a load would refuse in these values, in words, or `nil` when all are usable:
    /// counts from 0 to ``maxCount``, seconds from 0 to ``maxElapsedSeconds``, a finite
    /// learning rate of 0 or more, a finite initial value, a known rules version and a
    /// probability from 0 to 1.
    public func problem() -> String? {
        let countRange = 0...TrainingMetadata.maxCount
        guard countRange.contains(games) else { return "trained games is \(games); it must be 0 to 2^53 (\(TrainingMetadata.maxCount))" }
        guard countRange.contains(moves) else { return "trained moves is \(moves); it must be 0 to 2^53 (\(TrainingMetadata.maxCount))" }
        guard (0...TrainingMetadata.maxElapsedSeconds).contains(elapsedSeconds) else {
            return "training time is \(elapsedSeconds) seconds; it must be 0 to \(TrainingMetadata.maxElapsedSeconds)"
        }
        guard alpha.isFinite && alpha >= 0 else { return "the learning rate is \(alpha); it must be a finite number, 0 or more" }
        guard initialValue.isFinite else { return "the initial value is \(initialValue); it must be a finite number" }
        guard (1...Rules.version).contains(rulesVersion) else {
            return "rules version \(rulesVersion) is unknown; this build knows rules version\(Rules.version == 1 ? "" : "s 1 to") \(Rules.version)"
        }
        guard (0...1).contains(spawnFourProbability) else {
            return "the probability of a 4 is \(spawnFourProbability); it must be 0 to 1"
        }
        guard coherenceAlpha.isFinite && coherenceAlpha >= 0 else {
            return "the TC learning rate is \(coherenceAlpha); it must be a finite number, 0 or more"
        }
        guard (0...1).contains(coherenceFrom) else { return "the TC switch point is \(coherenceFrom); it must be 0 to 1" }
        guard !coherenceStarted || learning == .otdThenTC else {
            return "TC is marked started, but the learning method is \(learning.rawValue); only otd+tc switches to TC"
        }
        return nil
    }
}

// MARK: - Errors

/// Why a weights file could not be saved or loaded.
///
///     do { _ = try WeightsFile.load(from: "x.bin") } catch { print("error: \(error)") }
///     // error: x.bin: format version 7; this build reads versions 1 to 2
///
/// Each case names the file as the caller spelled it, and ``description`` is
/// one line without a trailing period, ready to follow "error: ": the file,
/// then what is wrong with it in words.
public enum WeightsFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be opened: "cannot open weights.bin: No such file or directory".
    case cannotOpen(file: String, reason: String)
    /// Reading failed after the file was opened: "cannot read x.bin: Input/output error".
    case cannotRead(file: String, reason: String)
    /// The file does not start with ``WeightsFile/magic``: "x.bin: not a Gym2048 weights file (bad magic)".
    case notAWeightsFile(file: String)
    /// Another format version: "x.bin: format version 7; this build reads versions 1 to 2".
    case unsupportedVersion(file: String, version: UInt32)
    /// The file ends inside its header: "x.bin: truncated: the header needs 112 bytes, the file has 50".
    case truncatedHeader(file: String, needed: Int, found: Int)
    /// The file is shorter than its header implies:
    /// "x.bin: truncated: the header says 4 patterns of 6 cells, 268435576 bytes (256 MiB); the file has 1000 bytes (1000 bytes)".
    case truncated(file: String, shape: String, expected: Int, found: Int)
    /// The file is longer than its header implies:
    /// "x.bin: 4 bytes after the checksum: the header says 1000 bytes, the file has 1004".
    case trailingBytes(file: String, expected: Int, found: Int)
    /// The header describes more weights than this machine has memory:
    /// "x.bin: the header says 16000 patterns of 6 cells, 1 TiB of weights; this machine has 8 GiB of memory".
    case tooLarge(file: String, shape: String, bytes: Int, limit: Int)
    /// A header value this build cannot use: "x.bin: invalid header: the board has 99 rows; boards have 2 to 8".
    case invalidHeader(file: String, reason: String)
    /// A weight that is not a finite number within ±``WeightsFile/maxWeightMagnitude``:
    /// "x.bin: weight 17 is nan; weights must be finite numbers within ±1e+30".
    case invalidWeight(file: String, index: Int, value: Float)
    /// The checksum does not match the contents: "x.bin: corrupted: checksum mismatch".
    case checksumMismatch(file: String)
    /// A network the format cannot describe:
    /// "cannot write x.bin: the network does not fit the format: the board has 9 rows; boards have 2 to 8".
    case unsupportedNetwork(file: String, reason: String)
    /// Training metadata, or weights, that a load would refuse:
    /// "cannot write x.bin: trained games is -1; it must be 0 to 2^53".
    case unsupportedContents(file: String, reason: String)
    /// Creating, writing, syncing or renaming failed: "cannot write x.bin: No space left on device".
    case cannotWrite(file: String, reason: String)

    /// The file the error is about, as the caller named it.
    public var file: String {
        switch self {
        case .cannotOpen(let file, _), .cannotRead(let file, _), .notAWeightsFile(let file),
            .unsupportedVersion(let file, _), .truncatedHeader(let file, _, _), .truncated(let file, _, _, _),
            .trailingBytes(let file, _, _), .tooLarge(let file, _, _, _), .invalidHeader(let file, _),
            .invalidWeight(let file, _, _), .checksumMismatch(let file),
            .unsupportedNetwork(let file, _), .unsupportedContents(let file, _), .cannotWrite(let file, _):
            file
        }
    }

    /// The problem in one line, naming the file.
    public var description: String {
        switch self {
        case .cannotOpen(let file, let reason): "cannot open \(file): \(reason)"
        case .cannotRead(let file, let reason): "cannot read \(file): \(reason)"
        case .notAWeightsFile(let file): "\(file): not a Gym2048 weights file (bad magic)"
        case .unsupportedVersion(let file, let version):
            "\(file): format version \(version); this build reads versions 1 to \(WeightsFile.formatVersion)"
        case .truncatedHeader(let file, let needed, let found):
            "\(file): truncated: the header needs \(needed) bytes, the file has \(found)"
        case .truncated(let file, let shape, let expected, let found):
            "\(file): truncated: the header says \(shape), \(expected) bytes (\(byteSize(expected))); "
                + "the file has \(found) bytes (\(byteSize(found)))"
        case .trailingBytes(let file, let expected, let found):
            "\(file): \(found - expected) bytes after the checksum: the header says \(expected) bytes, the file has \(found)"
        case .tooLarge(let file, let shape, let bytes, let limit):
            "\(file): the header says \(shape), \(byteSize(bytes)) of weights; this machine has \(byteSize(limit)) of memory"
        case .invalidHeader(let file, let reason): "\(file): invalid header: \(reason)"
        case .invalidWeight(let file, let index, let value):
            "\(file): weight \(index) is \(value); weights must be finite numbers within ±\(WeightsFile.maxWeightMagnitude)"
        case .checksumMismatch(let file): "\(file): corrupted: checksum mismatch"
        case .unsupportedNetwork(let file, let reason):
            "cannot write \(file): the network does not fit the format: \(reason)"
        case .unsupportedContents(let file, let reason): "cannot write \(file): \(reason)"
        case .cannotWrite(let file, let reason): "cannot write \(file): \(reason)"
        }
    }
}

/// A byte count for people: "87 bytes", "12 KiB", "256 MiB", "1.5 TiB".
func byteSize(_ bytes: Int) -> String {
    guard bytes >= 1024 else { return "\(bytes) bytes" }
    var value = Double(bytes)
    var unit = 0
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    // One decimal below 10, none above: "1.5 TiB", "256 MiB".
    let tenths = Int((value * 10).rounded())
    let text = tenths < 100 ? "\(tenths / 10).\(tenths % 10)" : "\((tenths + 5) / 10)"
    return "\(text.hasSuffix(".0") ? String(text.dropLast(2)) : text) \(units[unit])"
}

// MARK: - Header

/// The shape of a network as the header stores it.
struct NetworkLayout: Hashable {
    var rows: Int
    var cols: Int
    var valueCount: Int
    var symmetryCount: Int
    var patterns: [TuplePattern]
    /// The stage thresholds (tile exponents); empty for one stage.
    var stageThresholds: [UInt8] = []
    /// Whether each stage from 1 on is promoted.
    var promoted: [Bool] = []

    /// The fixed fields before the patterns: rows, cols, valueCount, element type, symmetries, pattern count.
    static let fixedSize = 8
    /// The metadata after the patterns.
    static let metadataSize = 60
    /// The most patterns the UInt16 count holds.
    static let maxPatterns = Int(UInt16.max)
    /// From no patterns (refused later, with its own message) to the most patterns of 64 cells (an 8×8 board).
    static let headerLengthRange = (fixedSize + metadataSize)...(fixedSize + maxPatterns * 65 + metadataSize)
    /// Version 2's fields after the metadata, without the thresholds and promoted flags.
    static let trainingSize = 1 + 1 + 1 + 8 + 8

    /// The header lengths a file of `version` may have.
    static func headerLengthRange(version: UInt32) -> ClosedRange<Int> {
        guard version >= 2 else { return headerLengthRange }
        let most = trainingSize + 2 * (NTupleNetwork.maxStages - 1)
        return (headerLengthRange.lowerBound + trainingSize)...(headerLengthRange.upperBound + most)
    }
    /// The most values a cell may have: ``NTupleNetwork`` caps exponents in a byte.
    static let maxValueCount = 256

    init(rows: Int, cols: Int, valueCount: Int, symmetryCount: Int, patterns: [TuplePattern],
         stageThresholds: [UInt8] = [], promoted: [Bool] = []) {
        self.rows = rows
        self.cols = cols
        self.valueCount = valueCount
        self.symmetryCount = symmetryCount
        self.patterns = patterns
        self.stageThresholds = stageThresholds
        self.promoted = promoted
    }

    init(_ network: NTupleNetwork) {
        self.init(
            rows: network.rows, cols: network.cols, valueCount: network.valueCount,
            symmetryCount: network.symmetryCount, patterns: network.patterns,
            stageThresholds: network.stageThresholds, promoted: network.promoted)
    }

    /// The number of weights, every stage's; meaningful once ``problem()`` is `nil`.
    var weightCount: Int { patterns.reduce(0) { $0 + $1.tableSize(valueCount: valueCount) } * (stageThresholds.count + 1) }

    /// The format version a file of this layout and `learning` needs: 1 when version 1 can say it all.
    func version(learning: LearningMethod) -> UInt32 { stageThresholds.isEmpty && learning == .td ? 1 : 2 }

    /// The header's length in bytes, in format `version`.
    func headerLength(version: UInt32) -> Int {
        NetworkLayout.fixedSize + patterns.reduce(0) { $0 + 1 + $1.cells.count } + NetworkLayout.metadataSize
            + (version >= 2 ? NetworkLayout.trainingSize + 2 * stageThresholds.count : 0)
    }

    /// The header's length in bytes, in format version 1.
    var headerLength: Int { headerLength(version: 1) }

    /// The patterns in words: "4 patterns of 6 cells", "3 patterns of 2 to 4 cells".
    var shapeDescription: String {
        let sizes = patterns.map(\.cells.count)
        let (low, high) = (sizes.min() ?? 0, sizes.max() ?? 0)
        let cells = low == high ? "\(low) cell\(low == 1 ? "" : "s")" : "\(low) to \(high) cells"
        let stages = stageThresholds.isEmpty ? "" : " in \(stageThresholds.count + 1) stages"
        return "\(patterns.count) pattern\(patterns.count == 1 ? "" : "s") of \(cells)\(stages)"
    }

    /// What makes this shape impossible, or `nil` when a network can have it.
    ///
    /// Every size is checked without overflow, so the reason is found before
    /// anything is allocated for the weights.
    func problem() -> String? {
        let sizes = Rules.sizeRange
        guard sizes.contains(rows) else { return "the board has \(rows) rows; boards have \(sizes.lowerBound) to \(sizes.upperBound)" }
        guard sizes.contains(cols) else { return "the board has \(cols) columns; boards have \(sizes.lowerBound) to \(sizes.upperBound)" }
        // 4×4 networks read the packed bitboard, four bits a cell.
        let maxValues = rows == 4 && cols == 4 ? 16 : NetworkLayout.maxValueCount
        guard (2...maxValues).contains(valueCount) else {
            return "\(valueCount) values per cell; a \(rows)x\(cols) board allows 2 to \(maxValues)"
        }
        let symmetries = rows == cols ? 8 : 4
        guard symmetryCount == symmetries else {
            return "\(symmetryCount) symmetries; a \(rows)x\(cols) board has \(symmetries)"
        }
        guard (1...NetworkLayout.maxPatterns).contains(patterns.count) else {
            return "\(patterns.count) patterns; a network has 1 to \(NetworkLayout.maxPatterns)"
        }
        let cells = rows * cols
        for (index, pattern) in patterns.enumerated() {
            let number = index + 1
            guard (1...cells).contains(pattern.cells.count) else {
                return "pattern \(number) has \(pattern.cells.count) cells; a \(rows)x\(cols) board allows 1 to \(cells)"
            }
            if let cell = pattern.cells.first(where: { !(0..<cells).contains($0) }) {
                return "pattern \(number) has cell \(cell), outside a \(rows)x\(cols) board (cells 0...\(cells - 1))"
            }
            var size = 1
            for _ in pattern.cells {
                size *= valueCount
                guard size <= TuplePattern.maxTableSize else {
                    return "pattern \(number) has \(pattern.cells.count) cells: \(valueCount)^\(pattern.cells.count) weights is more than 2^26"
                }
            }
        }
        if let problem = NTupleNetwork.stageProblem(stageThresholds, rows: rows, cols: cols) { return problem }
        guard promoted.count == stageThresholds.count else {
            return "\(promoted.count) promoted flags for \(stageThresholds.count + 1) stages; one per stage after the first"
        }
        return nil
    }
}

/// Why a header was refused, as the text after "has an invalid header: ".
struct HeaderProblem: Error {
    var reason: String
}

extension WeightsFile {
    /// The magic, version, header length and header of a file for `layout`.
    ///
    /// - Precondition: `layout.problem()` is `nil`; the metadata's counts fit their fields.
    static func encodePrefix(_ layout: NetworkLayout, metadata: TrainingMetadata) -> [UInt8] {
        precondition(metadata.games >= 0 && metadata.moves >= 0, "games and moves must be 0 or more, got \(metadata.games) and \(metadata.moves)")
        precondition((0...Int(UInt32.max)).contains(metadata.rulesVersion), "rulesVersion \(metadata.rulesVersion) does not fit in 32 bits")
        let version = layout.version(learning: metadata.learning)
        var bytes = ByteWriter()
        bytes.append(magic)
        bytes.append(version)
        bytes.append(UInt32(layout.headerLength(version: version)))
        bytes.append(UInt8(layout.rows))
        bytes.append(UInt8(layout.cols))
        bytes.append(UInt16(layout.valueCount))
        bytes.append(float32ElementType)
        bytes.append(UInt8(layout.symmetryCount))
        bytes.append(UInt16(layout.patterns.count))
        for pattern in layout.patterns {
            bytes.append(UInt8(pattern.cells.count))
            for cell in pattern.cells { bytes.append(UInt8(cell)) }
        }
        bytes.append(UInt64(metadata.games))
        bytes.append(UInt64(metadata.moves))
        bytes.append(metadata.seed)
        bytes.append(metadata.alpha.bitPattern)
        bytes.append(metadata.initialValue.bitPattern)
        bytes.append(metadata.elapsedSeconds.bitPattern)
        bytes.append(UInt32(metadata.rulesVersion))
        bytes.append(metadata.spawnFourProbability.bitPattern)
        if version >= 2 {
            bytes.append(UInt8(layout.stageThresholds.count + 1))
            for threshold in layout.stageThresholds { bytes.append(threshold) }
            for flag in layout.promoted { bytes.append(UInt8(flag ? 1 : 0)) }
            bytes.append(metadata.learning.code)
            bytes.append(UInt8(metadata.coherenceStarted ? 1 : 0))
            bytes.append(metadata.coherenceAlpha.bitPattern)
            bytes.append(metadata.coherenceFrom.bitPattern)
        }
        assert(bytes.bytes.count == preambleSize + layout.headerLength(version: version))
        return bytes.bytes
    }

    /// The layout and metadata in `header` (the bytes after the preamble), with the layout validated.
    ///
    /// The metadata's counts are checked later, by ``DecodedHeader/metadata()``,
    /// once the checksum has vouched for them: a flipped bit there is corruption,
    /// and should be reported as such.
    static func decodeHeader(_ header: [UInt8], version: UInt32 = 1) throws(HeaderProblem) -> DecodedHeader {
        var fields = ByteReader(header, from: 0)
        let short = HeaderProblem(reason: "header length \(header.count) is too short for its contents")
        guard let rows = fields.uint8(), let cols = fields.uint8(), let valueCount = fields.uint16(),
            let elementType = fields.uint8(), let symmetryCount = fields.uint8(), let patternCount = fields.uint16()
        else { throw short }
        guard elementType == float32ElementType else {
            throw HeaderProblem(reason: "element type \(elementType) is unknown (1 = Float32)")
        }
        var patterns: [TuplePattern] = []
        for _ in 0..<Int(patternCount) {
            guard let count = fields.uint8(), let cells = fields.bytes(Int(count)) else { throw short }
            patterns.append(TuplePattern(cells: cells.map(Int.init)))
        }
        var layout = NetworkLayout(
            rows: Int(rows), cols: Int(cols), valueCount: Int(valueCount), symmetryCount: Int(symmetryCount),
            patterns: patterns)
        if let problem = layout.problem() { throw HeaderProblem(reason: problem) }
        guard let games = fields.uint64(), let moves = fields.uint64(), let seed = fields.uint64(),
            let alpha = fields.uint64(), let initialValue = fields.uint64(), let elapsed = fields.uint64(),
            let rulesVersion = fields.uint32(), let spawnFour = fields.uint64()
        else { throw short }
        var training = TrainingMetadata()
        if version >= 2 {
            guard let stageCount = fields.uint8() else { throw short }
            guard (1...NTupleNetwork.maxStages).contains(Int(stageCount)) else {
                throw HeaderProblem(reason: "\(stageCount) stages; a network has 1 to \(NTupleNetwork.maxStages)")
            }
            guard let thresholds = fields.bytes(Int(stageCount) - 1), let flags = fields.bytes(Int(stageCount) - 1) else { throw short }
            layout.stageThresholds = Array(thresholds)
            if let problem = NTupleNetwork.stageProblem(layout.stageThresholds, rows: layout.rows, cols: layout.cols) {
                throw HeaderProblem(reason: problem)
            }
            if let flag = flags.first(where: { $0 > 1 }) { throw HeaderProblem(reason: "a stage's promoted flag is \(flag); it must be 0 or 1") }
            layout.promoted = flags.map { $0 == 1 }
            guard let code = fields.uint8(), let started = fields.uint8(), let coherenceAlpha = fields.uint64(),
                let coherenceFrom = fields.uint64()
            else { throw short }
            guard let learning = LearningMethod(code: code) else {
                throw HeaderProblem(reason: "learning method \(code) is unknown (0 = td, 1 = tc, 2 = otd+tc)")
            }
            guard started <= 1 else { throw HeaderProblem(reason: "the TC started flag is \(started); it must be 0 or 1") }
            training.learning = learning
            training.coherenceStarted = started == 1
            training.coherenceAlpha = Double(bitPattern: coherenceAlpha)
            training.coherenceFrom = Double(bitPattern: coherenceFrom)
        }
        guard fields.remaining == 0 else {
            throw HeaderProblem(reason: "header length \(header.count) does not match its contents (\(header.count - fields.remaining) bytes)")
        }
        var metadata = TrainingMetadata(
            games: 0, moves: 0, seed: seed, alpha: Double(bitPattern: alpha),
            initialValue: Double(bitPattern: initialValue), elapsedSeconds: Double(bitPattern: elapsed),
            rulesVersion: Int(rulesVersion), spawnFourProbability: Double(bitPattern: spawnFour))
        metadata.learning = training.learning
        metadata.coherenceStarted = training.coherenceStarted
        metadata.coherenceAlpha = training.coherenceAlpha
        metadata.coherenceFrom = training.coherenceFrom
        return DecodedHeader(layout: layout, games: games, moves: moves, otherMetadata: metadata)
    }
}

/// A header read from a file: the validated layout, and metadata whose counts are not yet checked.
struct DecodedHeader {
    var layout: NetworkLayout
    var games: UInt64
    var moves: UInt64
    /// The metadata without its games and moves.
    var otherMetadata: TrainingMetadata

    /// The metadata, if every value is one this build can use (see ``TrainingMetadata/problem()``).
    func metadata() throws(HeaderProblem) -> TrainingMetadata {
        let limit = UInt64(TrainingMetadata.maxCount)
        guard games <= limit else { throw HeaderProblem(reason: "trained games is \(games); at most 2^53 (\(limit))") }
        guard moves <= limit else { throw HeaderProblem(reason: "trained moves is \(moves); at most 2^53 (\(limit))") }
        var metadata = otherMetadata
        metadata.games = Int(games)
        metadata.moves = Int(moves)
        if let problem = metadata.problem() { throw HeaderProblem(reason: problem) }
        return metadata
    }
}

/// Appends little-endian fields to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func append(_ raw: [UInt8]) { bytes += raw }

    mutating func append<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// Reads little-endian fields from a byte array; `nil` past its end.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> T? {
        guard let slice = bytes(MemoryLayout<T>.size) else { return nil }
        return slice.reversed().reduce(0) { ($0 << 8) | T($1) }
    }

    mutating func uint8() -> UInt8? { integer(UInt8.self) }
    mutating func uint16() -> UInt16? { integer(UInt16.self) }
    mutating func uint32() -> UInt32? { integer(UInt32.self) }
    mutating func uint64() -> UInt64? { integer(UInt64.self) }
}

// MARK: - Checksum

/// The streaming form of ``WeightsFile/checksum(of:)``: feed bytes in any
/// pieces, get the same value as for the whole.
struct Checksum64 {
    static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    var lanes: (UInt64, UInt64, UInt64, UInt64)
    /// Bytes of an incomplete 32-byte block, waiting for the rest.
    var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var pendingCount = 0
    var length: UInt64 = 0

    init() {
        var seeds = SplitMix64(seed: 0x4732_3034_384E_541A)
        lanes = (seeds.next(), seeds.next(), seeds.next(), seeds.next())
    }

    /// One lane absorbing one word: a bijection of `h` for each `w`, and of `w` for each `h`.
    @inline(__always)
    static func absorb(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let x = (h ^ w) &* multiplier
        return x ^ (x >> 32)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if pendingCount > 0 {
            let taken = min(32 - pendingCount, bytes.count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!, byteCount: taken)
            }
            pendingCount += taken
            offset = taken
            guard pendingCount == 32 else { return }
            let block = pending
            lanes.0 = Checksum64.absorb(lanes.0, UInt64(littleEndian: block.0))
            lanes.1 = Checksum64.absorb(lanes.1, UInt64(littleEndian: block.1))
            lanes.2 = Checksum64.absorb(lanes.2, UInt64(littleEndian: block.2))
            lanes.3 = Checksum64.absorb(lanes.3, UInt64(littleEndian: block.3))
            pending = (0, 0, 0, 0)
            pendingCount = 0
        }
        var (a, b, c, d) = lanes
        while bytes.count - offset >= 32 {
            a = Checksum64.absorb(a, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            b = Checksum64.absorb(b, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            c = Checksum64.absorb(c, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
            d = Checksum64.absorb(d, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            offset += 32
        }
        lanes = (a, b, c, d)
        let rest = bytes.count - offset
        if rest > 0 {
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: rest)
            }
            pendingCount = rest
        }
    }

    /// The checksum of every byte given so far.
    func finalize() -> UInt64 {
        var (a, b, c, d) = lanes
        // The words holding at least one pending byte; the zero padding is already in place.
        let words = (pendingCount + 7) / 8
        if words > 0 { a = Checksum64.absorb(a, UInt64(littleEndian: pending.0)) }
        if words > 1 { b = Checksum64.absorb(b, UInt64(littleEndian: pending.1)) }
        if words > 2 { c = Checksum64.absorb(c, UInt64(littleEndian: pending.2)) }
        if words > 3 { d = Checksum64.absorb(d, UInt64(littleEndian: pending.3)) }
        var h = Checksum64.absorb(a, b)
        h = Checksum64.absorb(h, c)
        h = Checksum64.absorb(h, d)
        h = Checksum64.absorb(h, length)
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }
}

// MARK: - Files

/// The system's text for an `errno` value: "No such file or directory".
func systemReason(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// `read(2)`, named apart from the methods called `read`.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}

/// `write(2)`, named apart from the methods called `write`.
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}

/// Writes all of `bytes` to `descriptor`, retrying short writes and interrupts;
/// returns the `errno` of a failure, or `nil`.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        let n = systemWrite(descriptor, bytes.baseAddress!.advanced(by: done), bytes.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return nil
}

/// Reads exactly the bytes asked for, or throws naming the file.
struct FileReader {
    let descriptor: Int32
    let path: String

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    mutating func read(count: Int) throws(WeightsFileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let failure: WeightsFileError? = bytes.withUnsafeMutableBytes { buffer in
            do throws(WeightsFileError) { try read(into: buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return bytes
    }

    /// Fills `buffer`; a file that ends first was shortened while it was read.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(WeightsFileError) {
        var done = 0
        while done < buffer.count {
            let n = systemRead(descriptor, buffer.baseAddress!.advanced(by: done), buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(file: path, reason: systemReason(errno))
            }
            if n == 0 { throw .cannotRead(file: path, reason: "the file became shorter while it was read") }
            done += n
        }
    }
}

/// Replaces a file atomically: write a temporary file beside it, sync, rename, sync the directory.
enum AtomicFile {
    /// A failed system call, with its `errno` reason.
    struct Failure: Error {
        var reason: String
    }

    /// Where ``write(to:_:)``'s body writes.
    struct Sink {
        let descriptor: Int32

        /// Writes all of `bytes`, in as few system calls as the kernel allows.
        func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
            if let code = writeAll(descriptor, bytes) { throw Failure(reason: systemReason(code)) }
        }

        /// Writes all of `bytes`.
        func write(_ bytes: [UInt8]) throws(Failure) {
            let failure: Failure? = bytes.withUnsafeBytes { buffer in
                do throws(Failure) { try write(buffer) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
    }

    /// The temporary name used while `path` is written.
    static func temporaryPath(for path: String) -> String { "\(path).tmp-\(getpid())" }

    /// Removes `<path>.tmp-<pid>` files left by processes that no longer exist.
    ///
    /// A process killed during a save (`kill -9`, a power cut) cannot remove its
    /// temporary file, and a weights file's is hundreds of megabytes; the target
    /// itself was never touched. Files of a living process (another save in
    /// progress) are left alone.
    static func removeAbandonedTemporaries(of path: String) {
        let prefix = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "") + ".tmp-"
        let directory = directory(of: path)
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                _ = unlink(directory == "." && !path.hasPrefix("./") ? name : directory + "/" + name)
            }
        }
    }

    /// The directory holding `path`, for the sync after the rename.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The file a save to `path` replaces: `path` itself, or the file its symbolic link points to.
    ///
    /// A rename replaces whatever has the name, so anything but a regular file
    /// (a directory, a device such as `/dev/full`, a FIFO, a socket) is refused
    /// here, before anything is written. A symbolic link is followed, so that
    /// `latest.bin -> runs/7.bin` updates `runs/7.bin` and the link stays; a
    /// link to nothing is refused, since what it was meant to name is unknown.
    static func target(of path: String) throws(Failure) -> String {
        var link = stat()
        guard lstat(path, &link) == 0 else { return path }  // nothing there: the save creates it
        var resolved = path
        if UInt32(link.st_mode) & UInt32(S_IFMT) == UInt32(S_IFLNK) {
            guard let real = realpath(path, nil) else {
                throw Failure(reason: "it is a symbolic link to a missing file (\(systemReason(errno)))")
            }
            resolved = String(cString: real)
            free(real)
        }
        if let status = FileStatus(path: resolved), !status.isRegularFile {
            throw Failure(reason: "it is \(status.kindDescription), not a regular file; a save only replaces regular files")
        }
        return resolved
    }

    /// Calls `body` to write the new contents of `path`, then puts them in place.
    ///
    /// On any failure, in `body` or after, the temporary file is removed and
    /// `path` is as it was. See ``target(of:)`` for what `path` may name.
    static func write(to requestedPath: String, _ body: (inout Sink) throws(Failure) -> Void) throws(Failure) {
        let path = try target(of: requestedPath)
        removeAbandonedTemporaries(of: path)
        let temporary = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(reason: systemReason(errno)) }
        var isOpen = true
        do throws(Failure) {
            var sink = Sink(descriptor: descriptor)
            try body(&sink)
            guard fsync(descriptor) == 0 else { throw Failure(reason: systemReason(errno)) }
            isOpen = false
            guard close(descriptor) == 0 else { throw Failure(reason: systemReason(errno)) }
            guard rename(temporary, path) == 0 else { throw Failure(reason: systemReason(errno)) }
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
        // The rename is only durable once the directory entry is on disk. Some
        // file systems cannot sync a directory (EINVAL); the file is in place anyway.
        let directoryDescriptor = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            let synced = fsync(directoryDescriptor) == 0 || errno == EINVAL
            let code = errno
            close(directoryDescriptor)
            if !synced { throw Failure(reason: systemReason(code)) }
        }
    }
}
