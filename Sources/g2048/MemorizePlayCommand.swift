import Game2048System
import GymCore
import GymGames
import Memorize

#if canImport(Glibc)
import Glibc
#endif

/// `g2048 play --game memorize`: play Memorize by typing card numbers, or watch a built-in player.
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
            """,
        options: [GameFlag.option.spec, Self.agent.spec, Self.memory.spec] + MemorizeFlags.flags.map(\.spec) + [
            Self.seed.spec, Self.delay.spec,
        ])

    static let agent = MemorizeFlags.agent(help: "Watch a player: random, perfect or forgetful.")
    static let memory = MemorizeFlags.memory
    static let seed = CommandOption.seed(help: "Seed of the first deal; each new deal continues its stream.").defaulting(to: 1)
    static let delay = CommandOption.integer("delay", "ms", help: "Milliseconds between the player's cards.", in: 0...600_000)
        .shown("300 on a terminal, else 0")

    var agent: MemorizeAgent?
    var rules: MemorizeRules
    var seed: UInt64
    var delay: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        agent = try MemorizeFlags.agent(arguments[Self.agent], memory: arguments)
        rules = try MemorizeFlags.rules(arguments)
        seed = try arguments[Self.seed]
        delay = try arguments[Self.delay]
        if delay != nil && agent == nil { throw UsageError("--delay sets the pace of --agent; give an agent too") }
    }

    func run() throws -> Int32 {
        if agent == nil && SystemIO.closedStandardDescriptors.contains(SystemIO.standardInput) {
            Console.error("error: standard input is closed; play reads the cards to turn there (a terminal, a pipe or a file)")
            return ExitCode.failure
        }
        var env = MemorizeEnvironment(rules: rules, seed: seed)
        var state = env.reset()
        Console.output(Self.frame(env, note: "\(rules.pairCount) pairs: turn two cards a move."))
        if let agent { return watch(agent, &env, state) }
        var lines = LineInput(descriptor: SystemIO.standardInput)
        while let line = lines.next() {
            let text = line.trimmingCharacters()
            if text == "q" { break }
            if text == "r" {
                state = env.reset()
                Console.output(Self.frame(env, note: "New deal."))
                continue
            }
            guard !env.isOver else {
                Console.output("The game is over: r deals again, q quits.")
                continue
            }
            guard let card = Int(text) else {
                Console.error("'\(text)' is not a card: type a card's number (0 to \(rules.cardCount - 1)), r or q")
                continue
            }
            do throws(MemorizeStepError) {
                let step = try env.step(card)
                state = MemorizeReset(observation: step.observation, info: step.info)
                Console.output(Self.frame(env, note: Self.note(step, rules: rules)))
            } catch {
                Console.error("\(error)")
            }
        }
        _ = state
        return ExitCode.success
    }

    /// Plays `agent` to the end of one game.
    func watch(_ agent: MemorizeAgent, _ env: inout MemorizeEnvironment, _ start: MemorizeReset) -> Int32 {
        let pause = delay ?? (SystemIO.isTerminal(SystemIO.standardOutput) ? 300 : 0)
        var player = agent.player(rules: rules)
        var choices = Xoshiro256StarStar(seed: seed &+ 1)
        var state = start
        while !env.isOver {
            let card = player.choose(observation: state.observation, legal: state.info.actionMask, using: &choices)
            guard let step = try? env.step(card) else { preconditionFailure("player \(agent.name) turned an illegal card") }
            state = MemorizeReset(observation: step.observation, info: step.info)
            if pause > 0 { usleep(UInt32(min(pause, 4_000)) * 1000) }
            Console.output(Self.frame(env, note: "\(agent.name) turns \(card). " + Self.note(step, rules: rules)))
        }
        return ExitCode.success
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

/// Lines of a descriptor, as they come (a terminal's, a pipe's, a file's); `nil` at the end or on an error.
struct LineInput {
    let descriptor: Int32
    var pending: [UInt8] = []
    var ended = false

    init(descriptor: Int32) { self.descriptor = descriptor }

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
            switch SystemIO.read(descriptor) {
            case .bytes(let bytes): pending += bytes
            case .end, .failed: ended = true
            }
            // A line longer than a screen of text is not a card number; keep the memory bounded.
            if pending.count > 1 << 16 { pending.removeAll() }
        }
    }
}
