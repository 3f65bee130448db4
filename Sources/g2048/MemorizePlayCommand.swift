import GymPlay
import GymSystem
import GymCore
import GymGames
import Memorize

#if canImport(Glibc)
import Glibc
#endif

/// `g2048 play --game memorize`: play Memorize by typing card numbers, or watch a built-in player; record the
/// games.
struct MemorizePlayCommand: Command {
    static let spec = CommandSpec(
        name: "play",
        abstract: "Play Memorize in the terminal, or watch a player.",
        discussion: """
            Every card shows its number while face down; type a number and Enter to turn that card (two cards
            a move). A face-up card shows its content as a letter; a matched pair shows as ·. A mismatched pair
            stays face up until the next card is turned. Type r to deal again, q to quit; the end of input
            quits. Each line of input is one card, so a pipe or a file can play a game.

            With --agent, the player plays and every card it turns is shown (--delay apart); the end of the
            game reports its moves beside the exact expectation of optimal play with perfect memory.

            --record writes every deal and card turned to a JSON Lines file (an existing one is replaced only
            with --force); 'g2048 replay <file>' checks that it reproduces from its seeds and shows it again.
            """,
        options: [GameFlag.option.spec, Self.agent.spec, Self.memory.spec] + MemorizeFlags.flags.map(\.spec) + [
            Self.seed.spec, Self.delay.spec, PlayCommand.record.spec, PlayCommand.force.spec,
        ])

    static let agent = MemorizeFlags.agent(help: "Watch a player: random, perfect or forgetful.")
    static let memory = MemorizeFlags.memory
    static let seed = CommandOption.seed(help: "Seed of the first deal; each new deal adds 1.").defaulting(to: 1)
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between the player's cards.", in: 0...600_000)
        .shown("300 on a terminal, else 0")

    var agent: MemorizeAgent?
    var rules: MemorizeRules
    var seed: UInt64
    var delay: Int?
    var recordPath: String?
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        agent = try MemorizeFlags.agent(arguments[Self.agent], memory: arguments)
        rules = try MemorizeFlags.rules(arguments)
        seed = try arguments[Self.seed]
        delay = try arguments[Self.delay]
        if delay != nil && agent == nil { throw UsageError("--delay sets the pace of --agent; give an agent too") }
        recordPath = try arguments[PlayCommand.record]
        force = try arguments[PlayCommand.force]
        if force && recordPath == nil { throw UsageError("--force replaces an existing --record file; give --record too") }
    }

    func run() throws -> Int32 {
        if agent == nil && SystemIO.closedStandardDescriptors.contains(SystemIO.standardInput) {
            Console.error("error: standard input is closed; play reads the cards to turn there (a terminal, a pipe or a file)")
            return ExitCode.failure
        }
        let claim = try OutputFiles.claim(
            recordPath.map { [.init(flag: "record", path: $0)] } ?? [], inputs: [], force: force, command: "play")
        defer { claim.release() }
        var game = try MemorizeGame(rules: rules, seed: seed, player: agent?.name ?? "human", recordPath: recordPath)
        let signals = Terminal.installSignalHandlers()
        if let agent {
            watch(agent, &game, signals: signals)
        } else {
            play(&game, signals: signals)
        }
        return game.finish()
    }

    /// A person's game: a card, r or q per line, until q, the end of input or a signal.
    func play(_ game: inout MemorizeGame, signals: Int32) {
        guard game.deal(note: "\(rules.pairCount) pairs: turn two cards a move.") else { return }
        var lines = LineInput(descriptor: SystemIO.standardInput, signals: signals)
        while let line = lines.next() {
            let text = line.trimmingCharacters()
            if text == "q" { break }
            if text == "r" {
                guard game.deal(note: "New deal.") else { return }
                continue
            }
            guard !game.environment.isOver else {
                Console.output("The game is over: r deals again, q quits.")
                continue
            }
            guard let card = Int(text) else {
                Console.error("'\(text)' is not a card: type a card's number (0 to \(rules.cardCount - 1)), r or q")
                continue
            }
            do throws(MemorizeStepError) {
                guard try game.turn(card, note: { Self.note($0, rules: rules) }) else { return }
            } catch {
                Console.error("\(error)")
            }
        }
        if let signal = lines.signal { game.interrupted = signal }
    }

    /// Plays `agent` to the end of one game.
    func watch(_ agent: MemorizeAgent, _ game: inout MemorizeGame, signals: Int32) {
        let pause = delay ?? (SystemIO.isTerminal(SystemIO.standardOutput) ? 300 : 0)
        var player = agent.player(rules: rules)
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        guard game.deal(note: "\(rules.pairCount) pairs: turn two cards a move.") else { return }
        while !game.environment.isOver {
            let environment = game.environment
            let card = player.choose(observation: environment.observation, legal: environment.actionMask, using: &choices)
            if pause > 0, signals >= 0, SystemIO.waitReadable([signals], timeout: pause).first == true, let signal = Terminal.receivedSignal() {
                game.interrupted = signal
                return
            }
            do throws(MemorizeStepError) {
                guard try game.turn(card, note: { "\(agent.name) turns \(card). " + Self.note($0, rules: rules) }) else { return }
            } catch {
                preconditionFailure("player \(agent.name) turned an illegal card: \(error)")
            }
        }
    }

    /// What a step did, in words.
    static func note(_ step: MemorizeStep, rules: MemorizeRules) -> String {
        let info = step.info
        if step.terminated {
            let optimal = MemorizeOptimum(maxPairs: rules.pairCount).optimalMoves(pairs: rules.pairCount)
            return "All \(rules.pairCount) pairs matched in \(info.moves) moves (optimal play expects \(formatFixed(optimal, digits: 2))). r deals again."
        }
        if step.truncated { return "Cut at \(info.steps) cards (--max-steps). r deals again." }
        if info.steps % 2 == 1 { return "Turn a second card." }
        return step.reward > 0 ? "A pair! \(info.pairsMatched) of \(rules.pairCount)." : "No match."
    }

    /// The cards (`MemorizeEnvironment.text`) and a status line.
    static func frame(_ env: MemorizeEnvironment, note: String) -> String {
        let info = env.info
        return env.text + "\nmoves \(info.moves), pairs \(info.pairsMatched)/\(env.rules.pairCount), mismatches \(info.mismatches). \(note)\n"
    }
}

/// One run of `play --game memorize`: the environment, the deals (the first from the seed, each next one from
/// the seed plus its number, so that a record replays from its headers) and the record being written.
struct MemorizeGame {
    var environment: MemorizeEnvironment
    let seed: UInt64
    let player: String
    let recorder: EpisodeRecorder<MemorizeEpisodes>?
    var deals = 0
    /// The first failed write of the record: the game stops, and the cut file is removed.
    var failure: FileError? = nil
    /// The signal that stopped the game.
    var interrupted: Int32? = nil

    init(rules: MemorizeRules, seed: UInt64, player: String, recordPath: String?) throws(FileError) {
        environment = MemorizeEnvironment(rules: rules)
        self.seed = seed
        self.player = player
        recorder = try recordPath.map { path throws(FileError) in try EpisodeRecorder<MemorizeEpisodes>(path: path) }
    }

    /// Deals the next game and shows it; `false` when its record could not be written.
    mutating func deal(note: String) -> Bool {
        let dealSeed = seed &+ UInt64(deals)
        deals += 1
        environment.reset(seed: dealSeed)
        Console.output(MemorizePlayCommand.frame(environment, note: note))
        let header = MemorizeHeader(seed: dealSeed, rules: environment.rules, player: player, deck: environment.deck)
        return record { recorder throws(FileError) in try recorder.begin(header) }
    }

    /// Turns `card` and shows the cards with `note`'s words on the step; `false` when the record could not be
    /// written.
    ///
    /// - Throws: `MemorizeStepError` for a card that may not be turned; nothing changed.
    mutating func turn(_ card: Int, note: (MemorizeStep) -> String) throws(MemorizeStepError) -> Bool {
        let step = try environment.step(card)
        Console.output(MemorizePlayCommand.frame(environment, note: note(step)))
        let recorded = MemorizeRecordStep(card: card, step: step, in: environment)
        return record { recorder throws(FileError) in try recorder.append(recorded) }
    }

    /// Writes with the recorder, if any; a failure is kept and stops the game.
    mutating func record(_ write: (EpisodeRecorder<MemorizeEpisodes>) throws(FileError) -> Void) -> Bool {
        guard let recorder, failure == nil else { return failure == nil }
        do { try write(recorder) } catch { failure = error }
        return failure == nil
    }

    /// Ends the record (its last end line) and gives the exit status: a failed write removes the cut record.
    mutating func finish() -> Int32 {
        if failure == nil { _ = record { recorder throws(FileError) in try recorder.finish() } }
        if let failure {
            recorder?.discard()
            Console.error("error: \(failure)")
            return ExitCode.failure
        }
        recorder?.close()
        if let interrupted { return 128 + interrupted }
        return ExitCode.success
    }
}

/// Lines of a descriptor, as they come (a terminal's, a pipe's, a file's); `nil` at the end, on an error, or
/// when a signal arrives on `signals` (``signal`` says which).
struct LineInput {
    let descriptor: Int32
    let signals: Int32
    var pending: [UInt8] = []
    var ended = false
    /// The signal that ended the input.
    var signal: Int32? = nil

    init(descriptor: Int32, signals: Int32 = -1) {
        self.descriptor = descriptor
        self.signals = signals
    }

    mutating func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            if signals >= 0 {
                let ready = SystemIO.waitReadable([signals, descriptor], timeout: -1)
                if ready[0], let number = Terminal.receivedSignal() {
                    signal = number
                    return nil
                }
            }
            switch SystemIO.read(descriptor) {
            case .bytes(let bytes): pending += bytes
            case .end, .failed: ended = true
            }
            // A line longer than a screen of text is not a card number; keep the memory bounded.
            if pending.count > 1 << 16 { pending.removeAll() }
        }
    }
}
