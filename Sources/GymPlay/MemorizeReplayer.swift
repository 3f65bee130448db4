import GymCore
import Memorize

/// A recorded Memorize episode replayed a card at a time: the deal must be the one the seed gives, and each
/// card turned must show the recorded content, reward and pairs.
///
///     var replayer = try MemorizeReplayer(record.header)
///     for step in record.steps { _ = try replayer.step(step) }
package struct MemorizeReplayer: EpisodeReplayer {
    package typealias Format = MemorizeEpisodes

    /// One position of a replay: the start (step 0) or the cards after a step.
    package struct Position: Sendable {
        /// 0 for the start, then 1, 2, …
        package var step: Int
        /// The card turned to get here (`nil` at the start).
        package var card: Int?
        /// The game at this position.
        package var environment: MemorizeEnvironment
    }

    package let start: Position
    /// The last position.
    package private(set) var last: Position

    package init(_ header: MemorizeHeader) throws(ReplayMismatch) {
        var environment = MemorizeEnvironment(rules: header.rules)
        environment.reset(seed: header.seed)
        let dealt = environment.deck.contents
        if let card = dealt.indices.first(where: { Int(dealt[$0]) != Int(header.deck.contents[$0]) }) {
            throw ReplayMismatch(
                step: 0,
                "the recorded deck has \(MemorizeEnvironment.letter(Int(header.deck.contents[card]))) on card \(card), "
                    + "but seed \(header.seed) deals \(MemorizeEnvironment.letter(Int(dealt[card])))")
        }
        start = Position(step: 0, card: nil, environment: environment)
        last = start
    }

    package mutating func step(_ recorded: MemorizeRecordStep) throws(ReplayMismatch) -> Position {
        let number = last.step + 1
        var environment = last.environment
        guard !environment.isOver else {
            throw ReplayMismatch.pastTheEnd(step: number)
        }
        let step: MemorizeStep
        do {
            step = try environment.step(recorded.card)
        } catch {
            throw ReplayMismatch(step: number, "\(error), and the rules refuse it")
        }
        let replayed = MemorizeRecordStep(card: recorded.card, step: step, in: environment)
        let prefix = "card \(recorded.card): "
        if replayed.content != recorded.content {
            throw ReplayMismatch(
                step: number,
                prefix + "recorded content \(MemorizeEnvironment.letter(recorded.content)), "
                    + "replay shows \(MemorizeEnvironment.letter(replayed.content))")
        }
        if replayed.reward != recorded.reward {
            throw ReplayMismatch(step: number, prefix + "recorded reward \(recorded.reward), replay gives \(replayed.reward)")
        }
        if replayed.pairs != recorded.pairs {
            throw ReplayMismatch(step: number, prefix + "recorded \(recorded.pairs) pairs matched, replay has \(replayed.pairs)")
        }
        last = Position(step: number, card: recorded.card, environment: environment)
        return last
    }

    package func end(_ end: MemorizeEnd) throws(ReplayMismatch) {
        let environment = last.environment
        let replayed = Self.outcome(of: environment)
        guard end.outcome != replayed else { return }
        throw ReplayMismatch(step: last.step, "the record says the game was \(end.outcome.rawValue), but the replay is \(replayed.rawValue)")
    }

    /// How the game stands: finished (every pair matched), truncated (ended otherwise: `max_steps`), or going on.
    static func outcome(of environment: MemorizeEnvironment) -> MemorizeEnd.Outcome {
        environment.pairsMatched == environment.rules.pairCount ? .finished : environment.isOver ? .truncated : .stopped
    }

    package static func stepNumber(of position: Position) -> Int { position.step }
    package static func seed(of header: MemorizeHeader) -> UInt64 { header.seed }

    package static func title(of header: MemorizeHeader) -> String {
        "memorize \(header.rules.rows)x\(header.rules.cols) · seed \(header.seed) · \(header.player)"
    }

    package static func summary(of header: MemorizeHeader, last: Position) -> String {
        let info = last.environment.info
        return "memorize \(header.rules.rows)x\(header.rules.cols), \(header.player), \(info.moves) move\(info.moves == 1 ? "" : "s"), "
            + "\(info.pairsMatched) of \(header.rules.pairCount) pairs"
    }

    package static func frame(_ position: Position, title: String, lastStep: Int) -> Frame {
        let environment = position.environment
        let info = environment.info
        var status = "step \(position.step) of \(lastStep)"
        if let card = position.card { status += " · card \(card)" }
        status += " · moves \(info.moves) · pairs \(info.pairsMatched)/\(environment.rules.pairCount)"
        let message: String? =
            switch Self.outcome(of: environment) {
            case .finished: "All pairs matched in \(info.moves) moves."
            case .truncated: "Cut at \(info.steps) cards (max_steps)."
            case .stopped: nil
            }
        return Frame(title: title, status: status, text: environment.text, message: message, help: "Ctrl-C stops")
    }
}
