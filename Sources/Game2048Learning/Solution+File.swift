import Game2048
import Game2048System

/// Why a solution file cannot be read or written.
public enum SolutionFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// It cannot be opened, read or written (the system's reason).
    case file(String)
    /// It does not start with the format's magic.
    case notASolution(file: String)
    /// A format version this build does not read.
    case unsupportedVersion(file: String, version: UInt32)
    /// Its length is not what its header says.
    case wrongLength(file: String, expected: Int, found: Int)
    /// Its checksum does not match its contents.
    case checksumMismatch(file: String)
    /// A field out of range, or keys out of order: the file was not written by `g2048 solve`.
    case invalid(file: String, reason: String)

    public var description: String {
        switch self {
        case .file(let message): message
        case .notASolution(let file): "\(file) is not a solution file (written by 'g2048 solve')"
        case .unsupportedVersion(let file, let version):
            "\(file) is a solution file of format version \(version); this build reads version \(Solution.formatVersion)"
        case .wrongLength(let file, let expected, let found):
            "\(file) is \(found) bytes, and its header says \(expected): it was cut short or added to"
        case .checksumMismatch(let file): "\(file) is damaged: its checksum does not match its contents"
        case .invalid(let file, let reason): "\(file) is not a valid solution file: \(reason)"
        }
    }
}

// The solution file, format version 1 (docs/SOLVER.md), little-endian:
//
//     "G2048SOL"  u32 version  u8 rows  u8 cols  u8 initial tiles  u8 0  u64 spawn-four probability (f64 bits)
//     u32 layers  u64 count of each layer
//     each layer: its keys (u64, ascending), then its values (f64)
//     u64 checksum of every byte before it (the weights files' checksum)
extension Solution {
    static let magic = Array("G2048SOL".utf8)
    /// The version of the solution file format this build writes and reads.
    public static let formatVersion: UInt32 = 1
    static let headerSize = 8 + 4 + 4 + 8 + 4

    /// Writes the solution to `path` atomically: a reader sees the old file or the whole new one.
    public func save(to path: String) throws(SolutionFileError) {
        var writer = ByteWriter()
        writer.append(Solution.magic)
        writer.append(Solution.formatVersion)
        writer.append([UInt8(rules.rows), UInt8(rules.cols), UInt8(rules.initialTiles), 0])
        writer.append(rules.spawnFourProbability.bitPattern)
        writer.append(UInt32(layers.count))
        for layer in layers { writer.append(UInt64(layer.keys.count)) }
        for layer in layers {
            for key in layer.keys { writer.append(key) }
            for value in layer.values { writer.append(value.bitPattern) }
        }
        writer.append(WeightsFile.checksum(of: writer.bytes))
        do throws(FileError) { try AtomicFile.write(writer.bytes, to: path) } catch { throw .file(error.description) }
    }

    /// Reads a solution file, checking everything: magic, version, rules, length, checksum, and that every key is
    /// a board of its layer's age, in ascending order, with a finite value of 0 or more.
    public static func load(from path: String) throws(SolutionFileError) -> Solution {
        let bytes: [UInt8]
        do throws(FileError) {
            let (descriptor, status) = try openRegularFile(path)
            defer { SystemIO.closeFile(descriptor) }
            bytes = try SystemIO.read(descriptor, count: status.size, path: path)
        } catch {
            throw .file(error.description)
        }
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else { throw .notASolution(file: path) }
        guard bytes.count >= headerSize + 8 else { throw .wrongLength(file: path, expected: headerSize + 8, found: bytes.count) }
        var fields = ByteReader(bytes, from: magic.count)
        let version = fields.uint32()!
        guard version == formatVersion else { throw .unsupportedVersion(file: path, version: version) }
        let rows = Int(fields.uint8()!), cols = Int(fields.uint8()!), initialTiles = Int(fields.uint8()!)
        _ = fields.uint8()
        let probability = Double(bitPattern: fields.uint64()!)
        let rules: Rules
        do { rules = try Rules(rows: rows, cols: cols, spawnFourProbability: probability, initialTiles: initialTiles) } catch {
            throw .invalid(file: path, reason: "its rules are not valid: \(error)")
        }
        guard rules.cellCount <= OptimalSolver.maxCells else {
            throw .invalid(file: path, reason: "\(rows)x\(cols) is larger than the solver solves")
        }
        let layerCount = Int(fields.uint32()!)
        // The oldest board a game can reach: every cell at the largest tile.
        let maxLayers = rules.cellCount << Int(rules.largestExponent) + 3
        guard layerCount <= maxLayers else { throw .invalid(file: path, reason: "\(layerCount) layers; at most \(maxLayers)") }
        guard bytes.count >= headerSize + 8 * layerCount + 8 else {
            throw .wrongLength(file: path, expected: headerSize + 8 * layerCount + 8, found: bytes.count)
        }
        var counts: [Int] = []
        var expected = headerSize + 8 * layerCount + 8
        for _ in 0..<layerCount {
            let count = fields.uint64()!
            guard count <= UInt64(bytes.count / 16) else { throw .wrongLength(file: path, expected: Int.max, found: bytes.count) }
            counts.append(Int(count))
            expected += 16 * Int(count)
        }
        guard expected == bytes.count else { throw .wrongLength(file: path, expected: expected, found: bytes.count) }
        var stored = ByteReader(bytes, from: bytes.count - 8)
        guard stored.uint64()! == WeightsFile.checksum(of: Array(bytes.prefix(bytes.count - 8))) else {
            throw .checksumMismatch(file: path)
        }
        let grid = PackedGrid(rules: rules)
        var layers: [Layer] = []
        var offset = fields.offset
        for (age, count) in counts.enumerated() {
            let keys = words(bytes, at: offset, count: count)
            let values = words(bytes, at: offset + 8 * count, count: count).map(Double.init(bitPattern:))
            offset += 16 * count
            for (index, key) in keys.enumerated() {
                guard index == 0 || keys[index - 1] < key else {
                    throw .invalid(file: path, reason: "the keys of layer \(age) are not in ascending order")
                }
                guard key >> (4 * UInt64(rules.cellCount)) == 0, PackedGrid.age(key) == age,
                    grid.board(key).maxExponent <= rules.largestExponent
                else { throw .invalid(file: path, reason: "key \(key) is not a board of layer \(age)") }
                guard values[index].isFinite, values[index] >= 0 else {
                    throw .invalid(file: path, reason: "the value of key \(key) is \(values[index])")
                }
            }
            layers.append(Layer(keys: keys, values: values))
        }
        return Solution(rules: rules, grid: grid, layers: layers)
    }

    static func words(_ bytes: [UInt8], at offset: Int, count: Int) -> [UInt64] {
        (0..<count).map { index in
            var word: UInt64 = 0
            for byte in 0..<8 { word |= UInt64(bytes[offset + 8 * index + byte]) << (8 * UInt64(byte)) }
            return word
        }
    }
}
