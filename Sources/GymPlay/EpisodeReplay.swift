import Game2048

/// Replays a recorded episode from its seed and checks that every step reproduces exactly.
///
///     let frames = try EpisodeReplay.verify(record)
///     frames.last?.board     // the final position
///
/// The environment is rebuilt from the header's rules and reset with its seed;
/// the start position must equal the recorded board, and each recorded action
/// must give the recorded reward, spawn and score. The first difference is
/// reported as a ``ReplayMismatch`` naming the step, the action, the field,
/// the recorded value and the replayed one. The end line's outcome (`game_over`
/// or `stopped`) must agree with the replay too.
package enum EpisodeReplay {
    /// One position of a replay: the start (step 0) or the position after a step.
    package struct Frame: Hashable, Sendable {
        /// 0 for the start, then 1, 2, …
        package var step: Int
        /// The action that led here (`nil` at the start).
        package var action: Direction?
        /// The board.
        package var board: Board
        /// The score so far.
        package var score: Int64
        /// Whether the episode ended here.
        package var isOver: Bool
    }

    /// Replays `record` and returns every position, the start first.
    ///
    /// - Throws: ``ReplayMismatch`` at the first step that does not reproduce,
    ///   or when the record was made under another `Rules.version`.
    /// - Complexity: O(steps × cells).
    package static func verify(_ record: EpisodeRecord) throws(ReplayMismatch) -> [Frame] {
        var replayer = try Replayer(record.header)
        var frames = [replayer.start]
        for recorded in record.steps { frames.append(try replayer.step(recorded)) }
        if let end = record.end { try replayer.end(end) }
        return frames
    }

    /// One episode replayed a step at a time, as its record is read: a record of any length is
    /// checked in constant memory, and a difference is found as soon as its line is read.
    package struct Replayer: EpisodeReplayer {
        package typealias Format = Game2048Episodes
        var environment: Environment
        /// The start position.
        package let start: Frame
        /// The last position.
        package private(set) var last: Frame

        /// Resets an environment as `header` says and checks the start board.
        package init(_ header: EpisodeHeader) throws(ReplayMismatch) {
            guard header.rulesVersion == Rules.version else {
                throw ReplayMismatch(
                    step: 0, "the record was made with rules version \(header.rulesVersion); this g2048 plays rules version \(Rules.version)")
            }
            environment = Environment(rules: header.rules)
            let reset = environment.reset(seed: header.seed)
            if reset.observation != header.board {
                let cell = (0..<reset.observation.cellCount).first { reset.observation[$0] != header.board[$0] } ?? 0
                throw ReplayMismatch(
                    step: 0,
                    "the recorded start board has \(EpisodeReplay.tileName(header.board[cell])) on cell \(cell), "
                        + "but seed \(header.seed) gives \(EpisodeReplay.tileName(reset.observation[cell]))")
            }
            start = Frame(step: 0, action: nil, board: reset.observation, score: 0, isOver: environment.isOver)
            last = start
        }

        /// Plays the next recorded step and checks its reward, spawn and score.
        package mutating func step(_ recorded: EpisodeStep) throws(ReplayMismatch) -> Frame {
            let number = last.step + 1
            guard !environment.isOver else {
                throw ReplayMismatch.pastTheEnd(step: number)
            }
            let step: Step
            do {
                step = try environment.step(recorded.action)
            } catch {
                throw ReplayMismatch(step: number, "\(recorded.action.name) is illegal here and the rules reject it")
            }
            let prefix = "\(recorded.action.name): "
            if step.reward != recorded.reward {
                throw ReplayMismatch(step: number, prefix + "recorded reward \(recorded.reward), replay gives \(step.reward)")
            }
            if step.info.spawn != recorded.spawn {
                throw ReplayMismatch(
                    step: number,
                    prefix + "recorded spawn \(EpisodeReplay.spawnName(recorded.spawn)), replay spawns \(EpisodeReplay.spawnName(step.info.spawn))")
            }
            if step.info.score != recorded.score {
                throw ReplayMismatch(step: number, prefix + "recorded score \(recorded.score), replay gives \(step.info.score)")
            }
            last = Frame(step: number, action: recorded.action, board: step.observation, score: step.info.score, isOver: environment.isOver)
            return last
        }

        /// Checks the end line's outcome against the replay.
        package func end(_ end: EpisodeEnd) throws(ReplayMismatch) {
            guard (end.outcome == .gameOver) != environment.isOver else { return }
            throw ReplayMismatch(
                step: last.step,
                environment.isOver
                    ? "the record says the game was stopped, but no legal move is left"
                    : "the record says the game was over, but the replay can still move")
        }
    }

    static func tileName(_ exponent: UInt8) -> String {
        exponent == 0 ? "no tile" : "a \(Board.value(ofExponent: exponent))"
    }

    static func spawnName(_ spawn: Spawn?) -> String {
        spawn.map { "a \($0.value) on cell \($0.cell)" } ?? "nothing"
    }
}

extension EpisodeReplay.Replayer {
    package static func stepNumber(of position: EpisodeReplay.Frame) -> Int { position.step }
    package static func seed(of header: EpisodeHeader) -> UInt64 { header.seed }
    package static func title(of header: EpisodeHeader) -> String { "\(header.rules.sizeLabel) · seed \(header.seed) · \(header.player)" }

    package static func summary(of header: EpisodeHeader, last: EpisodeReplay.Frame) -> String {
        "\(header.rules.sizeLabel), \(header.player), score \(last.score), max tile \(last.board.maxTile)"
    }

    package static func frame(_ position: EpisodeReplay.Frame, title: String, lastStep: Int) -> Frame {
        var status = "step \(position.step) of \(lastStep)"
        if let action = position.action { status += " · \(action.name)" }
        status += " · score \(position.score)"
        let message = position.isOver ? "Game over: score \(position.score)." : nil
        return Frame(title: title, status: status, board: position.board, message: message, help: "Ctrl-C stops")
    }
}
