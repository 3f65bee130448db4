import Game2048
import GymSystem
import GymCore
import GymGames

/// The program behind `g2048 replay`: verifies recorded episodes of one game, then shows them step by step.
///
///     let outcome = ReplayViewer<EpisodeReplay.Replayer>(source: .file("game.jsonl"), name: "game.jsonl", delay: 150).run()
///
/// Every episode is replayed from its seed first (the game's ``EpisodeReplayer``), as the record is
/// read: the first malformed line or mismatch fails the run at once, before anything is shown,
/// and a record file of any length is checked in the memory of one line. Then (unless
/// ``checkOnly``) the file is read again and each position drawn, ``delay`` milliseconds apart:
/// redrawn in place on the alternate screen when the output is a terminal (the last position
/// stays on the screen afterwards), or as plain frames separated by blank lines otherwise. Each
/// episode ends with a line saying it was verified.
package struct ReplayViewer<Replayer: EpisodeReplayer>: Sendable {
    package typealias Format = Replayer.Format

    /// Where the episodes come from.
    package enum Source: Sendable {
        /// A record file, read a line at a time (twice: to verify, then to show).
        case file(String)
        /// Episodes in memory.
        case records([RecordedEpisode<Format>])
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
    /// The games a record's headers may name.
    package var registry: GameRegistry = .standard
    /// The game the record must hold (`nil`: the one its first header names).
    package var game: GameDeclaration? = nil

    /// Creates the program; nothing happens until ``run()``.
    package init(source: Source, name: String, delay: Int, checkOnly: Bool = false) {
        self.source = source
        self.name = name
        self.delay = delay
        self.checkOnly = checkOnly
    }

    /// What a verified episode was: enough to title its frames and print its summary.
    struct Summary {
        var header: Format.Header
        var last: Replayer.Position
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
            let steps = Replayer.stepNumber(of: summary.last)
            let episode = summaries.count > 1 ? "episode \(index + 1): " : ""
            SystemIO.writeAll(
                output,
                "\(episode)verified: \(steps) \(steps == 1 ? "step reproduces" : "steps reproduce") exactly from seed \(Replayer.seed(of: summary.header)) "
                    + "(\(Replayer.summary(of: summary.header, last: summary.last)))\n")
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
        var replayer: Replayer? = nil
        var notedVersion1 = false
        try forEachEvent { event in
            switch event {
            case .header(let header):
                if Format.version(of: header) == 1 && !notedVersion1 {
                    notedVersion1 = true
                    SystemIO.writeAll(
                        errors,
                        "note: \(name) is a version 1 record, written before records had end lines: "
                            + "it is replayed, but a record cut off at a line boundary cannot be told from a complete one\n")
                }
                replayer = try checked(summaries.count, header) { () throws(ReplayMismatch) in try Replayer(header) }
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
    func checked<T>(_ index: Int, _ header: Format.Header, _ body: () throws(ReplayMismatch) -> T) throws -> T {
        do {
            return try body()
        } catch {
            // Whether the record has more than one episode is not known yet: name the episode past the first.
            let episode = index > 0 ? "episode \(index + 1), " : ""
            throw Stop.failed("\(name): \(episode)\(error) (the record does not reproduce from seed \(Replayer.seed(of: header)))")
        }
    }

    /// The second pass: every position drawn.
    func show(_ summaries: [Summary], toTerminal: Bool, signals: Int32, lastText: inout String?) throws {
        var replayer: Replayer? = nil
        var episode = -1
        func draw(_ frame: Replayer.Position) throws {
            let summary = summaries[episode]
            let shown = self.frame(frame, episode: episode, of: summaries)
            let text = shown.render(style: toTerminal ? .terminal : .plain)
            if toTerminal { Terminal.redraw(output, text) } else { SystemIO.writeAll(output, text + "\n\n") }
            var last = shown
            last.help = nil
            lastText = last.render(style: .terminal)
            if delay > 0, Replayer.stepNumber(of: frame) < Replayer.stepNumber(of: summary.last) || episode < summaries.count - 1 {
                let ready = SystemIO.waitReadable(signals >= 0 ? [signals] : [], timeout: delay)
                if ready.first == true, let number = Terminal.receivedSignal() { throw Stop.interrupted(number) }
            }
        }
        try forEachEvent { event in
            switch event {
            case .header(let header):
                episode += 1
                replayer = try Replayer(header)
                try draw(replayer!.start)
            case .step(let step):
                try draw(try replayer!.step(step))
            case .end:
                break
            }
        }
    }

    /// Calls `body` with each line's event, from the file or the records.
    func forEachEvent(_ body: (RecordEvent<Format>) throws -> Void) throws {
        switch source {
        case .records(let records):
            for record in records {
                try body(.header(record.header))
                for step in record.steps { try body(.step(step)) }
                if let end = record.end { try body(.end(end)) }
            }
        case .file(let path):
            var parser = RecordParser<Format>(game: game, registry: registry)
            do {
                try SystemIO.forEachLine(of: path) { line, number, isCutOff throws(any Error) in
                    let event: RecordEvent<Format>?
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
    func frame(_ frame: Replayer.Position, episode: Int, of summaries: [Summary]) -> Frame {
        var title = "g2048 replay · \(name)"
        if summaries.count > 1 { title += " · episode \(episode + 1) of \(summaries.count)" }
        title += " · " + Replayer.title(of: summaries[episode].header)
        return Replayer.frame(frame, title: title, lastStep: Replayer.stepNumber(of: summaries[episode].last))
    }
}
