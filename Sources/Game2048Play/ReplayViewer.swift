import Game2048
import Game2048System

/// The program behind `g2048 replay`: verifies recorded episodes, then shows them step by step.
///
///     let outcome = ReplayViewer(source: .file("game.jsonl"), name: "game.jsonl", delay: 150).run()
///
/// Every episode is replayed from its seed first (``EpisodeReplay/Replayer``), as the record is
/// read: the first malformed line or mismatch fails the run at once, before anything is shown,
/// and a record file of any length is checked in the memory of one line. Then (unless
/// ``checkOnly``) the file is read again and each position drawn, ``delay`` milliseconds apart:
/// redrawn in place on the alternate screen when the output is a terminal (the last position
/// stays on the screen afterwards), or as plain frames separated by blank lines otherwise. Each
/// episode ends with a line saying it was verified.
package struct ReplayViewer: Sendable {
    /// Where the episodes come from.
    package enum Source: Sendable {
        /// A record file, read a line at a time (twice: to verify, then to show).
        case file(String)
        /// Episodes in memory.
        case records([EpisodeRecord])
    }

    /// The episodes.
    package var source: Source
    /// The record's name, for titles and messages.
    package var name: String
    /// Milliseconds between positions.
    package var delay: Int
    /// Only verify and print the summary lines; show no positions.
    package var checkOnly: Bool
    /// Where frames and summaries go.
    package var output: Int32 = SystemIO.standardOutput
    /// Where notes go.
    package var errors: Int32 = SystemIO.standardError

    /// Creates the program; nothing happens until ``run()``.
    package init(source: Source, name: String, delay: Int, checkOnly: Bool = false) {
        self.source = source
        self.name = name
        self.delay = delay
        self.checkOnly = checkOnly
    }

    /// What a verified episode was: enough to title its frames and print its summary.
    struct Summary {
        var header: EpisodeHeader
        var last: EpisodeReplay.Frame
    }

    /// Why a pass over the record stopped early.
    enum Stop: Error {
        case failed(String)
        case interrupted(Int32)
    }

    /// Verifies every episode, then shows them.
    package func run() -> PlayOutcome {
        var summaries: [Summary] = []
        do {
            try verify(into: &summaries)
        } catch let stop as Stop {
            return outcome(stop)
        } catch {
            return .failed("\(error)")
        }
        let framesToTerminal = Terminal.isTerminal(output)
        let signals = Terminal.installSignalHandlers()
        if !checkOnly && framesToTerminal { Terminal.enterScreen(output, alternate: true) }
        defer { Terminal.restore() }
        var lastText: String? = nil
        if !checkOnly {
            do {
                try show(summaries, toTerminal: framesToTerminal, signals: signals, lastText: &lastText)
            } catch let stop as Stop {
                return outcome(stop)
            } catch {
                return .failed("\(error)")
            }
        }
        if framesToTerminal {
            Terminal.restore()
            if let lastText { SystemIO.writeAll(output, lastText + "\n") }
        }
        for (index, summary) in summaries.enumerated() {
            let header = summary.header, last = summary.last
            let episode = summaries.count > 1 ? "episode \(index + 1): " : ""
            SystemIO.writeAll(
                output,
                "\(episode)verified: \(last.step) step\(last.step == 1 ? "" : "s") reproduce exactly from seed \(header.seed) "
                    + "(\(header.rules.sizeLabel), \(header.player), score \(last.score), max tile \(last.board.maxTile))\n")
        }
        return .finished
    }

    func outcome(_ stop: Stop) -> PlayOutcome {
        switch stop {
        case .failed(let message): .failed(message)
        case .interrupted(let signal): .interrupted(signal: signal)
        }
    }

    /// The first pass: every episode replayed as its lines are read.
    func verify(into summaries: inout [Summary]) throws {
        var replayer: EpisodeReplay.Replayer? = nil
        var notedVersion1 = false
        try forEachEvent { event in
            switch event {
            case .header(let header):
                if header.version == 1 && !notedVersion1 {
                    notedVersion1 = true
                    SystemIO.writeAll(
                        errors,
                        "note: \(name) is a version 1 record, written before records had end lines: "
                            + "it is replayed, but a record cut off at a line boundary cannot be told from a complete one\n")
                }
                replayer = try checked(summaries.count, header) { () throws(ReplayMismatch) in try EpisodeReplay.Replayer(header) }
                summaries.append(Summary(header: header, last: replayer!.start))
            case .step(let step):
                let frame = try checked(summaries.count - 1, summaries[summaries.count - 1].header) { () throws(ReplayMismatch) in
                    try replayer!.step(step)
                }
                summaries[summaries.count - 1].last = frame
            case .end(let end):
                try checked(summaries.count - 1, summaries[summaries.count - 1].header) { () throws(ReplayMismatch) in
                    try replayer!.end(end)
                }
            }
        }
    }

    /// `body`'s result, or its mismatch as the failure of episode `index` (from 0).
    func checked<T>(_ index: Int, _ header: EpisodeHeader, _ body: () throws(ReplayMismatch) -> T) throws -> T {
        do {
            return try body()
        } catch {
            // Whether the record has more than one episode is not known yet: name the episode past the first.
            let episode = index > 0 ? "episode \(index + 1), " : ""
            throw Stop.failed("\(name): \(episode)\(error) (the record does not reproduce from seed \(header.seed))")
        }
    }

    /// The second pass: every position drawn.
    func show(_ summaries: [Summary], toTerminal: Bool, signals: Int32, lastText: inout String?) throws {
        var replayer: EpisodeReplay.Replayer? = nil
        var episode = -1
        func draw(_ frame: EpisodeReplay.Frame) throws {
            let summary = summaries[episode]
            let shown = self.frame(frame, episode: episode, of: summaries)
            let text = shown.render(style: toTerminal ? .terminal : .plain)
            if toTerminal { Terminal.redraw(output, text) } else { SystemIO.writeAll(output, text + "\n\n") }
            var last = shown
            last.help = nil
            lastText = last.render(style: .terminal)
            if delay > 0, frame.step < summary.last.step || episode < summaries.count - 1 {
                let ready = SystemIO.waitReadable(signals >= 0 ? [signals] : [], timeout: delay)
                if ready.first == true, let number = Terminal.receivedSignal() { throw Stop.interrupted(number) }
            }
        }
        try forEachEvent { event in
            switch event {
            case .header(let header):
                episode += 1
                replayer = try EpisodeReplay.Replayer(header)
                try draw(replayer!.start)
            case .step(let step):
                try draw(try replayer!.step(step))
            case .end:
                break
            }
        }
    }

    /// Calls `body` with each line's event, from the file or the records.
    func forEachEvent(_ body: (RecordEvent) throws -> Void) throws {
        switch source {
        case .records(let records):
            for record in records {
                try body(.header(record.header))
                for step in record.steps { try body(.step(step)) }
                if let end = record.end { try body(.end(end)) }
            }
        case .file(let path):
            var parser = RecordParser()
            do {
                try SystemIO.forEachLine(of: path) { line, number, isCutOff throws(any Error) in
                    let event: RecordEvent?
                    do throws(RecordError) {
                        event = try parser.read(line, number: number, isCutOff: isCutOff)
                    } catch {
                        var error = error
                        error.file = path
                        throw Stop.failed(error.description)
                    }
                    if let event { try body(event) }
                }
            } catch {
                switch error {
                case .file(let failure): throw Stop.failed(RecordError(line: 0, failure.description).description)
                case .body(let failure): throw failure
                }
            }
            do throws(RecordError) { try parser.finish() } catch {
                var error = error
                error.file = path
                throw Stop.failed(error.description)
            }
        }
    }

    /// The screen for one replayed position of episode `episode` (from 0).
    func frame(_ frame: EpisodeReplay.Frame, episode: Int, of summaries: [Summary]) -> Frame {
        let header = summaries[episode].header
        var title = "g2048 replay · \(name)"
        if summaries.count > 1 { title += " · episode \(episode + 1) of \(summaries.count)" }
        title += " · \(header.rules.sizeLabel) · seed \(header.seed) · \(header.player)"
        var status = "step \(frame.step) of \(summaries[episode].last.step)"
        if let action = frame.action { status += " · \(action.name)" }
        status += " · score \(frame.score)"
        var message: String? = nil
        if frame.isOver { message = "Game over: score \(frame.score)." }
        return Frame(title: title, status: status, board: frame.board, message: message, help: "Ctrl-C stops")
    }
}
