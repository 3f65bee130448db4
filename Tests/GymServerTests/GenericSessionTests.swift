import Game2048
import GymCore
import GymJSON
import Testing

@testable import GymServer

/// 2048 through the session every other game is served by (`DeclaredSession`, from `Game2048Game.declaration`)
/// against its own session (`GameSession`, with its encodings, afterstates and saved states): the same options,
/// seeds and actions give the same JSON observations, rewards, flags and info members, single and vector.
struct GenericSessionTests {
    static func parsed(_ value: JSONValue) throws -> JSONValue { try JSONValue.parse(Array(value.serialized.utf8)) }

    @Test(arguments: [1, 3], ["noop", "terminate", "reject"])
    func twentyFortyEightServedGenericallyIsItsOwnSession(numEnvs: Int, policy: String) throws {
        let options: [(String, JSONValue)] = [
            ("rows", 3), ("cols", 3), ("max_steps", 30), ("invalid_action", .string(policy)), ("invalid_action_penalty", 2),
            ("num_envs", .integer(Int128(numEnvs))),
        ]
        var own = GameSession(config: ServerConfig())
        _ = try own.call("make", params: .object(options + [("info", .array(["action_mask", "score", "max_tile", "steps", "won"].map { .string($0) }))]))
        var generic = try DeclaredSession(game: Game2048Game.declaration, options: options, base: nil)
        let seed: [(String, JSONValue)] = [("seed", 17)]
        #expect(try Self.parsed(own.call("reset", params: .object(seed))) == Self.parsed(generic.call("reset", seed)))
        var agent = Xoshiro256StarStar(seed: 2)
        var (steps, refusals) = (0, 0)
        for _ in 0..<120 {
            let actions = (0..<numEnvs).map { _ in JSONValue.integer(Int128(agent.uniform(below: 4))) }
            let params: [(String, JSONValue)] = numEnvs == 1 ? [("action", actions[0])] : [("actions", .array(actions))]
            let mine: Result<JSONValue, RPCError> = Result { () throws(RPCError) in try own.call("step", params: .object(params)) }
            let theirs: Result<JSONValue, RPCError> = Result { () throws(RPCError) in try generic.call("step", params) }
            switch (mine, theirs) {
            case (.success(let a), .success(let b)):
                steps += 1
                #expect(try Self.parsed(a) == Self.parsed(b))
            case (.failure(let a), .failure(let b)):
                refusals += 1
                #expect(a.code == b.code)
                // Over episodes (a single environment has no autoreset) start again in both.
                if a.code == RPCError.episodeOver("").code {
                    _ = try own.call("reset", params: nil)
                    _ = try generic.call("reset", [])
                }
            default: Issue.record("one session refused what the other took: \(mine) vs \(theirs)")
            }
        }
        #expect(steps > 50)
        if policy == "reject" { #expect(refusals > 0) }
    }
}
