import Game2048JSON
import Game2048

// The JSON Lines form of an episode record (format version 2, and version 1 for
// reading), documented on ``EpisodeRecord``. Writing uses a fixed member order so
// files diff cleanly; reading checks every member, refuses members it does not
// know, and names the line and the member at fault.

extension EpisodeHeader {
    /// The header as one line of JSON, without the newline.
    package var jsonLine: String {
        JSONValue.object([
            ("type", .string("header")),
            ("format", .string(EpisodeHeader.format)),
            ("version", .integer(Int128(version))),
            ("rules_version", .integer(Int128(rulesVersion))),
            ("seed", .integer(Int128(seed))),
            ("config", JSONValue(rules: rules)),
            ("target_tile", targetTile.map { .integer(Int128($0)) } ?? .null),
            ("player", .string(player)),
            ("board", EpisodeHeader.json(of: board)),
        ]).serialized
    }

    /// A board as rows of exponents, the protocol's observation layout.
    static func json(of board: Board) -> JSONValue {
        .array(
            (0..<board.rows).map { row in
                .array((0..<board.cols).map { .integer(Int128(board[row: row, col: $0])) })
            })
    }
}

extension EpisodeStep {
    /// The step as one line of JSON, without the newline; `number` is its 1-based index in the episode.
    package func jsonLine(number: Int) -> String {
        JSONValue.object([
            ("type", .string("step")),
            ("step", .integer(Int128(number))),
            ("action", .string(action.name)),
            ("reward", .integer(Int128(reward))),
            ("spawn", spawn.map { .object([("cell", .integer(Int128($0.cell))), ("value", .integer(Int128($0.value)))]) } ?? .null),
            ("score", .integer(Int128(score))),
        ]).serialized
    }
}

extension EpisodeEnd {
    /// The end line, without the newline.
    package var jsonLine: String {
        JSONValue.object([
            ("type", .string("end")),
            ("steps", .integer(Int128(steps))),
            ("score", .integer(Int128(score))),
            ("outcome", .string(outcome.rawValue)),
            ("last_episode", .bool(isLastEpisode)),
        ]).serialized
    }
}

extension EpisodeRecord {
    /// The record as JSON Lines: the header, one line per step and the end line (when known), each ending in a newline.
    package var jsonLines: String {
        var text = header.jsonLine + "\n"
        for (index, step) in steps.enumerated() { text += step.jsonLine(number: index + 1) + "\n" }
        if let end { text += end.jsonLine + "\n" }
        return text
    }

    /// The members of each kind of line.
    static let headerMembers: Set = ["type", "format", "version", "rules_version", "seed", "config", "target_tile", "player", "board"]
    static let configMembers = Set(RulesOption.all.map(\.name))
    static let stepMembers: Set = ["type", "step", "action", "reward", "spawn", "score"]
    static let spawnMembers: Set = ["cell", "value"]
    static let endMembers: Set = ["type", "steps", "score", "outcome", "last_episode"]

    /// Reads every episode of a record file.
    ///
    ///     let episodes = try EpisodeRecord.parse(contents)
    ///
    /// Blank lines are skipped and lines may end in CRLF. Every member is
    /// checked, and a member this version does not know is refused by name.
    ///
    /// - Throws: ``RecordError`` naming the first bad line: not JSON, a missing,
    ///   unknown or mistyped member, a step number out of sequence, a rules value
    ///   out of range, a newer format version, an end line that disagrees with
    ///   its episode, or a truncated record (a last line cut off, an episode of
    ///   version 2 without its end line, or a restart whose next episode is missing).
    package static func parse(_ text: String) throws(RecordError) -> [EpisodeRecord] {
        try parse(bytes: Array(text.utf8))
    }

    /// Reads every episode from the bytes of a record file; see ``parse(_:)``.
    package static func parse(bytes: [UInt8]) throws(RecordError) -> [EpisodeRecord] {
        var records: [EpisodeRecord] = []
        var parser = RecordParser()
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsWithNewline = bytes.last == UInt8(ascii: "\n")
        for (index, line) in lines.enumerated() {
            let event = try parser.read(line, number: index + 1, isCutOff: index == lines.count - 1 && !endsWithNewline)
            switch event {
            case .header(let header): records.append(EpisodeRecord(header: header))
            case .step(let step): records[records.count - 1].steps.append(step)
            case .end(let end): records[records.count - 1].end = end
            case nil: break
            }
        }
        try parser.finish()
        return records
    }
}

/// What one line of a record holds, read and checked by ``RecordParser``.
package enum RecordEvent: Hashable, Sendable {
    /// An episode starts.
    case header(EpisodeHeader)
    /// A step of the current episode.
    case step(EpisodeStep)
    /// The current episode ends.
    case end(EpisodeEnd)
}

/// Reads a record a line at a time, checking each line against the ones before it, and keeps only
/// the counts it needs to (never the steps): a record of any length is read in constant memory.
///
///     var parser = RecordParser()
///     for (number, line) in lines { if let event = try parser.read(line, number: number) { … } }
///     try parser.finish()
package struct RecordParser {
    /// The current episode: what its later lines are checked against.
    struct Episode {
        var isVersion1: Bool
        var cells: Int
        var steps = 0
        var lastScore: Int64 = 0
        var end: EpisodeEnd? = nil
    }

    /// Episodes read so far.
    package private(set) var episodes = 0
    var current: Episode? = nil
    /// The last line that was not blank.
    var lastLine = 0

    package init() {}

    /// Reads line `number` (without its newline; `isCutOff` when the file ends inside it).
    ///
    /// - Returns: what the line holds, or `nil` for a blank line.
    /// - Throws: ``RecordError`` naming the line, as ``EpisodeRecord/parse(_:)`` describes.
    package mutating func read(_ rawLine: ArraySlice<UInt8>, number: Int, isCutOff: Bool = false) throws(RecordError) -> RecordEvent? {
        let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        lastLine = number
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(line))
        } catch {
            if isCutOff { throw RecordError(line: number, "truncated record: the last line is incomplete (\(error))") }
            throw RecordError(line: number, "not valid JSON (\(error))")
        }
        let fields = Fields(json: json, line: number)
        switch try fields.string("type") {
        case "header":
            if let last = current {
                if last.end == nil && !last.isVersion1 {
                    throw RecordError(line: number, "a header where the end line of episode \(episodes) was expected")
                }
                if last.end?.isLastEpisode == true {
                    throw RecordError(line: number, "a header after the end line of episode \(episodes), which says it is the last")
                }
            }
            try fields.allowOnly(EpisodeRecord.headerMembers)
            let header = try EpisodeHeader(fields: fields)
            episodes += 1
            current = Episode(isVersion1: header.version == 1, cells: header.rules.cellCount)
            return .header(header)
        case "step":
            guard let last = current else {
                throw RecordError(line: number, "a step before any header line (a record starts with \"type\":\"header\")")
            }
            guard last.end == nil else { throw RecordError(line: number, "a step after the end line of episode \(episodes)") }
            try fields.allowOnly(EpisodeRecord.stepMembers)
            let expected = last.steps + 1
            let stepNumber = try fields.integer("step", in: 1...Int128(Int.max))
            guard stepNumber == expected else {
                throw RecordError(line: number, "step \(stepNumber) where step \(expected) was expected")
            }
            let step = try EpisodeStep(fields: fields, cells: last.cells)
            current?.steps = expected
            current?.lastScore = step.score
            return .step(step)
        case "end":
            guard let last = current else { throw RecordError(line: number, "an end line before any header line") }
            guard last.end == nil else { throw RecordError(line: number, "a second end line for episode \(episodes)") }
            guard !last.isVersion1 else {
                throw RecordError(line: number, "an end line in a version 1 record (version 1 has none; its header says \"version\":1)")
            }
            try fields.allowOnly(EpisodeRecord.endMembers)
            let end = try EpisodeEnd(fields: fields, steps: last.steps, lastScore: last.lastScore)
            current?.end = end
            return .end(end)
        case let other:
            throw RecordError(line: number, "\"type\" must be \"header\", \"step\" or \"end\", got \(JSONValue.quoted(other, limit: 20))")
        }
    }

    /// After the last line: a record must hold an episode, and its last episode must be complete.
    package func finish() throws(RecordError) {
        guard let last = current else { throw RecordError(line: 0, "the record is empty: no header line") }
        guard !last.isVersion1 else { return }
        guard let end = last.end else {
            throw RecordError(
                line: lastLine,
                "truncated record: episode \(episodes) has no end line "
                    + "(the file ends after \(last.steps == 0 ? "its header" : "step \(last.steps)"))")
        }
        guard end.isLastEpisode else {
            throw RecordError(
                line: lastLine,
                "truncated record: the end line of episode \(episodes) announces another episode, but the file ends there")
        }
    }
}

extension EpisodeEnd {
    /// Reads an end line and checks it against the episode it closes: `steps` steps so far, the last
    /// of them with score `lastScore` (0 without steps).
    init(fields: Fields, steps episodeSteps: Int, lastScore: Int64) throws(RecordError) {
        let steps = try fields.integer("steps", in: 0...Int128(Int.max))
        guard steps == episodeSteps else {
            throw fields.error("the end line counts \(steps) steps, but the episode has \(episodeSteps)")
        }
        let score = try fields.integer("score", in: Int128(Int64.min)...Int128(Int64.max))
        guard score == lastScore else {
            throw fields.error("the end line's score \(score) differs from the score after the last step, \(lastScore)")
        }
        let name = try fields.string("outcome")
        guard let outcome = Outcome(rawValue: name) else {
            throw fields.error("\"outcome\" must be game_over or stopped, got \(JSONValue.string(name).summary)")
        }
        let isLast = try fields.bool("last_episode")
        self.init(steps: Int(steps), score: Int64(score), outcome: outcome, isLastEpisode: isLast)
    }
}

extension EpisodeHeader {
    init(fields: Fields) throws(RecordError) {
        let format = try fields.string("format")
        guard format == EpisodeHeader.format else {
            throw fields.error("\"format\" must be \"\(EpisodeHeader.format)\", got \(JSONValue.quoted(format, limit: 20))")
        }
        let version = try fields.integer("version", in: 1...Int128(Int.max))
        guard version <= EpisodeHeader.currentVersion else {
            throw fields.error("record format version \(version) is newer than this g2048 reads (\(EpisodeHeader.currentVersion))")
        }
        let rulesVersion = try fields.integer("rules_version", in: 1...Int128(Int.max))
        let seed = try fields.integer("seed", in: 0...Int128(UInt64.max))
        let config = try fields.object("config")
        try config.allowOnly(EpisodeRecord.configMembers)
        let rules = try config.rules()
        let target = try fields.optionalInteger("target_tile", in: 2...Int128(Int.max))
        let player = try fields.string("player")
        let board = try fields.board("board", rules: rules)
        self.init(seed: UInt64(seed), rules: rules, targetTile: target.map { Int($0) }, player: player, board: board)
        self.version = Int(version)
        self.rulesVersion = Int(rulesVersion)
    }
}

extension EpisodeStep {
    init(fields: Fields, cells: Int) throws(RecordError) {
        let action = try fields.action("action")
        let reward = try fields.integer("reward", in: Int128(Int64.min)...Int128(Int64.max))
        var spawn: Spawn? = nil
        if let spawnFields = try fields.optionalObject("spawn") {
            try spawnFields.allowOnly(EpisodeRecord.spawnMembers)
            let cell = try spawnFields.integer("cell", in: 0...Int128(cells - 1))
            let value = try spawnFields.integer("value", in: 2...4)
            guard value == 2 || value == 4 else { throw spawnFields.error("\"\(spawnFields.prefix)value\" must be 2 or 4, got \(value)") }
            spawn = Spawn(cell: Int(cell), exponent: value == 2 ? 1 : 2)
        }
        let score = try fields.integer("score", in: Int128(Int64.min)...Int128(Int64.max))
        self.init(action: action, reward: Int64(reward), spawn: spawn, score: Int64(score))
    }
}

/// Typed access to the members of one JSON object through `Game2048JSON.JSONReader`, with errors
/// that name the line and the member.
struct Fields {
    /// The object and its path inside the line (`config`, `spawn`).
    let reader: JSONReader
    let line: Int

    init(json: JSONValue, line: Int) { self.init(reader: JSONReader(json), line: line) }

    init(reader: JSONReader, line: Int) {
        self.reader = reader
        self.line = line
    }

    var json: JSONValue { reader.value }

    /// The path of this object inside the line with its dot (`config.`, `spawn.`), for messages.
    var prefix: String { reader.path.isEmpty ? "" : reader.path + "." }

    func error(_ reason: String) -> RecordError { RecordError(line: line, reason) }

    /// The record's wording of a read error.
    func error(_ error: JSONReadError) -> RecordError {
        let path = "\"\(error.path)\""
        let got = error.value?.summary ?? "nothing"
        switch (error.failure, error.expected) {
        case (.missing, _): return self.error("missing \(path)")
        case (.unknownMember, .members(let names)):
            return self.error(
                "unknown member \(JSONValue.quoted(error.path, limit: 60)) (expected one of \(names.joined(separator: ", ")))")
        case (.duplicateMember, _): return self.error("\(JSONValue.quoted(error.path, limit: 60)) appears twice")
        case (_, .object) where error.path.isEmpty: return self.error("expected a JSON object, got \(got)")
        case (.notAllowed, .integer(let range)):
            return self.error("\(path) must be between \(range.lowerBound) and \(range.upperBound), got \(got)")
        case (_, .object): return self.error("\(path) must be an object, got \(got)")
        case (_, .string): return self.error("\(path) must be a string, got \(got)")
        case (_, .integer): return self.error("\(path) must be an integer, got \(got)")
        case (_, .number): return self.error("\(path) must be a number, got \(got)")
        case (_, .bool): return self.error("\(path) must be true or false, got \(got)")
        case (_, .array): return self.error("\(path) must be a list, got \(got)")
        case (_, .oneOf(let names)), (_, .members(let names)):
            return self.error("\(path) must be \(names.listedWithOr), got \(got)")
        }
    }

    /// `read` with its read error worded as the record words it.
    func reading<Value>(_ read: () throws(JSONReadError) -> Value) throws(RecordError) -> Value {
        do { return try read() } catch { throw self.error(error) }
    }

    /// Refuses a member not in `names`, or one given twice, by name: a misspelt member must not
    /// silently fall back to its default.
    func allowOnly(_ names: Set<String>) throws(RecordError) {
        try reading { () throws(JSONReadError) in try reader.allowOnly(names) }
    }

    func member(_ name: String) throws(RecordError) -> JSONValue {
        try reading { () throws(JSONReadError) in try reader.member(name).value }
    }

    func string(_ name: String) throws(RecordError) -> String {
        try reading { () throws(JSONReadError) in try reader.member(name).string() }
    }

    func integer(_ name: String, in range: ClosedRange<Int128>) throws(RecordError) -> Int128 {
        try reading { () throws(JSONReadError) in try reader.member(name).integer(in: range) }
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int128>) throws(RecordError) -> Int128? {
        try reading { () throws(JSONReadError) in try reader.optionalMember(name)?.integer(in: range) }
    }

    func number(_ name: String) throws(RecordError) -> Double {
        try reading { () throws(JSONReadError) in try reader.member(name).number() }
    }

    func bool(_ name: String) throws(RecordError) -> Bool {
        try reading { () throws(JSONReadError) in try reader.member(name).bool() }
    }

    func object(_ name: String) throws(RecordError) -> Fields {
        Fields(reader: try reading { () throws(JSONReadError) in try reader.member(name).object() }, line: line)
    }

    func optionalObject(_ name: String) throws(RecordError) -> Fields? {
        try member(name) == .null ? nil : try object(name)
    }

    func action(_ name: String) throws(RecordError) -> Direction {
        let value = try member(name)
        switch value {
        case .string(let text):
            if let direction = Direction(name: text) { return direction }
        case .integer(let index):
            if let direction = Direction(rawValue: Int(clamping: index)) { return direction }
        default: break
        }
        throw error("\"\(prefix + name)\" must be up, right, down, left or 0..3, got \(value.summary)")
    }

    /// The rules from a `config` object; the options that are not required (all but rows and cols)
    /// may be left out or `null`, and then have their default.
    func rules() throws(RecordError) -> Rules {
        var settings = RulesSettings(Rules())
        let anyInteger = Int128(Int.min)...Int128(Int.max)
        for option in RulesOption.all where option.isRequired || json[option.name].map({ $0 != .null }) ?? false {
            let name = option.name
            switch option.kind {
            case .integer(let field, _): settings[keyPath: field] = Int(try integer(name, in: anyInteger))
            case .optionalInteger(let field, _): settings[keyPath: field] = try optionalInteger(name, in: anyInteger).map { Int($0) }
            case .number(let field, _): settings[keyPath: field] = try number(name)
            case .choice(let field):
                let choice = try string(name)
                guard let kind = InvalidActionPolicy.Kind(rawValue: choice) else {
                    let names = InvalidActionPolicy.Kind.allCases.map(\.rawValue)
                    throw error("\"\(prefix)\(name)\" must be \(names.listedWithOr), got \(JSONValue.quoted(choice, limit: 20))")
                }
                settings[keyPath: field] = kind
            }
        }
        do {
            return try settings.rules()
        } catch {
            throw self.error("\"\(prefix)\(RulesOption.name(of: error.field))\" \(error.rule)")
        }
    }

    /// A board of rows of exponents that must match the rules' size.
    func board(_ name: String, rules: Rules) throws(RecordError) -> Board {
        guard case .array(let rows) = try member(name), rows.count == rules.rows else {
            throw error("\"\(prefix + name)\" must be \(rules.rows) rows of \(rules.cols) exponents")
        }
        var exponents: [UInt8] = []
        for row in rows {
            guard case .array(let cells) = row, cells.count == rules.cols else {
                throw error("\"\(prefix + name)\" must be \(rules.rows) rows of \(rules.cols) exponents")
            }
            for cell in cells {
                guard case .integer(let exponent) = cell, (0...Int128(Rules.maxExponent)).contains(exponent) else {
                    throw error("\"\(prefix + name)\" cells must be exponents from 0 to \(Rules.maxExponent), got \(cell.summary)")
                }
                exponents.append(UInt8(exponent))
            }
        }
        do {
            return try Board(rows: rules.rows, cols: rules.cols, exponents: exponents)
        } catch {
            throw self.error("\"\(prefix + name)\" \(error.rule)")
        }
    }
}
