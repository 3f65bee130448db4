import Game2048
import GymSystem

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
    public static let formatVersion: UInt32 = 6

    /// What a load would refuse in `rules` recorded with `metadata` for `layout`, or `nil`: rules for another board
    /// size, or a spawn probability other than the metadata's.
    static func rulesProblem(_ rules: Rules, metadata: TrainingMetadata, layout: NetworkLayout) -> String? {
        if rules.rows != layout.rows || rules.cols != layout.cols {
            return "the rules are for \(rules.sizeLabel), the network for \(layout.rows)x\(layout.cols)"
        }
        if rules.spawnFourProbability != metadata.spawnFourProbability {
            return "the rules' spawn_four_probability \(rules.spawnFourProbability) is not the metadata's \(metadata.spawnFourProbability)"
        }
        return nil
    }

    /// The element type code of Float32 weights.
    static let float32ElementType: UInt8 = 1

    /// The preamble: magic, version, header length.
    static let preambleSize = 16

    /// The size in bytes of the file a save of `network` with `metadata` writes: known before the first game, so
    /// a run can check that its disk has room for it.
    public static func fileSize(of network: NTupleNetwork, metadata: TrainingMetadata) -> Int {
        let layout = NetworkLayout(network)
        return encodePrefix(layout, metadata: metadata).count + layout.weightCount * MemoryLayout<Float>.stride + layout.tableBytes
            + checksumSize
    }

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
        // The table as it is now, and the header's count from it.
        let afterstates = network.afterstates?.sortedEntries ?? []
        var layout = NetworkLayout(network)
        layout.afterstateCount = afterstates.count
        if let index = afterstates.firstIndex(where: { !isUsable($0.value) }) {
            throw .unsupportedContents(
                file: path,
                reason: "afterstate \(index) of the table is worth \(afterstates[index].value); values must be finite numbers within ±\(maxWeightMagnitude)")
        }
        if let problem = layout.problem() { throw .unsupportedNetwork(file: path, reason: problem) }
        // Refused here rather than written: every file a save makes must load.
        if let problem = metadata.problem() { throw .unsupportedContents(file: path, reason: problem) }
        if let rules = metadata.trainedRules, let problem = rulesProblem(rules, metadata: metadata, layout: layout) {
            throw .unsupportedContents(file: path, reason: problem)
        }
        let prefix = encodePrefix(layout, metadata: metadata)
        // The weights and the header must agree even if a stage is promoted during the save.
        let weightCount = layout.weightCount
        var checksum = Checksum64()
        var unusableWeight: (index: Int, value: Float)? = nil
        do throws(FileError) {
            try AtomicFile.write(to: path) { (file: inout AtomicFile.Sink) throws(FileError) in
                prefix.withUnsafeBytes { checksum.update($0) }
                try file.write(prefix)
                // Each chunk is copied before it is checksummed and written: training
                // threads may still be updating the weights, and the checksum must
                // describe exactly the bytes that reach the file.
                assert(weightCount == network.weights.count)
                var buffer = [UInt8](repeating: 0, count: min(chunkSize, network.weights.count * MemoryLayout<Float>.stride))
                let failure: FileError? = network.weights.withBytes { weights -> FileError? in
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
                                return file.failure("weight \(index) is \(value)")
                            }
                            do throws(FileError) { try file.write(UnsafeRawBufferPointer(chunk)) } catch { return error }
                            start += count
                        }
                        return nil
                    }
                }
                if let failure { throw failure }
                let table = encodeTable(afterstates)
                table.withUnsafeBytes { checksum.update($0) }
                try file.write(table)
                var trailer = ByteWriter()
                trailer.append(checksum.finalize())
                try file.write(trailer.bytes)
            }
        } catch {
            if let (index, value) = unusableWeight {
                throw .unsupportedContents(
                    file: path, reason: "weight \(index) is \(value); weights must be finite numbers within ±\(maxWeightMagnitude)")
            }
            throw WeightsFileError(error)
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
    /// A file whose patterns are the default network's up to a symmetry and the order of their cells
    /// (the default 4×4 network of releases that listed its cells in ascending order) loads as the
    /// default network, its tables reindexed: the same features and values, read by the fast path.
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
        do throws(FileError) { opened = try openRegularFile(path) } catch { throw WeightsFileError(error) }
        let file = opened.descriptor, size = opened.status.size
        defer { SystemIO.closeFile(file) }
        SystemIO.adviseSequentialReading(file)
        let reader = FileReader(descriptor: file, path: path)

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
        let expectedSize = preambleSize + headerLength + weightBytes + layout.tableBytes + checksumSize
        guard size >= expectedSize else {
            throw .truncated(file: path, shape: layout.shapeDescription, expected: expectedSize, found: size)
        }
        guard size == expectedSize else { throw .trailingBytes(file: path, expected: expectedSize, found: size) }
        // A file of the default network written with its cells in another order (an earlier release's
        // ascending one) becomes today's default, whose index order is the fast one.
        let defaults = TuplePattern.defaults(rows: layout.rows, cols: layout.cols)
        let reordering =
            layout.valueCount == defaults.valueCount && layout.patterns != defaults.patterns
            ? NTupleNetwork.digitOrders(from: layout.patterns, to: defaults.patterns, rows: layout.rows, cols: layout.cols) : nil
        // Everything the load holds at once, checked before any of it is allocated.
        let loadBytes = WeightsFile.loadBytes(layout, reordering: reordering != nil)
        if let shortfall = MemoryShortfall.of(holding: loadBytes, contentBytes: weightBytes + layout.tableBytes, file: opened.status) {
            throw .tooLarge(file: path, shape: layout.shapeDescription, bytes: loadBytes, shortfall: shortfall)
        }
        let network = NTupleNetwork(
            rows: layout.rows, cols: layout.cols, patterns: reordering == nil ? layout.patterns : defaults.patterns,
            valueCount: layout.valueCount, stageThresholds: layout.stageThresholds, stageBoards: layout.stageBoards, promoted: layout.promoted,
            afterstates: layout.afterstateCount > 0 ? AfterstateTable(rows: layout.rows, cols: layout.cols) : nil)
        guard network.symmetryCount == layout.symmetryCount, network.valueCount == layout.valueCount,
            network.weights.count == layout.weightCount
        else {
            throw .invalidHeader(
                file: path,
                reason:
                    "the header describes \(layout.symmetryCount) symmetries and \(layout.weightCount) weights, the network has \(network.symmetryCount) and \(network.weights.count)"
            )
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
        var tableBytes = [UInt8](repeating: 0, count: layout.tableBytes)
        let tableFailure: WeightsFileError? = tableBytes.withUnsafeMutableBytes { bytes in
            do throws(WeightsFileError) { try reader.read(into: bytes) } catch { return error }
            checksum.update(UnsafeRawBufferPointer(bytes))
            return nil
        }
        if let tableFailure { throw tableFailure }
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
        if let reordering { network.reindexTables(reordering) }
        if let table = network.afterstates {
            // Room for every entry first: grown by doubling, the table would hold its old slots beside the new.
            table.reserve(layout.afterstateCount)
            try decodeTable(tableBytes, into: table, largestExponent: metadata.rules(rows: layout.rows, cols: layout.cols).largestExponent, file: path)
        }
        return (network, metadata)
    }

    /// The most bytes a load of `layout` holds at once: the weights as mapped, the table's bytes as read and the
    /// table reserved to hold them, and, to reorder a default network's cells, a scratch copy of its largest table.
    static func loadBytes(_ layout: NetworkLayout, reordering: Bool) -> Int {
        let scratch = reordering ? layout.patterns.map { $0.tableSize(valueCount: layout.valueCount) }.max() ?? 0 : 0
        let table = layout.afterstateCount > 0 ? layout.tableBytes + AfterstateTable.reservingBytes(holding: layout.afterstateCount) : 0
        return WeightStorage.addressSpace(holding: layout.weightCount) + table + scratch * MemoryLayout<Float>.stride
    }

    /// The table's entries as the file stores them: key (`UInt64`) and value (`Float32`), keys ascending.
    static func encodeTable(_ entries: [(key: UInt64, value: Float)]) -> [UInt8] {
        var bytes = ByteWriter()
        bytes.bytes.reserveCapacity(entries.count * NetworkLayout.afterstateSize)
        for (key, value) in entries {
            bytes.append(key)
            bytes.append(value.bitPattern)
        }
        return bytes.bytes
    }

    /// Fills `table` from a file's table bytes, refusing what a save never writes: keys out of ascending order or
    /// twice, a key that is no canonical afterstate of the board under its rules' ceiling, an unusable value.
    static func decodeTable(_ bytes: [UInt8], into table: AfterstateTable, largestExponent: UInt8, file: String) throws(WeightsFileError) {
        var fields = ByteReader(bytes, from: 0)
        var previous: UInt64 = 0
        for index in 0..<(bytes.count / NetworkLayout.afterstateSize) {
            let key = fields.uint64()!, value = Float(bitPattern: fields.uint32()!)
            if index > 0 && key <= previous {
                throw .invalidAfterstate(file: file, index: index, reason: "key \(key) is not above the one before (\(previous)); keys ascend")
            }
            if let problem = table.problem(ofKey: key, largestExponent: largestExponent) {
                throw .invalidAfterstate(file: file, index: index, reason: "key \(key) is \(problem)")
            }
            guard isUsable(value) else {
                throw .invalidAfterstate(
                    file: file, index: index, reason: "the value is \(value); values must be finite numbers within ±\(maxWeightMagnitude)")
            }
            table.set(canonical: key, to: value)
            previous = key
        }
    }

    /// Reads the file's fields, as ``WeightsFileError/cannotRead(file:reason:)`` on failure.
    struct FileReader {
        let descriptor: Int32
        let path: String

        func read(count: Int) throws(WeightsFileError) -> [UInt8] {
            do throws(FileError) { return try SystemIO.read(descriptor, count: count, path: path) } catch { throw WeightsFileError(error) }
        }

        /// Fills `buffer`; a file that ends first was shortened while it was read.
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(WeightsFileError) {
            do throws(FileError) { try SystemIO.read(descriptor, into: buffer, path: path) } catch { throw WeightsFileError(error) }
        }
    }

    /// The largest magnitude a weight may have: the sum of the most features a
    /// network reads (65 535 patterns × 8 symmetries) stays far from overflowing a Float.
    public static let maxWeightMagnitude: Float = 1e30

    /// Whether `value` (a weight, or a table's value) is a finite number within ±``maxWeightMagnitude``.
    @inline(__always)
    static func isUsable(_ value: Float) -> Bool {
        // NaN and infinity have the largest magnitude bit patterns, so one comparison covers them.
        value.bitPattern & 0x7FFF_FFFF <= maxWeightMagnitude.bitPattern
    }

    /// The index of the first weight in `bytes` that is not a finite number within
    /// ±``maxWeightMagnitude``, or `nil`.
    static func firstUnusableWeight(in bytes: UnsafeRawBufferPointer) -> Int? {
        for index in 0..<(bytes.count / 4) {
            let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            if !isUsable(Float(bitPattern: bits)) { return index }
        }
        return nil
    }
}
