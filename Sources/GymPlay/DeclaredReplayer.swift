import GymCore
import GymJSON

/// A recorded episode of a declared game replayed a step at a time through the game's declaration (`any
/// GameInstance`): the start members must be the ones the seed gives, and each step's reward and members the
/// ones the game gives.
///
///     var replayer = try DeclaredReplayer(record.header)
///     for step in record.steps { _ = try replayer.step(step) }
package struct DeclaredReplayer: EpisodeReplayer {
    package typealias Format = DeclaredEpisodes

    /// One position of a replay: the start (step 0) or the game after a step.
    package struct Position: Sendable {
        /// 0 for the start, then 1, 2, …
        package var step: Int
        /// The action taken to get here (`nil` at the start).
        package var action: Int?
        /// The game at this position.
        package var game: any GameInstance
        /// Its results.
        package var results: GameResults
        /// The last step's outcome (`nil` at the start).
        package var outcome: StepOutcome?
        /// The reward so far.
        package var total: Double
    }

    package let start: Position
    /// The last position.
    package private(set) var last: Position
    let layout: RecordLayout

    package init(_ header: DeclaredHeader) throws(ReplayMismatch) {
        var game: any GameInstance
        do {
            game = try header.game.make(header.values, count: 1, autoresetMode: .disabled)
        } catch {
            throw ReplayMismatch(step: 0, "the options make no game: \(error)")
        }
        game.reset(seeds: [header.seed])
        layout = header.game.recordLayout
        let dealt = game.recorded?.startMembers(at: 0) ?? []
        for (index, name) in layout.header.enumerated() where index < dealt.count && header.members[index] != dealt[index] {
            throw ReplayMismatch(
                step: 0, "the recorded \(name) is \(header.members[index].json.serialized), but seed \(header.seed) gives \(dealt[index].json.serialized)")
        }
        var results = GameResults(space: game.space, count: 1)
        results.read(game)
        start = Position(step: 0, action: nil, game: game, results: results, outcome: nil, total: 0)
        last = start
    }

    package mutating func step(_ recorded: DeclaredStep) throws(ReplayMismatch) -> Position {
        let number = last.step + 1
        if let outcome = last.outcome, outcome.terminated || outcome.truncated { throw ReplayMismatch.pastTheEnd(step: number) }
        var game = last.game
        do {
            try [Int64(recorded.action)].withUnsafeBufferPointer { actions throws(GameRefusal) in try game.step(actions: actions) }
        } catch {
            let reason: String =
                switch error {
                case .illegalAction(_, let reason): reason
                case .episodesOver: "the episode is over"
                }
            throw ReplayMismatch(step: number, "\(reason), and the rules refuse it")
        }
        var results = last.results
        results.read(game)
        let outcome = results.outcome(at: 0)
        let prefix = "\(layout.action) \(recorded.action): "
        if outcome.reward != recorded.reward {
            throw ReplayMismatch(step: number, prefix + "recorded reward \(recorded.reward), replay gives \(outcome.reward)")
        }
        let replayed = game.recorded?.stepMembers(at: 0, after: recorded.action) ?? []
        for (index, name) in layout.ownStep.enumerated() where index < replayed.count && recorded.members[index] != replayed[index] {
            throw ReplayMismatch(
                step: number, prefix + "recorded \(name) \(recorded.members[index].json.serialized), replay gives \(replayed[index].json.serialized)")
        }
        last = Position(step: number, action: recorded.action, game: game, results: results, outcome: outcome, total: last.total + outcome.reward)
        return last
    }

    package func end(_ end: DeclaredEnd) throws(ReplayMismatch) {
        let replayed = DeclaredEnd.Outcome(last.outcome)
        guard end.outcome == replayed else {
            throw ReplayMismatch(step: last.step, "the record says the game was \(end.outcome.rawValue), but the replay is \(replayed.rawValue)")
        }
        let members = last.game.recorded?.endMembers(at: 0) ?? []
        for (index, name) in layout.end.enumerated() where index < members.count && end.members[index] != members[index] {
            throw ReplayMismatch(
                step: last.step, "the end line's \(name) is \(end.members[index].json.serialized), but the replay has \(members[index].json.serialized)")
        }
    }

    package static func stepNumber(of position: Position) -> Int { position.step }
    package static func seed(of header: DeclaredHeader) -> UInt64 { header.seed }

    /// The rules in a few words (`memorize 2x2`), or the game's name.
    static func rulesTitle(of header: DeclaredHeader) -> String {
        let game = try? header.game.make(header.values, count: 1, autoresetMode: .disabled)
        return game?.recorded?.recordTitle ?? header.game.name
    }

    package static func title(of header: DeclaredHeader) -> String { "\(rulesTitle(of: header)) · seed \(header.seed) · \(header.player)" }

    package static func summary(of header: DeclaredHeader, last: Position) -> String {
        let standing = last.game.recorded?.recordSummary(at: 0) ?? "reward \(last.total)"
        return "\(rulesTitle(of: header)), \(header.player), \(standing)"
    }

    package static func frame(_ position: Position, title: String, lastStep: Int) -> Frame {
        var status = "step \(position.step) of \(lastStep)"
        if let action = position.action { status += " · \(position.game.recordLayout.action) \(action)" }
        status += " · reward \(position.total)"
        let message: String? =
            switch DeclaredEnd.Outcome(position.outcome) {
            case .finished: "The episode ended."
            case .truncated: "Cut by the step limit."
            case .stopped: nil
            }
        return Frame(title: title, status: status, text: position.game.text(at: 0), message: message, help: "Ctrl-C stops")
    }
}

extension GameInstance {
    /// The members this game adds to its records (none for a game that is no ``RecordedEnvironment``).
    var recordLayout: RecordLayout { recorded?.layout ?? RecordLayout() }
}
