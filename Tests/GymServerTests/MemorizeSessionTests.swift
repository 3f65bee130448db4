import Game2048
import GymJSON
import GymCore
import Memorize
import Testing

@testable import GymServer

/// Memorize through the protocol: `make` with its name, its options checked by their declarations, and results
/// that are the Swift environment's, step by step.
struct MemorizeSessionTests {
    static func call(_ session: inout GameSession, _ method: String, _ params: [(String, JSONValue)] = []) throws(RPCError) -> JSONValue {
        try session.call(method, params: .object(params))
    }

    static func message(_ body: () throws(RPCError) -> Void) -> String? {
        do throws(RPCError) {
            try body()
            return nil
        } catch {
            return error.message
        }
    }

    @Test func makeNamesTheGameAndSpecDescribesIt() throws {
        var session = GameSession(config: ServerConfig())
        let spec = try Self.call(&session, "make", [("game", "memorize"), ("rows", 2), ("cols", 3), ("mismatch_penalty", 0.5)])
        #expect(session.gameName == "memorize")
        #expect(spec["game"] == "memorize" && spec["actions"] == 6 && spec["num_envs"] == 1)
        #expect(spec["observation"]?["shape"] == .array([2, 3]) && spec["observation"]?["high"] == 7)
        #expect(spec["reward_range"] == .array([.double(-0.5), .double(1)]))
        #expect(try Self.call(&session, "spec") == spec)
        // A make without a game changes the game being served; one naming 2048 returns to its configuration.
        let changed = try Self.call(&session, "make", [("reveal_seen", true)])
        #expect(changed["config"]?["reveal_seen"] == true && changed["config"]?["cols"] == 3)
        let back = try Self.call(&session, "make", [("game", "2048")])
        #expect(session.gameName == "2048" && back["rows"] == 4 && back["actions"]?.array?.count == 4)
    }

    @Test(
        arguments: [
            ([("game", JSONValue.string("chess"))], "game must be one of \"2048\", \"memorize\", got \"chess\""),
            ([("game", "memorize"), ("rows", 3), ("cols", 3)], "rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
            ([("game", "memorize"), ("rows", 0)], "rows must be an integer from 1 to 64, got 0"),
            ([("game", "memorize"), ("rows", 2.0)], "rows must be an integer from 1 to 64, got 2.0"),
            ([("game", "memorize"), ("reveal_seen", 1)], "reveal_seen must be true or false, got 1"),
            ([("game", "memorize"), ("mismatch_penalty", -1)], "mismatch_penalty must be a number from 0.0 to 1000000.0, got -1"),
            ([("game", "memorize"), ("num_envs", 70_000)], "num_envs must be an integer from 1 to 65536, got 70000"),
            ([("game", "memorize"), ("autoreset_mode", "later")], "autoreset_mode must be one of"),
            ([("game", "memorize"), ("spawn_four_probability", 0.2)], "unknown option 'spawn_four_probability' for memorize"),
        ] as [([(String, JSONValue)], String)])
    func badMakesAreRefusedAndChangeNothing(params: [(String, JSONValue)], message: String) throws {
        var session = GameSession(config: ServerConfig())
        _ = try Self.call(&session, "make", [("game", "memorize"), ("rows", 1), ("cols", 4)])
        let before = try Self.call(&session, "spec")
        let refused = Self.message { () throws(RPCError) in _ = try Self.call(&session, "make", params) }
        #expect(refused?.contains(message) == true, "\(refused ?? "accepted")")
        #expect(try Self.call(&session, "spec") == before)
    }

    /// Memorize's errors name only what Memorize has: its "not reset" names no method of 2048's alone, and its
    /// render reads `ansi` as 2048's does (true or false), with 2048's message.
    @Test func notResetAndRenderSpeakOfMemorizesOwnMethods() throws {
        var session = GameSession(config: ServerConfig())
        _ = try Self.call(&session, "make", [("game", "memorize"), ("rows", 1), ("cols", 4)])
        for method in ["step", "render"] {
            let params: [(String, JSONValue)] = method == "step" ? [("action", 0)] : []
            let refused = Self.message { () throws(RPCError) in _ = try Self.call(&session, method, params) } ?? "accepted"
            #expect(refused == "not reset: call reset before step or render", "\(refused)")
        }
        _ = try Self.call(&session, "reset", [("seed", 3)])
        var twentyFortyEight = GameSession(config: ServerConfig())
        _ = try Self.call(&twentyFortyEight, "reset", [("seed", 3)])
        for value: JSONValue in ["yes", 1, .null] {
            let theirs = Self.message { () throws(RPCError) in _ = try Self.call(&twentyFortyEight, "render", [("ansi", value)]) }
            let ours = Self.message { () throws(RPCError) in _ = try Self.call(&session, "render", [("ansi", value)]) }
            #expect(theirs != nil && ours == theirs, "\(ours ?? "accepted") vs \(theirs ?? "accepted")")
        }
        #expect(try Self.call(&session, "render", [("ansi", true)]) == Self.call(&session, "render"))
    }

    @Test func stepsAreRefusedWithTheirReasonAndChangeNothing() throws {
        var session = GameSession(config: ServerConfig())
        _ = try Self.call(&session, "make", [("game", "memorize"), ("rows", 1), ("cols", 4), ("invalid_action", "reject")])
        #expect(Self.message { () throws(RPCError) in _ = try Self.call(&session, "step", [("action", 0)]) }?.hasPrefix("not reset") == true)
        _ = try Self.call(&session, "reset", [("seed", 3)])
        _ = try Self.call(&session, "step", [("action", 0)])
        let render = try Self.call(&session, "render")
        for (params, text) in [
            ([("action", JSONValue.integer(0))], "card 0 is face up"), ([("action", 4)], "action must be an action from 0 to 3, got 4"),
            ([("action", "up")], "action must be an action from 0 to 3, got \"up\""), ([("card", 1)], "unknown parameter 'card'"),
            ([], "action is required"),
        ] as [([(String, JSONValue)], String)] {
            let refused = Self.message { () throws(RPCError) in _ = try Self.call(&session, "step", params) }
            #expect(refused?.contains(text) == true, "\(refused ?? "accepted")")
        }
        #expect(try Self.call(&session, "render") == render)
        #expect(
            Self.message { () throws(RPCError) in _ = try Self.call(&session, "afterstates") }?.contains(
                "afterstates is not a method of memorize; a memorize session answers spec, make, reset, step, render, games_record and close") == true)
        #expect(Self.message { () throws(RPCError) in _ = try session.requireBuffers() }?.contains("writes its declared columns") == true)
        // Under noop, every game's default, the face-up card is a step that changes nothing; 4 is still no card.
        _ = try Self.call(&session, "make", [("game", "memorize"), ("rows", 1), ("cols", 4)])
        _ = try Self.call(&session, "reset", [("seed", 3)])
        _ = try Self.call(&session, "step", [("action", 0)])
        let before = try Self.call(&session, "render")
        let noop = try Self.call(&session, "step", [("action", 0)])
        let after = try Self.call(&session, "render")
        #expect(noop["reward"] == .double(0) && noop["terminated"] == .bool(false) && after == before)
        #expect(Self.message { () throws(RPCError) in _ = try Self.call(&session, "step", [("action", 4)]) }?.contains("got 4") == true)
    }

    /// Random games through the protocol, single and vector, every autoreset mode: each result is what the Swift
    /// environments give for the same seeds and cards.
    @Test(arguments: [1, 3])
    func servedGamesAreTheSwiftEnvironmentsGames(numEnvs: Int) throws {
        for mode in numEnvs == 1 ? [AutoresetMode.nextStep] : AutoresetMode.allCases where mode != .disabled {
            let rules = try MemorizeRules(rows: 2, cols: 3, revealSeen: true, mismatchPenalty: 0.25)
            var session = GameSession(config: ServerConfig())
            _ = try Self.call(
                &session, "make",
                [
                    ("game", "memorize"), ("rows", 2), ("cols", 3), ("reveal_seen", true), ("mismatch_penalty", 0.25), ("num_envs", .integer(Int128(numEnvs))),
                    ("autoreset_mode", .string(mode.rawValue)),
                ])
            var vector = MemorizeVectorEnvironment(rules: rules, count: numEnvs, autoresetMode: mode)
            var single = MemorizeEnvironment(rules: rules)
            _ = try Self.call(&session, "reset", [("seed", 77)])
            if numEnvs == 1 { single.reset(seed: 77) } else { vector.reset(seed: 77) }
            var rng = Xoshiro256StarStar(seed: 5)
            for _ in 0..<300 {
                if numEnvs == 1 {
                    if single.isOver {
                        _ = try Self.call(&session, "reset")
                        single.reset()
                    }
                    let card = single.actionMask.member(at: rng.uniform(below: single.actionMask.count))
                    let served = try Self.call(&session, "step", [("action", .integer(Int128(card)))])
                    let step = try single.step(card)
                    #expect(served["observation"]?.array?.flatMap { $0.array ?? [] } == step.observation.map { .integer(Int128($0)) })
                    #expect(served["reward"] == .double(step.reward) && served["terminated"] == .bool(step.terminated))
                    #expect(served["info"]?["moves"] == .integer(Int128(step.info.moves)))
                } else {
                    let cards = vector.actionMasks.map { $0.isEmpty ? 0 : $0.member(at: rng.uniform(below: $0.count)) }
                    let served = try Self.call(&session, "step", [("actions", .array(cards.map { .integer(Int128($0)) }))])
                    try vector.step(cards)
                    let observations = served["observation"]?.array?.map { $0.array?.flatMap { $0.array ?? [] } ?? [] }
                    #expect(observations == vector.environments.map { $0.observation.map { .integer(Int128($0)) } })
                    #expect(served["reward"] == .array(vector.rewards.map { .double($0) }))
                    #expect(served["terminated"] == .array(vector.terminations.map { .bool($0) }))
                }
            }
        }
    }
}
