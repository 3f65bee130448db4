import Game2048
import Game2048Search
import GymJSON
import GymSystem

/// The program behind `g2048 play`: reads keys, drives a ``PlaySession`` (and an
/// agent, when one is watched), draws frames, records the episode and saves best scores.
///
///     var game = TerminalGame(configuration: PlayConfiguration(rows: 4, cols: 4, seed: 42),
///                             bestScores: BestScores(directory: dir))
///     let outcome = game.run()
///
/// Input: from a terminal, raw key presses (``KeyDecoder``); from a pipe, one
/// key or action name per line (``LineKeyDecoder``), and the end of input quits.
/// Output: to a terminal, coloured frames redrawn in place on the alternate
/// screen with the cursor hidden; otherwise each frame in plain text, separated
/// by a blank line. Whatever happens, the terminal is restored before ``run()``
/// returns, and on SIGINT, SIGTERM, SIGHUP and SIGPIPE.
///
/// With an agent, the agent moves every ``delay`` milliseconds; keys can still
/// restart or quit. Watching from a pipe ends when the game ends.
package struct TerminalGame {
    /// The game.
    package var configuration: PlayConfiguration
    /// Where best scores are kept; `nil` to keep none.
    package var bestScores: BestScores?
    /// The watched agent, or `nil` for a human player.
    package var agent: (any Player)?
    /// The hint player, or `nil` for no hints.
    package var hinter: (any Player)?
    /// Milliseconds between an agent's moves.
    package var delay: Int
    /// The file to record episodes to, or `nil`.
    package var recordPath: String?
    /// Whether every frame is written when the output is no terminal (`false`: the last position only, for a
    /// watched game whose record is the point).
    package var everyPlainFrame = true
    /// Descriptors: keys in, frames out, messages out.
    package var input: Int32 = SystemIO.standardInput, output: Int32 = SystemIO.standardOutput, errors: Int32 = SystemIO.standardError

    /// Creates the program; nothing happens until ``run()``.
    package init(
        configuration: PlayConfiguration, bestScores: BestScores?, agent: (any Player)? = nil,
        hinter: (any Player)? = nil, delay: Int = 0, recordPath: String? = nil
    ) {
        self.configuration = configuration
        self.bestScores = bestScores
        self.agent = agent
        self.hinter = hinter
        self.delay = delay
        self.recordPath = recordPath
    }

    /// How long a lone Escape waits for the rest of a sequence before it is dropped.
    static let escapeTimeout = 50

    /// Plays until quit, end of input, or (when watching from a pipe) the end of the game.
    package mutating func run() -> PlayOutcome {
        var recorder: EpisodeRecorder<Game2048Episodes>? = nil
        if let recordPath {
            do { recorder = try EpisodeRecorder<Game2048Episodes>(path: recordPath) } catch { return .failed(error.description) }
        }
        defer { recorder?.close() }

        let keysFromTerminal = Terminal.isTerminal(input)
        let framesToTerminal = Terminal.isTerminal(output)
        let style: Frame.Style = framesToTerminal ? .terminal : .plain
        let signals = Terminal.installSignalHandlers()
        if keysFromTerminal { Terminal.enterRawMode(input) }
        if framesToTerminal { Terminal.enterScreen(output, alternate: true) }
        defer { Terminal.restore() }

        var session = PlaySession(configuration: configuration, bestScores: bestScores ?? BestScores(directory: ""), hinter: hinter)
        var warnings: [String] = []
        var outcome = PlayOutcome.finished
        var savedBest = session.bestScores
        // A write of the record failed: what is on disk is a cut record, removed at the end.
        var recordFailed = false

        func saveBest() {
            guard bestScores != nil, session.bestScores != savedBest else { return }
            var table = session.bestScores
            do {
                if let note = try table.save() {
                    let warning = "warning: \(note)"
                    if !warnings.contains(warning) { warnings.append(warning) }
                }
                savedBest = session.bestScores
            } catch {
                let warning = "warning: best score not saved: \(error)"
                if !warnings.contains(warning) { warnings.append(warning) }
            }
        }

        func apply(_ events: [PlayEvent]) -> Bool {
            for event in events {
                do {
                    switch event {
                    case .started(let header):
                        if session.gamesStarted > 1 { saveBest() }
                        try recorder?.begin(header)
                    case .moved(let step):
                        try recorder?.append(step)
                    case .gameOver:
                        recorder?.gameOver()
                        saveBest()
                    case .refused, .reachedTarget, .quit:
                        break
                    }
                } catch {
                    outcome = .failed(error.description)
                    recordFailed = true
                    return false
                }
            }
            return true
        }

        func keys(from events: [LineKeyDecoder.Event]) -> [Key] {
            events.compactMap { event in
                switch event {
                case .key(let key): return key
                case .unknown(let line, let text):
                    // Quoted as JSON: a line of control bytes (an escape sequence) must not act on the terminal.
                    let warning = "warning: input line \(line): \(JSONValue.quoted(text, limit: 40)) is not a key (expected \(Key.acceptedNames)); ignored"
                    // On the alternate screen a message would be drawn over; show it on exit instead.
                    if framesToTerminal { warnings.append(warning) } else { SystemIO.writeAll(errors, warning + "\n") }
                    return nil
                }
            }
        }

        func draw() {
            let text = session.frame.render(style: style)
            if framesToTerminal {
                Terminal.redraw(output, text)
            } else if everyPlainFrame {
                SystemIO.writeAll(output, text + "\n\n")
            }
        }

        let watching = agent != nil
        var keyDecoder = KeyDecoder()
        var lineDecoder = LineKeyDecoder()
        var inputOpen = true
        var nextAgentMove = SystemClock.monotonicMilliseconds() + delay
        var lastInput = SystemClock.monotonicMilliseconds()

        func handle(_ keys: [Key]) -> Bool {
            for key in keys {
                // While an agent plays, the keys only restart and quit (and work the start screen).
                if watching, session.phase != .choosingSize, case .move = key { continue }
                let wasChoosing = session.phase == .choosingSize
                let events = session.handle(key)
                guard apply(events) else { return false }
                if wasChoosing && session.phase != .choosingSize { nextAgentMove = SystemClock.monotonicMilliseconds() + delay }
                if session.phase == .finished { return false }
                if !events.isEmpty || wasChoosing { draw() }
            }
            return true
        }

        guard apply(session.start()) else {
            if recordFailed { recorder?.discard() }
            return outcome
        }
        draw()

        loop: while session.phase != .finished {
            // Watching from a pipe: nothing more to see once the game is over.
            if watching && session.phase == .over && !keysFromTerminal { break }
            let agentToMove = watching && session.phase == .playing
            var timeout = -1
            if agentToMove { timeout = max(0, nextAgentMove - SystemClock.monotonicMilliseconds()) }
            if keyDecoder.isPending { timeout = timeout < 0 ? TerminalGame.escapeTimeout : min(timeout, TerminalGame.escapeTimeout) }
            if !inputOpen && !agentToMove { break }

            var watched: [Int32] = []
            if signals >= 0 { watched.append(signals) }
            if inputOpen { watched.append(input) }
            let ready = SystemIO.waitReadable(watched, timeout: timeout)
            if signals >= 0, ready[0], let number = Terminal.receivedSignal() {
                outcome = .interrupted(signal: number)
                break loop
            }
            if inputOpen, ready[watched.count - 1] {
                lastInput = SystemClock.monotonicMilliseconds()
                switch SystemIO.read(input) {
                case .bytes(let bytes):
                    if keysFromTerminal {
                        guard handle(keyDecoder.decode(bytes)) else { break loop }
                    } else {
                        guard handle(keys(from: lineDecoder.decode(bytes))) else { break loop }
                    }
                case .failed(let code):
                    // A directory, a device that fails: the keys cannot be read, and saying nothing would end the
                    // game as if the user had quit.
                    outcome = .failed(FileError("read", "standard input", code: code).description)
                    break loop
                case .end:
                    inputOpen = false
                    if !keysFromTerminal {
                        guard handle(keys(from: lineDecoder.finish())) else { break loop }
                    }
                    // The end of input quits a human game; an agent plays on.
                    if !watching || session.phase == .choosingSize {
                        _ = apply(session.handle(.quit))
                        break loop
                    }
                }
            } else if keyDecoder.isPending && SystemClock.monotonicMilliseconds() - lastInput >= TerminalGame.escapeTimeout {
                keyDecoder.flush()
            }
            if agentToMove && SystemClock.monotonicMilliseconds() >= nextAgentMove && session.phase == .playing,
                let environment = session.environment, var player = agent
            {
                let action = player.action(on: environment.board, rules: environment.rules)
                agent = player
                nextAgentMove = SystemClock.monotonicMilliseconds() + delay
                guard let action else {
                    // A player without a move on a board with one (a solution that lacks the board) would be asked
                    // again for ever: the game cannot go on, as in an evaluation.
                    let stall = PlayerStall(player: player.name, game: max(0, session.gamesStarted - 1), board: environment.board)
                    outcome = .failed(stall.description)
                    break loop
                }
                guard apply(session.handle(.move(action))) else { break loop }
                draw()
            }
        }

        saveBest()
        // A game left by q, end of input, a signal or an unreadable input ends its record properly; after a failed
        // write it cannot, and the cut file is removed (when this run created it).
        if let recorder, !recordFailed {
            do { try recorder.finish() } catch {
                if case .failed = outcome {} else { outcome = .failed(error.description) }
                recordFailed = true
            }
        }
        if recordFailed { recorder?.discard() }
        if !framesToTerminal && !everyPlainFrame && session.environment != nil {
            var last = session.frame
            last.help = nil
            SystemIO.writeAll(output, last.render(style: .plain) + "\n")
        }
        if framesToTerminal {
            Terminal.restore()
            if session.environment != nil {
                // The last position stays on the normal screen, without the key help.
                var last = session.frame
                last.help = nil
                SystemIO.writeAll(output, last.render(style: .terminal) + "\n")
            }
        }
        if let summary = summary(session) { SystemIO.writeAll(output, summary + "\n") }
        for warning in warnings { SystemIO.writeAll(errors, warning + "\n") }
        return outcome
    }

    /// The last line: score, best, seed, so the game can be replayed.
    func summary(_ session: PlaySession) -> String? {
        guard let environment = session.environment else { return nil }
        let rules = environment.rules
        var line = session.phase == .over ? "game over" : "stopped"
        line += ": score \(environment.score), max tile \(environment.board.maxTile), \(environment.steps) move\(environment.steps == 1 ? "" : "s")"
        line += "; best \(rules.sizeLabel) \(session.bestScores[rows: rules.rows, cols: rules.cols])"
        line += "; seed \(session.seed)"
        if let recordPath { line += "; recorded to \(recordPath)" }
        return line
    }
}
