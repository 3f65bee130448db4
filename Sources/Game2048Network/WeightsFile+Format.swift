import Game2048
import GymJSON

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
    /// How the stages past the first read their boards.
    var stageBoards: StageBoards = .plain
    /// The afterstates of the network's table (``NTupleNetwork/afterstates``), stored after the weights.
    var afterstateCount = 0
    /// The bytes of an afterstate in the file: its key (`UInt64`) and value (`Float32`).
    static let afterstateSize = 12

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
        let least =
            trainingSize + (version >= 3 ? searchSize : 0) + (version >= 4 ? rulesSizeRange.lowerBound : 0) + (version >= 5 ? tableSize : 0)
            + (version >= 6 ? stageBoardsSize : 0)
        let most = least + 2 * (NTupleNetwork.maxStages - 1) + (version >= 4 ? rulesSizeRange.count - 1 : 0)
        return (headerLengthRange.lowerBound + least)...(headerLengthRange.upperBound + most)
    }
    /// Version 4's block after version 3's: the rules of the training games, each `RulesOption` by name (a count,
    /// then per option its name, a tag and its value). Names and choices are at most ``maxRulesText`` bytes.
    static let rulesSizeRange = 1...(1 + maxRulesOptions * (2 + maxRulesText + 1 + maxRulesText))
    /// The most options and the longest name or choice a rules block may hold.
    static let maxRulesOptions = 32, maxRulesText = 40
    /// Version 5's field after version 4's: the number of afterstates in the table after the weights.
    static let tableSize = 8
    /// Version 3's field after version 2's: the search's downgrading tile.
    static let searchSize = 1
    /// Version 6's field after version 5's: how the stages past the first read their boards (``StageBoards``).
    static let stageBoardsSize = 1
    /// The most values a cell may have: ``NTupleNetwork`` caps exponents in a byte.
    static let maxValueCount = 256

    init(
        rows: Int, cols: Int, valueCount: Int, symmetryCount: Int, patterns: [TuplePattern],
        stageThresholds: [UInt8] = [], promoted: [Bool] = [], stageBoards: StageBoards = .plain
    ) {
        self.rows = rows
        self.cols = cols
        self.valueCount = valueCount
        self.symmetryCount = symmetryCount
        self.patterns = patterns
        self.stageThresholds = stageThresholds
        self.promoted = promoted
        self.stageBoards = stageBoards
    }

    init(_ network: NTupleNetwork) {
        self.init(
            rows: network.rows, cols: network.cols, valueCount: network.valueCount,
            symmetryCount: network.symmetryCount, patterns: network.patterns,
            stageThresholds: network.stageThresholds, promoted: network.promoted, stageBoards: network.stageBoards)
        afterstateCount = network.afterstates?.count ?? 0
    }

    /// The number of weights, every stage's; meaningful once ``problem()`` is `nil`.
    var weightCount: Int { patterns.reduce(0) { $0 + $1.tableSize(valueCount: valueCount) } * (stageThresholds.count + 1) }

    /// The format version a file of this layout and `metadata` needs: the oldest that can say it all, so
    /// that builds that read only older versions still load what they can use.
    func version(metadata: TrainingMetadata) -> UInt32 {
        if stageBoards != .plain { return 6 }
        if afterstateCount > 0 { return 5 }
        if !metadata.rulesAreImplied(rows: rows, cols: cols) { return 4 }
        if metadata.downgradeLimit != nil { return 3 }
        return stageThresholds.isEmpty && metadata.learning == .td ? 1 : 2
    }

    /// The header's length in bytes, in format `version` (from 4 on, with a rules block of `rulesBytes`).
    func headerLength(version: UInt32, rulesBytes: Int = 0) -> Int {
        NetworkLayout.fixedSize + patterns.reduce(0) { $0 + 1 + $1.cells.count } + NetworkLayout.metadataSize
            + (version >= 2 ? NetworkLayout.trainingSize + 2 * stageThresholds.count : 0)
            + (version >= 3 ? NetworkLayout.searchSize : 0) + (version >= 4 ? rulesBytes : 0) + (version >= 5 ? NetworkLayout.tableSize : 0)
            + (version >= 6 ? NetworkLayout.stageBoardsSize : 0)
    }

    /// The bytes of the afterstate table after the weights.
    var tableBytes: Int { afterstateCount * NetworkLayout.afterstateSize }

    /// The header's length in bytes, in format version 1.
    var headerLength: Int { headerLength(version: 1) }

    /// The patterns in words: "4 patterns of 6 cells", "3 patterns of 2 to 4 cells".
    var shapeDescription: String {
        let sizes = patterns.map(\.cells.count)
        let (low, high) = (sizes.min() ?? 0, sizes.max() ?? 0)
        let cells = low == high ? "\(low) cell\(low == 1 ? "" : "s")" : "\(low) to \(high) cells"
        let stages = stageThresholds.isEmpty ? "" : " in \(stageThresholds.count + 1) stages"
        let table = afterstateCount > 0 ? " and \(afterstateCount) afterstates" : ""
        return "\(patterns.count) pattern\(patterns.count == 1 ? "" : "s") of \(cells)\(stages)\(table)"
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
        guard stageBoards == .plain || !stageThresholds.isEmpty else { return "downgraded stage boards in a network of one stage" }
        return nil
    }
}

/// Why a header was refused, as the text after "has an invalid header: ".
struct HeaderProblem: Error, Equatable {
    var reason: String
}

extension WeightsFile {
    /// The magic, version, header length and header of a file for `layout`.
    ///
    /// - Precondition: `layout.problem()` is `nil`; the metadata's counts fit their fields.
    static func encodePrefix(_ layout: NetworkLayout, metadata: TrainingMetadata) -> [UInt8] {
        precondition(metadata.games >= 0 && metadata.moves >= 0, "games and moves must be 0 or more, got \(metadata.games) and \(metadata.moves)")
        precondition((0...Int(UInt32.max)).contains(metadata.rulesVersion), "rulesVersion \(metadata.rulesVersion) does not fit in 32 bits")
        let version = layout.version(metadata: metadata)
        let rulesBlock = version >= 4 ? Self.rulesBlock(metadata.rules(rows: layout.rows, cols: layout.cols)) : []
        var bytes = ByteWriter()
        bytes.append(magic)
        bytes.append(version)
        bytes.append(UInt32(layout.headerLength(version: version, rulesBytes: rulesBlock.count)))
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
        if version >= 3 { bytes.append(metadata.downgradeLimit ?? 0) }
        bytes.append(rulesBlock)
        if version >= 5 { bytes.append(UInt64(layout.afterstateCount)) }
        if version >= 6 { bytes.append(layout.stageBoards.code) }
        assert(bytes.bytes.count == preambleSize + layout.headerLength(version: version, rulesBytes: rulesBlock.count))
        return bytes.bytes
    }

    /// Version 4's rules block: every rules option (`RulesOption.all`) by name, with its value.
    static func rulesBlock(_ rules: Rules) -> [UInt8] {
        var bytes = ByteWriter()
        let members = RulesOption.members(of: rules)
        bytes.append(UInt8(members.count))
        for (name, value) in members {
            bytes.append(UInt8(name.utf8.count))
            bytes.append(Array(name.utf8))
            append(value, to: &bytes)
        }
        return bytes.bytes
    }

    /// One option's value in a rules block: a tag (0 null, 1 integer, 2 number, 3 text, 4 switch, 5 list of texts),
    /// then the value. Every kind an option may have is written, so a new option of any kind needs no new format.
    static func append(_ value: OptionValue, to bytes: inout ByteWriter) {
        switch value {
        case .null: bytes.append(UInt8(0))
        case .integer(let integer):
            bytes.append(UInt8(1))
            bytes.append(UInt64(bitPattern: Int64(integer)))
        case .number(let number):
            bytes.append(UInt8(2))
            bytes.append(number.bitPattern)
        case .string(let text):
            bytes.append(UInt8(3))
            appendText(text, to: &bytes)
        case .boolean(let flag): bytes.append([UInt8(4), flag ? 1 : 0])
        case .list(let texts):
            bytes.append([UInt8(5), UInt8(texts.count)])
            for text in texts { appendText(text, to: &bytes) }
        }
    }

    /// A text of at most 255 bytes (option names and choices are short), after its length.
    static func appendText(_ text: String, to bytes: inout ByteWriter) {
        precondition(text.utf8.count <= Int(UInt8.max), "an option's text of \(text.utf8.count) bytes")
        bytes.append(UInt8(text.utf8.count))
        bytes.append(Array(text.utf8))
    }

    /// One option's value in a rules block, as ``append(_:to:)`` wrote it; `name` is for the messages.
    static func readValue(_ fields: inout ByteReader, name: String) throws(HeaderProblem) -> OptionValue {
        let short = HeaderProblem(reason: "the rules block is cut short")
        func text() throws(HeaderProblem) -> String {
            guard let length = fields.uint8(), let text = fields.bytes(Int(length)) else { throw short }
            return String(decoding: text, as: UTF8.self)
        }
        guard let tag = fields.uint8() else { throw short }
        switch tag {
        case 0: return .null
        case 1:
            guard let bits = fields.uint64() else { throw short }
            return .integer(Int(Int64(bitPattern: bits)))
        case 2:
            guard let bits = fields.uint64() else { throw short }
            return .number(Double(bitPattern: bits))
        case 3: return .string(try text())
        case 4:
            guard let flag = fields.uint8() else { throw short }
            guard flag <= 1 else { throw HeaderProblem(reason: "the rules block's switch '\(name)' is \(flag); it must be 0 or 1") }
            return .boolean(flag == 1)
        case 5:
            guard let count = fields.uint8() else { throw short }
            var texts: [String] = []
            for _ in 0..<count { texts.append(try text()) }
            return .list(texts)
        default: throw HeaderProblem(reason: "the rules block's value of '\(name)' has tag \(tag); it must be 0 to 5")
        }
    }

    /// The rules in a version 4 rules block, for a network of `rows × cols`: each option read by its name through
    /// `RulesOption`, the rest at their defaults (the size the network's), the whole validated as `Rules` validates
    /// it. Whether they fit the file (its board, its spawn probability) is `WeightsFile.rulesProblem`'s.
    static func decodeRules(_ fields: inout ByteReader, rows: Int, cols: Int) throws(HeaderProblem) -> Rules {
        let short = HeaderProblem(reason: "the rules block is cut short")
        guard let count = fields.uint8() else { throw short }
        guard Int(count) <= NetworkLayout.maxRulesOptions else {
            throw HeaderProblem(reason: "the rules block holds \(count) options; at most \(NetworkLayout.maxRulesOptions)")
        }
        // Cannot fail: the layout's size was validated.
        var settings = RulesSettings(try! Rules(rows: rows, cols: cols))
        var seen: Set<String> = []
        for _ in 0..<Int(count) {
            guard let length = fields.uint8(), let nameBytes = fields.bytes(Int(length)) else { throw short }
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard let option = RulesOption.named(name) else {
                // Quoted and escaped: a forged name may hold a line break, and the message is one line.
                throw HeaderProblem(
                    reason: "the rules block names \(JSONValue.quoted(name, limit: 24)), which is no rules option of this build "
                        + "(\(RulesOption.all.map(\.name).joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted else { throw HeaderProblem(reason: "the rules block gives '\(name)' twice") }
            let value = try readValue(&fields, name: name)
            // Its kind here; its range, with the rest, by `Rules`, in its words.
            guard option.assign(value, to: &settings, checkingRange: false) else {
                let shown = if case .string(let text) = value { JSONValue.quoted(text, limit: 24) } else { "\(value)" }
                throw HeaderProblem(reason: "the rules block's value of '\(name)' is not one the option allows (\(shown))")
            }
        }
        do throws(RulesError) {
            return try settings.rules()
        } catch {
            throw HeaderProblem(reason: "the rules block's \(RulesOption.name(of: error.field)) \(error.rule)")
        }
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
        if version >= 3 {
            // 0 is "none"; any other value is checked with the rest of the metadata.
            guard let limit = fields.uint8() else { throw short }
            training.downgradeLimit = limit == 0 ? nil : limit
        }
        if version >= 4 {
            training.trainedRules = try decodeRules(&fields, rows: layout.rows, cols: layout.cols)
        }
        if version >= 5 {
            guard let count = fields.uint64() else { throw short }
            guard count <= AfterstateTable.maxCount else {
                throw HeaderProblem(reason: "the afterstate table holds \(count) afterstates; at most \(AfterstateTable.maxCount)")
            }
            guard count == 0 || AfterstateTable.fits(rows: layout.rows, cols: layout.cols) else {
                throw HeaderProblem(
                    reason: "a \(layout.rows)x\(layout.cols) network with an afterstate table; tables are for boards of up to \(AfterstateTable.maxCells) cells"
                )
            }
            layout.afterstateCount = Int(count)
        }
        if version >= 6 {
            guard let code = fields.uint8() else { throw short }
            guard let reading = StageBoards(code: code) else {
                throw HeaderProblem(reason: "stage boards \(code) are unknown (0 = plain, 1 = downgraded)")
            }
            layout.stageBoards = reading
            if let problem = layout.problem() { throw HeaderProblem(reason: problem) }
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
        metadata.downgradeLimit = training.downgradeLimit
        metadata.trainedRules = training.trainedRules
        // What a save refuses, a load refuses: rules for another board, or another spawn probability.
        if let rules = training.trainedRules, let problem = WeightsFile.rulesProblem(rules, metadata: metadata, layout: layout) {
            throw HeaderProblem(reason: problem)
        }
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
package struct ByteWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func append(_ raw: [UInt8]) { bytes += raw }

    package mutating func append<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// Reads little-endian fields from a byte array; `nil` past its end.
package struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    package init(_ bytes: [UInt8], from offset: Int) {
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

    package mutating func uint8() -> UInt8? { integer(UInt8.self) }
    package mutating func uint16() -> UInt16? { integer(UInt16.self) }
    package mutating func uint32() -> UInt32? { integer(UInt32.self) }
    package mutating func uint64() -> UInt64? { integer(UInt64.self) }
}
