import GymJSON
import GymGames
import Memorize

/// One recorded Memorize episode: its deal and every card turned, enough to replay it exactly.
///
/// A record is 2048's framing (``EpisodeFormat``: a header, numbered steps, an end line, restarts) with the
/// game's own lines:
///
///     {"type":"header","format":"gym2048-episode","version":2,"game":"memorize","seed":7,
///      "config":{"rows":2,"cols":2,"reveal_seen":false,"mismatch_penalty":0,"max_steps":null},
///      "player":"human","deck":[[1,0],[0,1]]}
///     {"type":"step","step":1,"card":0,"content":1,"reward":0,"pairs":0}
///     {"type":"step","step":2,"card":3,"content":1,"reward":1,"pairs":1}
///     {"type":"end","steps":2,"moves":1,"pairs":1,"outcome":"stopped","last_episode":true}
///
/// `config` holds every Memorize option (`MemorizeOption.all`) by name, as the protocol's `make` takes them
/// (`rows` and `cols` required, the others default when left out); `deck` is every card's content, row by row,
/// as the seed deals it. A step says the card turned, the content it showed, its reward and the pairs matched
/// after it; the end line counts the steps, the moves (two cards each) and the pairs, and says how the game
/// ended: `finished` (every pair matched), `truncated` (`max_steps`) or `stopped`.
package typealias MemorizeRecord = RecordedEpisode<MemorizeEpisodes>

/// The first line of a recorded Memorize episode: the rules, the seed, the player and the deal.
package struct MemorizeHeader: Hashable, Sendable {
    /// The record format's version (Memorize's records start at 2, 2048's format version with end lines).
    package var version: Int
    /// The seed passed to `MemorizeEnvironment.reset(seed:)`.
    package var seed: UInt64
    /// The game's options.
    package var rules: MemorizeRules
    /// Who played: `human`, or a player's name.
    package var player: String
    /// The deal: every card's content.
    package var deck: Deck

    /// Creates a header of the current format version.
    package init(seed: UInt64, rules: MemorizeRules, player: String, deck: Deck) {
        version = EpisodeHeader.currentVersion
        self.seed = seed
        self.rules = rules
        self.player = player
        self.deck = deck
    }
}

/// One card turned, and what the game answered.
package struct MemorizeRecordStep: Hashable, Sendable {
    /// The card turned.
    package var card: Int
    /// Its content.
    package var content: Int
    /// The step's reward.
    package var reward: Double
    /// The pairs matched after the step.
    package var pairs: Int

    /// Creates a step.
    package init(card: Int, content: Int, reward: Double, pairs: Int) {
        self.card = card
        self.content = content
        self.reward = reward
        self.pairs = pairs
    }

    /// The record of turning `card` in `environment`, which gave `step`.
    package init(card: Int, step: MemorizeStep, in environment: MemorizeEnvironment) {
        self.init(card: card, content: Int(environment.deck.contents[card]), reward: step.reward, pairs: step.info.pairsMatched)
    }
}

/// The last line of a recorded Memorize episode.
package struct MemorizeEnd: Hashable, Sendable {
    /// How a game of Memorize ended.
    package enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// Every pair was matched.
        case finished
        /// `max_steps` cards were turned.
        case truncated
        /// The player quit or dealt again, input ended, or a signal stopped the game.
        case stopped
    }

    /// The cards turned.
    package var steps: Int
    /// The moves made: two cards each, matched or not.
    package var moves: Int
    /// The pairs matched.
    package var pairs: Int
    /// How it ended.
    package var outcome: Outcome
    /// Whether it is the file's last episode (`false`: another header follows).
    package var isLastEpisode: Bool
}

/// Memorize's lines in a record file: the ``EpisodeFormat`` of ``MemorizeRecord``.
package enum MemorizeEpisodes: EpisodeFormat {
    /// Where an episode stands: its rules, the pairs matched and the moves made so far.
    package struct Progress {
        var rules: MemorizeRules
        var steps = 0
        var pairs = 0
        var moves = 0

        /// How the game ended, if it did.
        var outcome: MemorizeEnd.Outcome? {
            if pairs == rules.pairCount { return .finished }
            if let maxSteps = rules.maxSteps, steps >= maxSteps { return .truncated }
            return nil
        }
    }

    package static var game: Game { .memorize }
    package static let headerMembers: Set = ["type", "format", "version", "game", "seed", "config", "player", "deck"]
    package static let stepMembers: Set = ["type", "step", "card", "content", "reward", "pairs"]
    package static let endMembers: Set = ["type", "steps", "moves", "pairs", "outcome", "last_episode"]
    /// The options a header's `config` must give; the others default when left out.
    static let requiredOptions = [MemorizeOption.rows.name, MemorizeOption.cols.name]

    package static func version(of header: MemorizeHeader) -> Int { header.version }
    package static func progress(at header: MemorizeHeader) -> Progress { Progress(rules: header.rules) }
    package static func isLastEpisode(_ end: MemorizeEnd) -> Bool { end.isLastEpisode }

    package static func advance(_ progress: inout Progress, by step: MemorizeRecordStep) {
        progress.steps += 1
        if progress.steps % 2 == 0 { progress.moves += 1 }
        progress.pairs = step.pairs
    }

    package static func end(steps: Int, progress: Progress, isLastEpisode: Bool) -> MemorizeEnd {
        MemorizeEnd(steps: steps, moves: progress.moves, pairs: progress.pairs, outcome: progress.outcome ?? .stopped, isLastEpisode: isLastEpisode)
    }

    // MARK: Reading

    package static func header(_ fields: Fields) throws(RecordError) -> MemorizeHeader {
        let version = try fields.formatVersion()
        guard version == EpisodeHeader.currentVersion else {
            throw fields.error("a Memorize record of version \(version): Memorize's records start at version \(EpisodeHeader.currentVersion)")
        }
        let seed = try fields.integer("seed", in: 0...Int128(UInt64.max))
        let rules = try Self.rules(try fields.object("config"))
        let player = try fields.string("player")
        let deck = try Self.deck(fields, rules: rules)
        var header = MemorizeHeader(seed: UInt64(seed), rules: rules, player: player, deck: deck)
        header.version = Int(version)
        return header
    }

    /// The rules of a `config` object, each option read through its declaration.
    static func rules(_ config: Fields) throws(RecordError) -> MemorizeRules {
        try config.allowOnly(Set(MemorizeOption.all.map(\.name)))
        var settings = MemorizeSettings(MemorizeRules())
        for option in MemorizeOption.all where requiredOptions.contains(option.name) || config.json[option.name] != nil {
            option.assign(try config.option(option.name, option.constraint), to: &settings)
        }
        do {
            return try settings.rules()
        } catch {
            throw config.error("\"config\": \(error)")
        }
    }

    /// The `deck` member: `rules.rows` rows of `rules.cols` contents, each content twice.
    static func deck(_ fields: Fields, rules: MemorizeRules) throws(RecordError) -> Deck {
        let shape = "\"deck\" must be \(rules.rows) rows of \(rules.cols) card contents"
        guard case .array(let rows) = try fields.member("deck"), rows.count == rules.rows else { throw fields.error(shape) }
        var contents: [Int] = []
        for row in rows {
            guard case .array(let cards) = row, cards.count == rules.cols else { throw fields.error(shape) }
            for card in cards {
                guard case .integer(let content) = card, (0..<Int128(rules.pairCount)).contains(content) else {
                    throw fields.error("\"deck\" holds contents from 0 to \(rules.pairCount - 1), got \(card.summary)")
                }
                contents.append(Int(content))
            }
        }
        do {
            return try Deck(contents: contents)
        } catch {
            throw fields.error("\"deck\": \(error)")
        }
    }

    package static func step(_ fields: Fields, progress: Progress) throws(RecordError) -> MemorizeRecordStep {
        if let outcome = progress.outcome {
            throw fields.error("a step after the game \(outcome == .finished ? "was finished" : "reached max_steps")")
        }
        let card = try fields.integer("card", in: 0...Int128(progress.rules.cardCount - 1))
        let content = try fields.integer("content", in: 0...Int128(progress.rules.pairCount - 1))
        let reward = try fields.number("reward")
        // A pair is matched on a move's second card only, one at a time.
        let secondCard = progress.steps % 2 == 1
        let pairs = try fields.integer("pairs", in: Int128(progress.pairs)...Int128(progress.pairs + (secondCard ? 1 : 0)))
        return MemorizeRecordStep(card: Int(card), content: Int(content), reward: reward, pairs: Int(pairs))
    }

    package static func end(_ fields: Fields, steps: Int, progress: Progress) throws(RecordError) -> MemorizeEnd {
        let counted = try fields.integer("steps", in: 0...Int128(Int.max))
        guard counted == steps else { throw fields.error("the end line counts \(counted) steps, but the episode has \(steps)") }
        let moves = try fields.integer("moves", in: 0...Int128(Int.max))
        guard moves == progress.moves else { throw fields.error("the end line counts \(moves) moves, but the episode made \(progress.moves)") }
        let pairs = try fields.integer("pairs", in: 0...Int128(Int.max))
        guard pairs == progress.pairs else {
            throw fields.error("the end line counts \(pairs) pairs, but the episode's last step has \(progress.pairs)")
        }
        let name = try fields.string("outcome")
        guard let outcome = MemorizeEnd.Outcome(rawValue: name) else {
            let names = MemorizeEnd.Outcome.allCases.map(\.rawValue)
            throw fields.error("\"outcome\" must be \(names.listedWithOr), got \(JSONValue.string(name).summary)")
        }
        let expected = progress.outcome ?? .stopped
        guard outcome == expected else {
            throw fields.error("the end line says \(outcome.rawValue), but the episode's steps say \(expected.rawValue)")
        }
        return MemorizeEnd(steps: steps, moves: Int(moves), pairs: Int(pairs), outcome: outcome, isLastEpisode: try fields.bool("last_episode"))
    }

    // MARK: Writing

    package static func jsonLine(_ header: MemorizeHeader) -> String {
        let settings = MemorizeSettings(header.rules)
        let cols = header.rules.cols
        return JSONValue.object([
            ("type", .string("header")),
            ("format", .string(EpisodeHeader.format)),
            ("version", .integer(Int128(header.version))),
            ("game", .string(Game.memorize.rawValue)),
            ("seed", .integer(Int128(header.seed))),
            ("config", .object(MemorizeOption.all.map { ($0.name, JSONValue($0.value(in: settings))) })),
            ("player", .string(header.player)),
            (
                "deck",
                .array(
                    (0..<header.rules.rows).map { row in
                        .array(header.deck.contents[(row * cols)..<((row + 1) * cols)].map { .integer(Int128($0)) })
                    })
            ),
        ]).serialized
    }

    package static func jsonLine(_ step: MemorizeRecordStep, number: Int) -> String {
        JSONValue.object([
            ("type", .string("step")),
            ("step", .integer(Int128(number))),
            ("card", .integer(Int128(step.card))),
            ("content", .integer(Int128(step.content))),
            ("reward", JSONValue(.number(step.reward))),
            ("pairs", .integer(Int128(step.pairs))),
        ]).serialized
    }

    package static func jsonLine(_ end: MemorizeEnd) -> String {
        JSONValue.object([
            ("type", .string("end")),
            ("steps", .integer(Int128(end.steps))),
            ("moves", .integer(Int128(end.moves))),
            ("pairs", .integer(Int128(end.pairs))),
            ("outcome", .string(end.outcome.rawValue)),
            ("last_episode", .bool(end.isLastEpisode)),
        ]).serialized
    }
}
