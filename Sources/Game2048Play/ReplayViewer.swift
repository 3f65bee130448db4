import Game2048
import Game2048System

/// The program behind `g2048 replay`: verifies recorded episodes, then shows them step by step.
///
///     let records = try EpisodeRecord.parse(text)
///     let outcome = ReplayViewer(records: records, name: "game.jsonl", delay: 150).run()
///
/// Every episode is replayed from its seed first (``EpisodeReplay/verify(_:)``);
/// the first mismatch fails the run before anything is shown. Then each position
/// is drawn, ``delay`` milliseconds apart: redrawn in place on the alternate
/// screen when the output is a terminal (the last position stays on the screen
/// afterwards), or as plain frames separated by blank lines otherwise. Each
/// episode ends with a line saying it was verified.
package struct ReplayViewer: Sendable {
    /// The episodes.
    package var records: [EpisodeRecord]
    /// The record's name, for titles and messages.
    package var name: String
    /// Milliseconds between positions.
    package var delay: Int
    /// Only verify and print the summary lines; show no positions.
    package var checkOnly: Bool
    /// Where frames and summaries go.
    package var output: Int32 = SystemIO.standardOutput

    /// Creates the program; nothing happens until ``run()``.
    package init(records: [EpisodeRecord], name: String, delay: Int, checkOnly: Bool = false) {
        self.records = records
        self.name = name
        self.delay = delay
        self.checkOnly = checkOnly
    }

    /// Verifies every episode, then shows them.
    package func run() -> PlayOutcome {
        var replays: [[EpisodeReplay.Frame]] = []
        for (index, record) in records.enumerated() {
            do {
                replays.append(try EpisodeReplay.verify(record))
            } catch {
                let episode = records.count > 1 ? "episode \(index + 1), " : ""
                return .failed("\(name): \(episode)\(error) (the record does not reproduce from seed \(record.header.seed))")
            }
        }
        let framesToTerminal = Terminal.isTerminal(output)
        let signals = Terminal.installSignalHandlers()
        if !checkOnly && framesToTerminal { Terminal.enterScreen(output, alternate: true) }
        defer { Terminal.restore() }
        var lastText: String? = nil
        for (index, frames) in replays.enumerated() where !checkOnly {
            for frame in frames {
                let text = self.frame(frame, episode: index, of: frames.count - 1).render(style: framesToTerminal ? .terminal : .plain)
                if framesToTerminal { Terminal.redraw(output, text) } else { SystemIO.writeAll(output, text + "\n\n") }
                var last = self.frame(frame, episode: index, of: frames.count - 1)
                last.help = nil
                lastText = last.render(style: .terminal)
                if delay > 0, frame.step < frames.count - 1 || index < replays.count - 1 {
                    let ready = SystemIO.waitReadable(signals >= 0 ? [signals] : [], timeout: delay)
                    if ready.first == true, let number = Terminal.receivedSignal() { return .interrupted(signal: number) }
                }
            }
        }
        if framesToTerminal {
            Terminal.restore()
            if let lastText { SystemIO.writeAll(output, lastText + "\n") }
        }
        for (index, frames) in replays.enumerated() {
            let header = records[index].header
            let last = frames[frames.count - 1]
            let episode = records.count > 1 ? "episode \(index + 1): " : ""
            SystemIO.writeAll(
                output,
                "\(episode)verified: \(last.step) step\(last.step == 1 ? "" : "s") reproduce exactly from seed \(header.seed) "
                    + "(\(header.rules.sizeLabel), \(header.player), score \(last.score), max tile \(last.board.maxTile))\n")
        }
        return .finished
    }

    /// The screen for one replayed position.
    func frame(_ frame: EpisodeReplay.Frame, episode: Int, of steps: Int) -> Frame {
        let header = records[episode].header
        var title = "g2048 replay · \(name)"
        if records.count > 1 { title += " · episode \(episode + 1) of \(records.count)" }
        title += " · \(header.rules.sizeLabel) · seed \(header.seed) · \(header.player)"
        var status = "step \(frame.step) of \(steps)"
        if let action = frame.action { status += " · \(action.name)" }
        status += " · score \(frame.score)"
        var message: String? = nil
        if frame.isOver { message = "Game over: score \(frame.score)." }
        return Frame(title: title, status: status, board: frame.board, message: message, help: "Ctrl-C stops")
    }
}
