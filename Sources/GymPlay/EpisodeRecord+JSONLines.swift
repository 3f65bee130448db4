import Game2048
import GymJSON
import GymGames

// The JSON Lines form of a 2048 episode record (format version 2, and version 1 for
// reading), documented on ``EpisodeRecord``. Writing uses a fixed member order so
// files diff cleanly; reading checks every member, refuses members it does not
// know, and names the line and the member at fault (the framing is ``RecordParser``'s).

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

/// 2048's lines in a record file (format version 2, and version 1 for reading): the ``EpisodeFormat`` of
/// ``EpisodeRecord``.
package enum Game2048Episodes: EpisodeFormat {
    /// An episode's score so far and whether it is over, on a board of `cells` cells.
    package struct Progress {
        var cells: Int
        var score: Int64 = 0
        var isOver = false
    }

    package static var onlyGame: String? { Game2048Game.declaration.name }
    static let headerMembers: Set = ["type", "format", "version", "game", "rules_version", "seed", "config", "target_tile", "player", "board"]
    static let configMembers = Set(RulesOption.all.map(\.name))
    static let stepMembers: Set = ["type", "step", "action", "reward", "spawn", "score"]
    static let spawnMembers: Set = ["cell", "value"]
    static let endMembers: Set = ["type", "steps", "score", "outcome", "last_episode"]

    package static func headerMembers(of game: GameDeclaration) -> Set<String> { headerMembers }
    package static func stepMembers(_ progress: Progress) -> Set<String> { stepMembers }
    package static func endMembers(_ progress: Progress) -> Set<String> { endMembers }
    package static func header(_ fields: Fields, game: GameDeclaration) throws(RecordError) -> EpisodeHeader { try EpisodeHeader(fields: fields) }
    package static func version(of header: EpisodeHeader) -> Int { header.version }
    package static func progress(at header: EpisodeHeader) -> Progress { Progress(cells: header.rules.cellCount) }
    package static func step(_ fields: Fields, progress: Progress) throws(RecordError) -> EpisodeStep {
        try EpisodeStep(fields: fields, cells: progress.cells)
    }
    package static func advance(_ progress: inout Progress, by step: EpisodeStep) { progress.score = step.score }
    package static func end(_ fields: Fields, steps: Int, progress: Progress) throws(RecordError) -> EpisodeEnd {
        try EpisodeEnd(fields: fields, steps: steps, lastScore: progress.score)
    }
    package static func end(steps: Int, progress: Progress, isLastEpisode: Bool) -> EpisodeEnd {
        EpisodeEnd(steps: steps, score: progress.score, outcome: progress.isOver ? .gameOver : .stopped, isLastEpisode: isLastEpisode)
    }
    package static func isLastEpisode(_ end: EpisodeEnd) -> Bool { end.isLastEpisode }
    package static func jsonLine(_ header: EpisodeHeader) -> String { header.jsonLine }
    package static func jsonLine(_ step: EpisodeStep, number: Int) -> String { step.jsonLine(number: number) }
    package static func jsonLine(_ end: EpisodeEnd) -> String { end.jsonLine }
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
        let version = try fields.formatVersion()
        let rulesVersion = try fields.integer("rules_version", in: 1...Int128(Int.max))
        let seed = try fields.integer("seed", in: 0...Int128(UInt64.max))
        let config = try fields.object("config")
        try config.allowOnly(Game2048Episodes.configMembers)
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
            try spawnFields.allowOnly(Game2048Episodes.spawnMembers)
            let cell = try spawnFields.integer("cell", in: 0...Int128(cells - 1))
            let value = try spawnFields.integer("value", in: 2...4)
            guard value == 2 || value == 4 else { throw spawnFields.error("\"\(spawnFields.prefix)value\" must be 2 or 4, got \(value)") }
            spawn = Spawn(cell: Int(cell), exponent: value == 2 ? 1 : 2)
        }
        let score = try fields.integer("score", in: Int128(Int64.min)...Int128(Int64.max))
        self.init(action: action, reward: Int64(reward), spawn: spawn, score: Int64(score))
    }
}

extension Fields {
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

    /// The value of `name`, one of `names`.
    func choice(_ name: String, of names: [String]) throws(RecordError) -> String {
        let choice = try string(name)
        guard names.contains(choice) else {
            throw error("\"\(prefix)\(name)\" must be \(names.listedWithOr), got \(JSONValue.quoted(choice, limit: 20))")
        }
        return choice
    }

    /// The rules from a `config` object; the options that are not required (all but rows and cols)
    /// may be left out or `null`, and then have their default. Each integer is read within its option's declared
    /// range, as `make` reads it: the rules check some only where they apply (a penalty under "terminate"), and a
    /// record of another door must not pass here what `make` refuses.
    func rules() throws(RecordError) -> Rules {
        var settings = RulesSettings(Rules())
        func declared(_ range: ClosedRange<Int>) -> ClosedRange<Int128> { Int128(range.lowerBound)...Int128(range.upperBound) }
        for option in RulesOption.all where option.isRequired || json[option.name].map({ $0 != .null }) ?? false {
            let name = option.name
            // Each value of the option's type, an integer within its declared range; the rules check the rest together.
            let value: OptionValue =
                switch option.constraint {
                case .integer(let range, nullable: false): .integer(Int(try integer(name, in: declared(range))))
                case .integer(let range, nullable: true): try optionalInteger(name, in: declared(range)).map { .integer(Int($0)) } ?? .null
                case .number: .number(try number(name))
                case .boolean: .boolean(try bool(name))
                case .choice(let names), .list(let names): .string(try choice(name, of: names))
                }
            option.assign(value, to: &settings, checkingRange: false)
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
