import GymSystem

/// Why a weights file could not be saved or loaded.
///
///     do { _ = try WeightsFile.load(from: "x.bin") } catch { print("error: \(error)") }
///     // error: x.bin: format version 7; this build reads versions 1 to 3
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
    /// Another format version: "x.bin: format version 7; this build reads versions 1 to 3".
    case unsupportedVersion(file: String, version: UInt32)
    /// The file ends inside its header: "x.bin: truncated: the header needs 112 bytes, the file has 50".
    case truncatedHeader(file: String, needed: Int, found: Int)
    /// The file is shorter than its header implies:
    /// "x.bin: truncated: the header says 4 patterns of 6 cells, 268435576 bytes (256 MiB); the file has 1000 bytes (1000 bytes)".
    case truncated(file: String, shape: String, expected: Int, found: Int)
    /// The file is longer than its header implies:
    /// "x.bin: 4 bytes after the checksum: the header says 1000 bytes, the file has 1004".
    case trailingBytes(file: String, expected: Int, found: Int)
    /// The load would hold `bytes` (weights, afterstate table and what reading them takes) beyond what this
    /// process can have, or the file is sparse: "x.bin: the header says 16000 patterns of 6 cells, 1000 GiB to
    /// load; this machine has 8 GiB of memory" (or "this process may map only 5 GiB more (its address-space
    /// limit, ulimit -v)", …: ``MemoryShortfall``).
    case tooLarge(file: String, shape: String, bytes: Int, shortfall: MemoryShortfall)
    /// A header value this build cannot use: "x.bin: invalid header: the board has 99 rows; boards have 2 to 8".
    case invalidHeader(file: String, reason: String)
    /// A weight that is not a finite number within ±``WeightsFile/maxWeightMagnitude``:
    /// "x.bin: weight 17 is nan; weights must be finite numbers within ±1e+30".
    case invalidWeight(file: String, index: Int, value: Float)
    /// Entry `index` (from 0) of the afterstate table is not one a save writes (version 5).
    case invalidAfterstate(file: String, index: Int, reason: String)
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
            .invalidWeight(let file, _, _), .invalidAfterstate(let file, _, _), .checksumMismatch(let file),
            .unsupportedNetwork(let file, _), .unsupportedContents(let file, _), .cannotWrite(let file, _):
            file
        }
    }

    /// The problem in one line, naming the file.
    public var description: String {
        switch self {
        case .cannotOpen(let file, let reason): FileError.describe("open", file, reason)
        case .cannotRead(let file, let reason): FileError.describe("read", file, reason)
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
        case .tooLarge(let file, let shape, let bytes, let shortfall):
            "\(file): the header says \(shape), \(byteSize(bytes)) to load; \(shortfall)"
        case .invalidHeader(let file, let reason): "\(file): invalid header: \(reason)"
        case .invalidWeight(let file, let index, let value):
            "\(file): weight \(index) is \(value); weights must be finite numbers within ±\(WeightsFile.maxWeightMagnitude)"
        case .invalidAfterstate(let file, let index, let reason): "\(file): afterstate \(index) of the table: \(reason)"
        case .checksumMismatch(let file): "\(file): corrupted: checksum mismatch"
        case .unsupportedNetwork(let file, let reason):
            FileError.describe("write", file, "the network does not fit the format: \(reason)")
        case .unsupportedContents(let file, let reason): FileError.describe("write", file, reason)
        case .cannotWrite(let file, let reason): FileError.describe("write", file, reason)
        }
    }
}

extension WeightsFileError: FileErrorCases {}
