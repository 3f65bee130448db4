import Game2048
import GymSystem
import Game2048Network

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
    /// Its afterstates would take `bytes` beyond what this process can hold, or the file is sparse.
    case tooLarge(file: String, afterstates: Int, bytes: Int, shortfall: MemoryShortfall)

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
        case .tooLarge(let file, let afterstates, let bytes, let shortfall):
            "\(file) holds \(afterstates) afterstates by its header, \(byteSize(bytes)) to load; \(shortfall)"
        }
    }
}

// The solution file, format version 2 (docs/SOLVER.md), little-endian:
//
//     "G2048SOL"  u32 version  u8 rows  u8 cols  u8 initial tiles  u8 objective (0 score, 1 win)
//     u8 win exponent (0: none)  u8 symmetries (boards per class at most: 8 square, 4 other)  u16 0
//     u64 spawn-four probability (f64 bits)
//     u32 layers  u64 count of each layer
//     each layer: its keys (u64, ascending, each its class's smallest), then its values (f64)
//     u64 checksum of every byte before it (the weights files' checksum)
//
// Keys and values are written and read as the machine's own words: little-endian on every platform Swift
// builds this for.
#if _endian(big)
#error("the solution file's words are written as the machine's own: a big-endian build needs byte swaps")
#endif

extension Solution {
    static let magic = Array("G2048SOL".utf8)
    /// The version of the solution file format this build writes and reads.
    public static let formatVersion: UInt32 = 2
    static let headerSize = 8 + 4 + 4 + 4 + 8 + 4

    /// The bytes of the file of a solution of `rules`, about: 16 for each afterstate
    /// ``OptimalSolver/estimatedAfterstates(rules:)`` expects, and the header.
    public static func estimatedFileBytes(rules: Rules) -> Int {
        headerSize + 8 + Int(min(16 * OptimalSolver.estimatedAfterstates(rules: rules), 1e18))
    }

    /// Writes the solution to `path` atomically: a reader sees the old file or the whole new one.
    public func save(to path: String) throws(SolutionFileError) {
        var header = ByteWriter()
        header.append(Solution.magic)
        header.append(Solution.formatVersion)
        let objectives = OptimalSolver.Objective.allCases
        header.append([UInt8(rules.rows), UInt8(rules.cols), UInt8(rules.initialTiles), UInt8(objectives.firstIndex(of: objective)!)])
        header.append([rules.winExponent ?? 0, UInt8(game.symmetry.order), 0, 0])
        header.append(rules.spawnFourProbability.bitPattern)
        header.append(UInt32(layers.count))
        for layer in layers { header.append(UInt64(layer.keys.count)) }
        do throws(FileError) {
            try AtomicFile.write(to: path) { (file: inout AtomicFile.Sink) throws(FileError) in
                var checksum = Checksum64()
                try Solution.write(header.bytes, to: file, checksum: &checksum)
                for layer in layers {
                    try Solution.write(layer.keys, to: file, checksum: &checksum)
                    try Solution.write(layer.values, to: file, checksum: &checksum)
                }
                var trailer = ByteWriter()
                trailer.append(checksum.finalize())
                try file.write(trailer.bytes)
            }
        } catch {
            throw .file(error.description)
        }
    }

    /// Writes `words` as they are in memory, into `checksum` too.
    static func write<T: BitwiseCopyable>(_ words: [T], to file: AtomicFile.Sink, checksum: inout Checksum64) throws(FileError) {
        let failure = words.withUnsafeBytes { bytes -> FileError? in
            checksum.update(bytes)
            do throws(FileError) { try file.write(bytes) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads a solution file, checking everything: magic, version, rules, reserved bytes, length, that its
    /// afterstates fit in what this process can hold (`MemoryShortfall`, before any is allocated), checksum,
    /// that every key is a board of its layer's age, its class's smallest, in ascending order, with a finite value
    /// of 0 or more (at most 1 for the win), and that every move from a starting board leads to an afterstate it
    /// holds. It is read a layer at a time, into the solution's own arrays.
    public static func load(from path: String) throws(SolutionFileError) -> Solution {
        let descriptor: Int32, status: FileStatus
        do throws(FileError) {
            (descriptor, status) = try openRegularFile(path)
        } catch {
            throw .file(error.description)
        }
        defer { SystemIO.closeFile(descriptor) }
        var reader = SolutionReader(descriptor: descriptor, path: path, status: status)
        return try reader.read()
    }
}

/// Reads a solution file a layer at a time, checking as it goes (``Solution/load(from:)``).
struct SolutionReader {
    let descriptor: Int32
    let path: String
    /// The file's status: its size, and its blocks on disk.
    let status: FileStatus
    var size: Int { status.size }
    var checksum = Checksum64()

    /// Fills `buffer` from the file, and the checksum with it.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SolutionFileError) {
        do throws(FileError) { try SystemIO.read(descriptor, into: buffer, path: path) } catch { throw .file(error.description) }
        checksum.update(UnsafeRawBufferPointer(buffer))
    }

    mutating func words<T: BitwiseCopyable>(_ count: Int, zero: T) throws(SolutionFileError) -> [T] {
        var words = [T](repeating: zero, count: count)
        let failure = words.withUnsafeMutableBytes { buffer -> SolutionFileError? in
            do throws(SolutionFileError) { try read(into: buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return words
    }

    mutating func read() throws(SolutionFileError) -> Solution {
        let magic = Solution.magic
        guard size >= magic.count + 4 else {
            if size < magic.count { throw .notASolution(file: path) }
            let start: [UInt8] = try words(magic.count, zero: 0)
            if start != magic { throw .notASolution(file: path) }
            throw .wrongLength(file: path, expected: Solution.headerSize + 8, found: size)
        }
        let start: [UInt8] = try words(magic.count + 4, zero: 0)
        guard Array(start.prefix(magic.count)) == magic else { throw .notASolution(file: path) }
        var versionField = ByteReader(start, from: magic.count)
        let version = versionField.uint32()!
        guard version == Solution.formatVersion else { throw .unsupportedVersion(file: path, version: version) }
        guard size >= Solution.headerSize + 8 else { throw .wrongLength(file: path, expected: Solution.headerSize + 8, found: size) }
        var fields = ByteReader(start + (try words(Solution.headerSize - start.count, zero: UInt8(0))), from: start.count)
        let rows = Int(fields.uint8()!), cols = Int(fields.uint8()!), initialTiles = Int(fields.uint8()!)
        let objectiveCode = Int(fields.uint8()!), winExponent = Int(fields.uint8()!), symmetries = Int(fields.uint8()!)
        let reserved = fields.uint16()!
        let probability = Double(bitPattern: fields.uint64()!)
        let layerCount = Int(fields.uint32()!)
        let objectives = OptimalSolver.Objective.allCases
        guard reserved == 0 else { throw .invalid(file: path, reason: "its header's reserved bytes 18 and 19 are \(reserved), not 0") }
        guard objectiveCode < objectives.count else { throw .invalid(file: path, reason: "objective \(objectiveCode) is not one this build knows") }
        let objective = objectives[objectiveCode]
        let rules: Rules
        do {
            rules = try Rules(
                rows: rows, cols: cols, spawnFourProbability: probability, initialTiles: initialTiles,
                winTile: winExponent == 0 ? nil : 1 << min(winExponent, 62))
        } catch {
            throw .invalid(file: path, reason: "its rules are not valid: \(error)")
        }
        do throws(OptimalSolver.Refusal) { try OptimalSolver.check(rules, objective: objective) } catch {
            throw .invalid(file: path, reason: error.description)
        }
        let game = SolverGame(rules: rules, objective: objective, symmetric: true)
        guard symmetries == game.symmetry.order else {
            throw .invalid(file: path, reason: "it says \(symmetries) symmetries; a \(rules.sizeLabel) board has \(game.symmetry.order)")
        }
        // The oldest board a game can reach: every cell at the largest tile.
        let maxLayers = rules.cellCount << Int(rules.largestExponent) + 3
        guard layerCount <= maxLayers else { throw .invalid(file: path, reason: "\(layerCount) layers; at most \(maxLayers)") }
        let countsEnd = Solution.headerSize + 8 * layerCount
        guard size >= countsEnd + 8 else { throw .wrongLength(file: path, expected: countsEnd + 8, found: size) }
        let counts: [UInt64] = try words(layerCount, zero: 0)
        var expected = countsEnd + 8
        for (age, count) in counts.enumerated() {
            guard count <= UInt64(size / 16) else {
                throw .invalid(file: path, reason: "its header says layer \(age) holds \(count) afterstates, more than its \(size) bytes can hold")
            }
            expected += 16 * Int(count)
        }
        guard expected == size else { throw .wrongLength(file: path, expected: expected, found: size) }
        // Every layer's keys and values at once, checked before any of them is allocated.
        let afterstates = counts.reduce(0) { $0 + Int($1) }
        let bytes = 16 * afterstates + 8 * layerCount
        if let shortfall = MemoryShortfall.of(holding: bytes, contentBytes: 16 * afterstates, file: status) {
            throw .tooLarge(file: path, afterstates: afterstates, bytes: bytes, shortfall: shortfall)
        }
        var layers: [Solution.Layer] = []
        layers.reserveCapacity(layerCount)
        for (age, count) in counts.enumerated() {
            let keys: [UInt64] = try words(Int(count), zero: 0)
            let values: [Double] = try words(Int(count), zero: 0)
            try check(keys: keys, values: values, age: age, game: game)
            layers.append(Solution.Layer(keys: keys, values: values))
        }
        let computed = checksum.finalize()
        let stored: [UInt64] = try words(1, zero: 0)
        guard stored[0] == computed else { throw .checksumMismatch(file: path) }
        let solution = Solution(game: game, layers: layers)
        // A solve values every afterstate a game reaches, the first moves' among them: a file without them (none
        // at all, say) would give no move and value every game at 0.
        for (key, _) in game.startingBoards() {
            for direction in Direction.allCases where game.legalMoves(key) & (1 << UInt8(direction.rawValue)) != 0 {
                let afterstate = game.grid.move(key, direction).afterstate
                guard solution.afterstateValue(ofKey: afterstate) != nil else {
                    throw .invalid(file: path, reason: "it lacks afterstate \(game.symmetry.canonical(afterstate)), a move from a starting board")
                }
            }
        }
        return solution
    }

    /// Every key a board of the layer's age, in range, its class's smallest, ascending; every value finite, of
    /// 0 or more, at most 1 for the win.
    func check(keys: [UInt64], values: [Double], age: Int, game: SolverGame) throws(SolutionFileError) {
        let rules = game.rules
        let largest = UInt64(rules.largestExponent)
        let ceiling: Double = game.objective == .win ? 1 : .infinity
        for (index, key) in keys.enumerated() {
            guard index == 0 || keys[index - 1] < key else {
                throw .invalid(file: path, reason: "the keys of layer \(age) are not in ascending order")
            }
            var inRange = key >> (4 * UInt64(rules.cellCount)) == 0
            var rest = key
            while rest != 0 && inRange {
                inRange = rest & 0xF <= largest
                rest >>= 4
            }
            guard inRange, PackedGrid.age(key) == age, game.symmetry.canonical(key) == key else {
                throw .invalid(file: path, reason: "key \(key) is not a board of layer \(age) in its smallest symmetric form")
            }
            guard values[index].isFinite, values[index] >= 0, values[index] <= ceiling else {
                throw .invalid(file: path, reason: "the value of key \(key) is \(values[index])")
            }
        }
    }
}
