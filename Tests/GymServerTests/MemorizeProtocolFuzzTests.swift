import Game2048
import GymJSON
import GymCore
import Memorize
import Testing

@testable import GymServer

/// Seeded fuzzing of Memorize through the protocol: random sessions of valid and invalid requests. Every error
/// has a documented code and leaves the whole session as it was; every result keeps the spec's bounds, and its
/// mask is exactly the face-down cards.
struct MemorizeProtocolFuzzTests {
    static let codes: Set<Int> = [-32601, -32602, -32001, -32002, -32003]

    @Test func randomSessionsKeepEveryPromise() throws {
        var steps = 0, errors = 0
        for index in 0..<300 {
            var rng = Xoshiro256StarStar(seed: 30 &+ UInt64(index))
            var session = GameSession(config: ServerConfig())
            if (try? session.call("make", params: .object([("game", "memorize")] + Self.options(&rng)))) == nil {
                _ = try session.call("make", params: .object([("game", "memorize")]))
            }
            _ = try session.call("reset", params: .object([("seed", .integer(Int128(index)))]))
            for _ in 0..<60 {
                let (method, params) = Self.request(&rng, session)
                // A copy, described only when the call fails: describing every session first took most of the test's time.
                let before = session
                let outcome: Result<JSONValue, RPCError>
                do throws(RPCError) { outcome = .success(try session.call(method, params: params)) } catch { outcome = .failure(error) }
                switch outcome {
                case .success(let result):
                    if method == "step", session.gameName == "memorize" {
                        steps += 1
                        try Self.check(result, session)
                    }
                case .failure(let error):
                    errors += 1
                    #expect(Self.codes.contains(error.code), "\(method) \(params.serialized): code \(error.code)")
                    #expect(String(reflecting: session) == String(reflecting: before), "\(method) \(params.serialized) failed and changed the session")
                }
            }
        }
        #expect(steps > 2_000 && errors > 2_000, "\(steps) steps, \(errors) errors")
    }

    /// Random make options, most valid, some not.
    static func options(_ rng: inout Xoshiro256StarStar) -> [(String, JSONValue)] {
        var options: [(String, JSONValue)] = []
        let sizes: [(Int, Int)] = [(1, 2), (2, 2), (2, 3), (4, 4), (3, 3), (0, 4), (8, 8), (1, 64)]
        if rng.uniform(below: 2) == 0 {
            let (rows, cols) = sizes[rng.uniform(below: sizes.count)]
            options += [("rows", .integer(Int128(rows))), ("cols", .integer(Int128(cols)))]
        }
        let pick: [(String, JSONValue)] = [
            ("reveal_seen", true), ("reveal_seen", 1), ("mismatch_penalty", 0.5), ("mismatch_penalty", "x"), ("max_steps", 7),
            ("max_steps", .null), ("num_envs", 3), ("num_envs", 0), ("autoreset_mode", "same_step"), ("autoreset_mode", "disabled"),
            ("win_tile", 2048),
        ]
        for _ in 0..<rng.uniform(below: 3) { options.append(pick[rng.uniform(below: pick.count)]) }
        return options
    }

    /// A random request for `session`.
    static func request(_ rng: inout Xoshiro256StarStar, _ session: GameSession) -> (String, JSONValue) {
        let cards = session.declaredSpace?.actionCount ?? 4, envs = session.declaredColumns?.numEnvs ?? 1
        func card() -> JSONValue {
            switch rng.uniform(below: 10) {
            case 0: "up"
            case 1: .integer(Int128(cards))
            case 2: .double(1.5)
            default: .integer(Int128(rng.uniform(below: cards)))
            }
        }
        switch rng.uniform(below: 12) {
        case 0: return ("make", .object(rng.uniform(below: 8) == 0 ? [("game", "2048")] : options(&rng)))
        case 1: return ("reset", .object(rng.uniform(below: 2) == 0 ? [("seed", .integer(Int128(rng.uniform(below: 100))))] : []))
        case 2: return ("reset", .object([("seeds", .array((0..<(envs + rng.uniform(below: 2))).map { _ in .integer(3) }))]))
        case 3: return ("render", .object([]))
        case 4: return (["spec", "afterstates", "get_state", "nonsense"][rng.uniform(below: 4)], .object([]))
        case 5: return ("step", .object([("card", 0)]))
        default:
            if envs == 1 { return ("step", .object([("action", card())])) }
            return ("step", .object([("actions", .array((0..<envs).map { _ in card() }))]))
        }
    }

    /// A step result against the spec: codes within bounds, the mask exactly the face-down cards.
    static func check(_ result: JSONValue, _ session: GameSession) throws {
        let space = try #require(session.declaredSpace)
        let numEnvs = try #require(session.declaredColumns).numEnvs
        let cards = space.actionCount, pairs = cards / 2, high = CardView.maxCode(pairs: pairs)
        let observations: [JSONValue] = numEnvs == 1 ? [result["observation"]!] : result["observation"]!.array!
        let infos: [JSONValue] = numEnvs == 1 ? [result["info"]!] : result["info"]!.array!
        for (observation, info) in zip(observations, infos) {
            let codes = observation.array!.flatMap { $0.array! }.map { Int($0.integer!) }
            let mask = info["action_mask"]!.array!.map { $0.bool! }
            #expect(codes.count == cards && codes.allSatisfy { (0...high).contains($0) })
            #expect(mask == codes.map { $0 == 0 || $0 >= 2 + pairs })
        }
    }
}
