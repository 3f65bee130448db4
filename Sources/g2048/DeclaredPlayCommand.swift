import GymCore
import GymGames
import GymPlay
import GymSystem

/// `g2048 play --game NAME` for every game but 2048: play by typing actions' numbers, or watch one of the
/// game's players; record the episodes. The game's words (what an action is called, the status and a note on
/// each step) are its own (`GameDeclaration.play`); the screen is its `text`.
struct DeclaredPlayCommand: GameCommand {
    static let name = "play"

    static func spec(for game: GameDeclaration, registry: GameRegistry) -> CommandSpec {
        let noun = game.play.actionNoun
        return CommandSpec(
            name: name,
            abstract: "Play \(game.name) in the terminal, or watch a player.",
            discussion: """
                \(game.name): \(game.summary). Type the number of \(noun.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(noun) and Enter to play it (from 0 to the
                number of actions - 1). Type r to start again, q to quit; the end of input quits. Each line of
                input is one \(noun), so a pipe or a file can play a game.

                With --agent, the player plays and every \(noun) it plays is shown (--delay apart), to the end
                of one episode. Players (--agent): \(GameFlags.descriptions(game)).

                --record writes every episode and \(noun) to a JSON Lines file (an existing one is replaced
                only with --force); 'g2048 replay <file>' checks that it reproduces from its seeds and shows
                it again.
                """,
            options: [GameFlag.spec(registry), GameFlags.agent(game, help: "Watch a player: \(game.players.map(\.name).listedWithOr).").spec]
                + GameFlags.playerOptions(game).map { GameFlags.flag($0).spec } + game.options.map { GameFlags.flag($0).spec } + [
                    seed.spec, delay.spec, PlayCommand.record.spec, PlayCommand.force.spec,
                ])
    }

    static let seed = CommandOption.seed(help: "Seed of the first episode; each new one adds 1.").defaulting(to: 1)
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between the player's actions.", in: 0...600_000)
        .shown("300 on a terminal, else 0")

    let game: GameDeclaration
    let player: PlayerDeclaration?
    let own: [String: OptionValue]
    let values: [String: OptionValue]
    let seed: UInt64
    let delay: Int?
    let recordPath: String?
    let force: Bool

    init(_ arguments: ParsedArguments, game: GameDeclaration) throws(UsageError) {
        self.game = game
        player = try arguments[GameFlags.agent(game, help: "")]
        own = try GameFlags.playerValues(player, game: game, in: arguments)
        values = game.defaults.merging(try GameFlags.values(of: game.options, in: arguments)) { $1 }
        _ = try GameFlags.make(game, values)
        seed = try arguments[Self.seed]
        delay = try arguments[Self.delay]
        if delay != nil && player == nil { throw UsageError("--delay sets the pace of --agent; give an agent too") }
        recordPath = try arguments[PlayCommand.record]
        force = try arguments[PlayCommand.force]
        if force && recordPath == nil { throw UsageError("--force replaces an existing --record file; give --record too") }
    }

    func run() throws -> Int32 {
        if player == nil && SystemIO.closedStandardDescriptors.contains(SystemIO.standardInput) {
            Console.error("error: standard input is closed; play reads the \(game.play.actionNoun)s to play there (a terminal, a pipe or a file)")
            return ExitCode.failure
        }
        let claim = try OutputFiles.claim(
            recordPath.map { [.init(flag: "record", path: $0)] } ?? [], inputs: [], force: force, command: "play")
        defer { claim.release() }
        var session = Session(
            play: try DeclaredPlay(game: game, values: values, player: player?.name ?? "human", recordPath: recordPath), seed: seed)
        let signals = Terminal.installSignalHandlers()
        if let player {
            watch(player, &session, signals: signals)
        } else {
            play(&session, signals: signals)
        }
        do {
            try session.play.finish()
        } catch {
            Console.error("error: \(error)")
            return ExitCode.failure
        }
        if let interrupted = session.interrupted { return 128 + interrupted }
        return ExitCode.success
    }

    /// One run: the episodes (the first from the seed, each next one from the seed plus its number, so that a
    /// record replays from its headers), and the signal that stopped it.
    struct Session {
        var play: DeclaredPlay
        let seed: UInt64
        var episodes = 0
        var interrupted: Int32? = nil

        /// Starts the next episode and shows it; `false` when its record could not be written.
        mutating func start() -> Bool {
            play.reset(seed: seed &+ UInt64(episodes))
            episodes += 1
            show(play.game.play.start(play.values))
            return play.failure == nil
        }

        /// Shows the game's text, its status and `note`.
        func show(_ note: String) {
            let words = play.game.play
            Console.output(play.instance.text(at: 0) + "\n" + words.status(play.values, play.results) + " " + note + "\n")
        }
    }

    /// A person's game: an action, r or q per line, until q, the end of input or a signal.
    func play(_ session: inout Session, signals: Int32) {
        let noun = game.play.actionNoun
        guard session.start() else { return }
        var lines = LineInput(descriptor: SystemIO.standardInput, signals: signals)
        while let line = lines.next() {
            let text = line.trimmingCharacters()
            if text == "q" { break }
            if text == "r" {
                guard session.start() else { return }
                continue
            }
            guard !session.play.isOver else {
                Console.output("The episode is over: r starts again, q quits.")
                continue
            }
            let actions = session.play.instance.space.actionCount
            guard let action = Int(text), (0..<actions).contains(action) else {
                Console.error("'\(text)' is not a \(noun): type a \(noun)'s number (0 to \(actions - 1)), r or q")
                continue
            }
            do throws(GameRefusal) {
                let outcome = try session.play.step(action)
                session.show(game.play.note(values, session.play.results, outcome))
                if session.play.failure != nil { return }
            } catch {
                if case .illegalAction(_, let reason) = error { Console.error(reason) } else { Console.error("\(error)") }
            }
        }
        if let signal = lines.signal { session.interrupted = signal }
    }

    /// Plays `declaration`'s player to the end of one episode.
    func watch(_ declaration: PlayerDeclaration, _ session: inout Session, signals: Int32) {
        let pause = delay ?? (SystemIO.isTerminal(SystemIO.standardOutput) ? 300 : 0)
        var player = declaration.make(game: values, own: own)
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        guard session.start() else { return }
        while !session.play.isOver {
            let action = player.choose(session.play.results, index: 0, using: &choices)
            if pause > 0, signals >= 0, SystemIO.waitReadable([signals], timeout: pause).first == true, let signal = Terminal.receivedSignal() {
                session.interrupted = signal
                return
            }
            do throws(GameRefusal) {
                let outcome = try session.play.step(action)
                session.show("\(declaration.name) plays \(game.play.actionNoun) \(action). " + game.play.note(values, session.play.results, outcome))
                if session.play.failure != nil { return }
            } catch {
                preconditionFailure("player \(declaration.name) played an illegal \(game.play.actionNoun): \(error)")
            }
        }
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
            // A line longer than a screen of text is not an action's number; keep the memory bounded.
            if pending.count > 1 << 16 { pending.removeAll() }
        }
    }
}
