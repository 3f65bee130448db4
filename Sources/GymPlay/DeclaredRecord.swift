import Game2048
import GymCore
import GymGames
import GymJSON

/// One recorded episode of a declared game (every game but 2048, whose records are older and have their own
/// lines): its options, seed and player, each action and reward, and the members the game adds
/// (`RecordLayout`), enough to replay it exactly through the game's declaration.
///
/// 2048's framing (``EpisodeFormat``: a header, numbered steps, an end line, restarts) with these lines, for
/// the card game `memorize`:
///
///     {"type":"header","format":"gym2048-episode","version":2,"game":"memorize","seed":7,
///      "config":{"rows":2,"cols":2,"reveal_seen":false,"mismatch_penalty":0,"max_steps":null},
///      "player":"human","deck":[[1,0],[0,1]]}
///     {"type":"step","step":1,"card":0,"content":1,"reward":0,"pairs":0}
///     {"type":"end","steps":1,"moves":0,"pairs":0,"outcome":"stopped","last_episode":true}
///
/// `config` holds every option of the game's table by name, as `make` takes them; the step's action member is
/// the game's (`action` by default). The end line says how the episode ended: `finished` (terminated by the
/// rules), `truncated` (a step limit) or `stopped`. The parser checks the framing, the options and the members'
/// presence; the replay (``DeclaredReplayer``) checks every value against the game's.
package typealias DeclaredRecord = RecordedEpisode<DeclaredEpisodes>

/// An option's value in a header, in the order of the game's table.
package struct RecordedOption: Hashable, Sendable {
    /// The option's name.
    package var name: String
    /// Its value.
    package var value: OptionValue
}

/// The first line of a recorded episode of a declared game.
package struct DeclaredHeader: Hashable, Sendable {
    /// The record format's version (declared games' records start at 2, 2048's version with end lines).
    package var version = EpisodeHeader.currentVersion
    /// The game.
    package var game: GameDeclaration
    /// The seed of the episode's reset.
    package var seed: UInt64
    /// Every option's value.
    package var config: [RecordedOption]
    /// Who played: `human`, or a player's name.
    package var player: String
    /// The game's own header members (`RecordLayout.header`).
    package var members: [RecordValue]

    /// A header of the current version.
    package init(game: GameDeclaration, seed: UInt64, config: [String: OptionValue], player: String, members: [RecordValue]) {
        self.game = game
        self.seed = seed
        self.config = game.options.map { RecordedOption(name: $0.name, value: config[$0.name] ?? $0.defaultValue) }
        self.player = player
        self.members = members
    }

    /// The policy options a record lacks when it was written before every game had them, and how those games
    /// played: an illegal action was refused.
    package static let beforeInvalidActionPolicies = Dictionary(
        uniqueKeysWithValues: EpisodeOption.beforeInvalidActionPolicies.map { ($0.name, $0.value) })

    /// The options by name, as `make` takes them.
    package var values: [String: OptionValue] { Dictionary(uniqueKeysWithValues: config.map { ($0.name, $0.value) }) }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.version, lhs.game.name, lhs.seed, lhs.config, lhs.player, lhs.members)
            == (rhs.version, rhs.game.name, rhs.seed, rhs.config, rhs.player, rhs.members)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(game.name)
        hasher.combine(seed)
    }
}

/// One step: the action, the reward and the game's own members.
package struct DeclaredStep: Hashable, Sendable {
    /// The members' names.
    package var layout: RecordLayout
    /// The action taken.
    package var action: Int
    /// Its reward.
    package var reward: Double
    /// The game's own members (`RecordLayout.ownStep`).
    package var members: [RecordValue]

    /// A step.
    package init(layout: RecordLayout, action: Int, reward: Double, members: [RecordValue]) {
        self.layout = layout
        self.action = action
        self.reward = reward
        self.members = members
    }
}

/// The last line of an episode.
package struct DeclaredEnd: Hashable, Sendable {
    /// How an episode ended.
    package enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// Terminated by the game's rules.
        case finished
        /// Cut by a step limit.
        case truncated
        /// The player quit or started again, input ended, or a signal stopped the game.
        case stopped

        /// The outcome of a last step (`nil`: none yet).
        package init(_ outcome: StepOutcome?) {
            self = outcome.map { $0.terminated ? .finished : $0.truncated ? .truncated : .stopped } ?? .stopped
        }
    }

    /// The members' names.
    package var layout: RecordLayout
    /// The steps taken.
    package var steps: Int
    /// The game's own members (`RecordLayout.end`).
    package var members: [RecordValue]
    /// How it ended.
    package var outcome: Outcome
    /// Whether it is the file's last episode (`false`: another header follows).
    package var isLastEpisode: Bool
}

/// Declared games' lines in a record file: the ``EpisodeFormat`` of ``DeclaredRecord``.
package enum DeclaredEpisodes: EpisodeFormat {
    /// Where an episode stands: the game's members and, while it is recorded, its end members and outcome.
    package struct Progress {
        var layout: RecordLayout
        /// The end line's members, as the recorder last heard them.
        var endMembers: [RecordValue] = []
        /// How the episode ended, as the recorder last heard it.
        var outcome = DeclaredEnd.Outcome.stopped
    }

    package static var onlyGame: String? { nil }

    package static func headerMembers(of game: GameDeclaration) -> Set<String> {
        Set(["type", "format", "version", "game", "seed", "config", "player"] + game.recordLayout.header)
    }
    package static func stepMembers(_ progress: Progress) -> Set<String> {
        Set(["type", "step", progress.layout.action, RecordLayout.reward] + progress.layout.step)
    }
    package static func endMembers(_ progress: Progress) -> Set<String> {
        Set(["type", "steps", "outcome", "last_episode"] + progress.layout.end)
    }

    package static func version(of header: DeclaredHeader) -> Int { header.version }
    package static func progress(at header: DeclaredHeader) -> Progress { Progress(layout: header.game.recordLayout) }
    package static func advance(_ progress: inout Progress, by step: DeclaredStep) {}
    package static func isLastEpisode(_ end: DeclaredEnd) -> Bool { end.isLastEpisode }
    package static func end(steps: Int, progress: Progress, isLastEpisode: Bool) -> DeclaredEnd {
        DeclaredEnd(layout: progress.layout, steps: steps, members: progress.endMembers, outcome: progress.outcome, isLastEpisode: isLastEpisode)
    }

    // MARK: Reading

    package static func header(_ fields: Fields, game: GameDeclaration) throws(RecordError) -> DeclaredHeader {
        guard game.name != Game2048Game.declaration.name else {
            throw fields.error("a 2048 episode: 2048's records have lines of their own (EpisodeRecord)")
        }
        let version = try fields.formatVersion()
        guard version >= EpisodeHeader.currentVersion else {
            throw fields.error("a \(game.name) record of version \(version): its records start at version \(EpisodeHeader.currentVersion)")
        }
        let seed = try fields.integer("seed", in: 0...Int128(UInt64.max))
        // Every option is written by every recorder: a missing one is a forged or cut line, not a default, but
        // for the invalid-action policy, which declared games gained after their first records.
        let values = try fields.object("config").gameOptions(of: game, missing: DeclaredHeader.beforeInvalidActionPolicies)
        let player = try fields.string("player")
        var members: [RecordValue] = []
        for name in game.recordLayout.header { members.append(try fields.recordValue(name)) }
        var header = DeclaredHeader(game: game, seed: UInt64(seed), config: values, player: player, members: members)
        header.version = Int(version)
        return header
    }

    package static func step(_ fields: Fields, progress: Progress) throws(RecordError) -> DeclaredStep {
        let layout = progress.layout
        let action = try fields.integer(layout.action, in: 0...Int128(Int.max))
        let reward = try fields.number(RecordLayout.reward)
        var members: [RecordValue] = []
        for name in layout.ownStep { members.append(try fields.recordValue(name)) }
        return DeclaredStep(layout: layout, action: Int(action), reward: reward, members: members)
    }

    package static func end(_ fields: Fields, steps: Int, progress: Progress) throws(RecordError) -> DeclaredEnd {
        let counted = try fields.integer("steps", in: 0...Int128(Int.max))
        guard counted == steps else { throw fields.error("the end line counts \(counted) steps, but the episode has \(steps)") }
        var members: [RecordValue] = []
        for name in progress.layout.end { members.append(try fields.recordValue(name)) }
        let name = try fields.string("outcome")
        guard let outcome = DeclaredEnd.Outcome(rawValue: name) else {
            let names = DeclaredEnd.Outcome.allCases.map(\.rawValue)
            throw fields.error("\"outcome\" must be \(names.listedWithOr), got \(JSONValue.string(name).summary)")
        }
        return DeclaredEnd(
            layout: progress.layout, steps: steps, members: members, outcome: outcome, isLastEpisode: try fields.bool("last_episode"))
    }

    // MARK: Writing

    package static func jsonLine(_ header: DeclaredHeader) -> String {
        JSONValue.object(
            [
                ("type", .string("header")), ("format", .string(EpisodeHeader.format)), ("version", .integer(Int128(header.version))),
                ("game", .string(header.game.name)), ("seed", .integer(Int128(header.seed))),
                ("config", .object(header.config.map { ($0.name, JSONValue($0.value)) })), ("player", .string(header.player)),
            ] + zip(header.game.recordLayout.header, header.members).map { ($0, JSONValue($1)) }
        ).serialized
    }

    package static func jsonLine(_ step: DeclaredStep, number: Int) -> String {
        var members: [(String, JSONValue)] = [
            ("type", .string("step")), ("step", .integer(Int128(number))), (step.layout.action, .integer(Int128(step.action))),
        ]
        let reward = JSONValue(OptionValue.number(step.reward))
        if !step.layout.step.contains(RecordLayout.reward) { members.append((RecordLayout.reward, reward)) }
        var own = step.members.makeIterator()
        for name in step.layout.step {
            if name == RecordLayout.reward {
                members.append((name, reward))
            } else if let value = own.next() {
                members.append((name, JSONValue(value)))
            }
        }
        return JSONValue.object(members).serialized
    }

    package static func jsonLine(_ end: DeclaredEnd) -> String {
        JSONValue.object(
            [("type", .string("end")), ("steps", .integer(Int128(end.steps)))]
                + zip(end.layout.end, end.members).map { ($0, JSONValue($1)) }
                + [("outcome", .string(end.outcome.rawValue)), ("last_episode", .bool(end.isLastEpisode))]
        ).serialized
    }
}

extension EpisodeRecorder where Format == DeclaredEpisodes {
    /// Notes how the current episode stands: the end line written when it ends holds these.
    package func note(endMembers: [RecordValue], outcome: DeclaredEnd.Outcome) {
        progress?.endMembers = endMembers
        progress?.outcome = outcome
    }
}

extension Fields {
    /// Member `name` as a game's record value: any JSON but an object.
    func recordValue(_ name: String) throws(RecordError) -> RecordValue {
        let json = try member(name)
        guard let value = RecordValue(json) else { throw error("\"\(name)\" must be a value or a list of values, got \(json.summary)") }
        return value
    }
}

extension RecordValue {
    /// The value of `json`; `nil` for an object, or an integer beyond `Int`.
    init?(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .boolean(flag)
        case .integer(let integer):
            guard let value = Int(exactly: integer) else { return nil }
            self = .integer(value)
        case .double(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items):
            var values: [RecordValue] = []
            for item in items {
                guard let value = RecordValue(item) else { return nil }
                values.append(value)
            }
            self = .array(values)
        default: return nil
        }
    }
}

extension JSONValue {
    /// A game's record value.
    init(_ value: RecordValue) { self = value.json }
}
