import GymJSON
import GymSystem
import GymCore
import GymGames

/// Reads a record of one game a line at a time, checking each line against the ones before it, and keeps only
/// the counts it needs to (never the steps): a record of any length is read in constant memory.
///
///     var parser = RecordParser<Game2048Episodes>()
///     for (number, line) in lines { if let event = try parser.read(line, number: number) { … } }
///     try parser.finish()
///
/// The framing is every game's (``EpisodeFormat``); what the lines hold is `Format`'s.
package struct RecordParser<Format: EpisodeFormat> {
    /// The current episode: what its later lines are checked against.
    struct Episode {
        var isVersion1: Bool
        var progress: Format.Progress
        var steps = 0
        var end: Format.End? = nil
    }

    /// The games a header may name.
    let registry: GameRegistry
    /// The game of the record: the one asked for, else the first header's.
    package private(set) var game: GameDeclaration?
    /// Episodes read so far.
    package private(set) var episodes = 0
    var current: Episode? = nil
    /// The last line that was not blank.
    var lastLine = 0

    /// A parser of a record of `game` (`nil`: of the game its first header names, or `Format`'s only game), whose
    /// headers name games of `registry`.
    package init(game: GameDeclaration? = nil, registry: GameRegistry = .standard) {
        self.registry = registry
        self.game = game ?? Format.onlyGame.flatMap(registry.named)
    }

    /// Reads line `number` (without its newline; `isCutOff` when the file ends inside it).
    ///
    /// - Returns: what the line holds, or `nil` for a blank line.
    /// - Throws: ``RecordError`` naming the line, as ``RecordedEpisode/parse(bytes:game:registry:)`` describes.
    package mutating func read(_ rawLine: ArraySlice<UInt8>, number: Int, isCutOff: Bool = false) throws(RecordError) -> RecordEvent<Format>? {
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
                if let end = last.end, Format.isLastEpisode(end) {
                    throw RecordError(line: number, "a header after the end line of episode \(episodes), which says it is the last")
                }
            }
            let recorded = try registry.recorded(in: fields)
            if let game, game.name != recorded.name {
                throw RecordError(
                    line: number,
                    "a \(recorded.name) episode in a record of \(game.name) (\"game\" is \"\(recorded.name)\"): a record holds one game")
            }
            try fields.allowOnly(Format.headerMembers(of: recorded))
            let header = try Format.header(fields, game: recorded)
            game = recorded
            episodes += 1
            current = Episode(isVersion1: Format.version(of: header) == 1, progress: Format.progress(at: header))
            return .header(header)
        case "step":
            guard var episode = current else {
                throw RecordError(line: number, "a step before any header line (a record starts with \"type\":\"header\")")
            }
            guard episode.end == nil else { throw RecordError(line: number, "a step after the end line of episode \(episodes)") }
            try fields.allowOnly(Format.stepMembers(episode.progress))
            let expected = episode.steps + 1
            let stepNumber = try fields.integer("step", in: 1...Int128(Int.max))
            guard stepNumber == expected else {
                throw RecordError(line: number, "step \(stepNumber) where step \(expected) was expected")
            }
            let step = try Format.step(fields, progress: episode.progress)
            episode.steps = expected
            Format.advance(&episode.progress, by: step)
            current = episode
            return .step(step)
        case "end":
            guard let episode = current else { throw RecordError(line: number, "an end line before any header line") }
            guard episode.end == nil else { throw RecordError(line: number, "a second end line for episode \(episodes)") }
            guard !episode.isVersion1 else {
                throw RecordError(line: number, "an end line in a version 1 record (version 1 has none; its header says \"version\":1)")
            }
            try fields.allowOnly(Format.endMembers(episode.progress))
            let end = try Format.end(fields, steps: episode.steps, progress: episode.progress)
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
        guard Format.isLastEpisode(end) else {
            throw RecordError(
                line: lastLine,
                "truncated record: the end line of episode \(episodes) announces another episode, but the file ends there")
        }
    }
}

extension GameRegistry {
    /// The game of the record file at `path`, from the first line that is not blank: which parser reads it.
    /// `nil` when that line is not a header naming a registered game (the parser then says why).
    package func gameOfRecord(at path: String) -> GameDeclaration? {
        struct FirstLineRead: Error {}
        var found: GameDeclaration? = nil
        try? SystemIO.forEachLine(of: path) { line, number, _ throws(FirstLineRead) in
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) else { return }
            if let json = try? JSONValue.parse(Array(line)), case .object = json {
                found = try? recorded(in: Fields(json: json, line: number))
            }
            throw FirstLineRead()
        }
        return found
    }
}
