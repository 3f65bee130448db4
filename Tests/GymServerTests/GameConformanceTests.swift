import GymCore
import GymGames
import GymJSON
import TestGames
import Testing

@testable import GymServer

/// Every registered game through the protocol session, by its declaration alone: the shipped games and one that
/// exists only in the tests, registered here with one line. Each keeps the same promises: its `spec` describes
/// its results, the same seed and actions give the same results, a refused request changes nothing, `render`
/// has one shape, and the columns the C ABI gets hold what the JSON says.
struct GameConformanceTests {
    /// The shipped games and the test-only one.
    static let registry = GameRegistry.standard.adding(GuessTheNumber.declaration)
    static let names = registry.games.map(\.name)
    static let codes: Set<Int> = [-32601, -32602, -32001, -32002, -32003]

    /// A method's result as a client reads it: parsed from its text (2048's results travel as raw bytes).
    static func call(_ session: inout GameSession, _ method: String, params: JSONValue?) throws(RPCError) -> JSONValue {
        let result = try session.call(method, params: params)
        do { return try JSONValue.parse(Array(result.serialized.utf8)) } catch { throw .internalError("unparsable result") }
    }

    static func session(_ game: String, _ options: [(String, JSONValue)] = []) throws -> GameSession {
        var session = GameSession(config: ServerConfig(), registry: registry)
        _ = try session.call("make", params: .object([("game", .string(game))] + options))
        return session
    }

    /// The number of actions `spec` gives: a count, or a list of names.
    static func actionCount(_ spec: JSONValue) -> Int { spec["actions"]?.array?.count ?? Int(spec["actions"]!.integer!) }

    /// Each environment's info: one object, a list of them, or (2048's `info_layout: columns`) an object of lists.
    static func infos(_ result: JSONValue, numEnvs: Int) -> [JSONValue] {
        let info = result["info"]!
        if numEnvs == 1 { return [info] }
        if let list = info.array { return list }
        let members = info.object!
        return (0..<numEnvs).map { index in .object(members.map { ($0.0, $0.1.array?[index] ?? .null) }) }
    }

    /// A random action, legal by the info's mask where the game reports one.
    static func action(_ info: JSONValue?, count: Int, _ rng: inout Xoshiro256StarStar) -> Int {
        guard let mask = info?["action_mask"]?.array?.map({ $0.bool == true }), mask.contains(true) else { return rng.uniform(below: count) }
        let legal = mask.indices.filter { mask[$0] }
        return legal[rng.uniform(below: legal.count)]
    }

    /// Plays `steps` random steps from `seed` and returns every result, serialized.
    static func play(_ game: String, numEnvs: Int, seed: UInt64, steps: Int) throws -> [String] {
        var session = try session(game, [("num_envs", .integer(Int128(numEnvs)))])
        let spec = try Self.call(&session, "spec", params: nil)
        let count = actionCount(spec)
        var rng = Xoshiro256StarStar(seed: ~seed)  // not the game's own seed: the actions must not mirror its draws
        var result = try Self.call(&session, "reset", params: .object([("seed", .integer(Int128(seed)))]))
        var results = [result.serialized]
        for _ in 0..<steps {
            if numEnvs == 1 {
                if result["terminated"] == true || result["truncated"] == true {
                    result = try Self.call(&session, "reset", params: nil)
                }
                let action = action(result["info"], count: count, &rng)
                do throws(RPCError) { result = try Self.call(&session, "step", params: .object([("action", .integer(Int128(action)))])) } catch {
                    #expect(error.code == -32003, "\(game): \(error.message)")
                }
            } else {
                let infos = infos(result, numEnvs: numEnvs)
                let actions = (0..<numEnvs).map { JSONValue.integer(Int128(action(infos[$0], count: count, &rng))) }
                do throws(RPCError) { result = try Self.call(&session, "step", params: .object([("actions", .array(actions))])) } catch {
                    #expect(error.code == -32003, "\(game): \(error.message)")
                }
            }
            results.append(result.serialized)
        }
        return results
    }

    @Test(arguments: names)
    func specDescribesEveryResult(game: String) throws {
        for numEnvs in [1, 3] {
            var session = try Self.session(game, [("num_envs", .integer(Int128(numEnvs)))])
            let spec = try Self.call(&session, "spec", params: nil)
            #expect(spec["game"] == .string(game) && spec["num_envs"] == .integer(Int128(numEnvs)))
            let observation = try #require(spec["observation"])
            let shape = try #require(observation["shape"]?.array).map { Int($0.integer!) }
            let (low, high) = (observation["low"]!.integer!, observation["high"]!.integer!)
            let rewards = try #require(spec["reward_range"]?.array).map { $0.number! }
            var rng = Xoshiro256StarStar(seed: 9)
            var result = try Self.call(&session, "reset", params: .object([("seed", 4)]))
            for _ in 0..<200 {
                let observations: [JSONValue] = numEnvs == 1 ? [result["observation"]!] : result["observation"]!.array!
                for one in observations {
                    func values(_ value: JSONValue, _ level: Int) -> [Int128] {
                        guard level < shape.count else { return [value.integer!] }
                        let items = value.array!
                        #expect(items.count == shape[level], "\(game): level \(level) of \(value.serialized)")
                        return items.flatMap { values($0, level + 1) }
                    }
                    #expect(values(one, 0).allSatisfy { (low...high).contains($0) }, "\(game): \(one.serialized)")
                }
                if let reward = result["reward"] {
                    for value in numEnvs == 1 ? [reward] : reward.array! {
                        let number = value.number!
                        #expect(rewards[0] <= number && number <= rewards[1], "\(game): reward \(number)")
                    }
                }
                let infos = Self.infos(result, numEnvs: numEnvs)
                let actions = infos.map { JSONValue.integer(Int128(Self.action($0, count: Self.actionCount(spec), &rng))) }
                if numEnvs == 1 && (result["terminated"] == true || result["truncated"] == true) {
                    result = try Self.call(&session, "reset", params: nil)
                    continue
                }
                let params: JSONValue = numEnvs == 1 ? .object([("action", actions[0])]) : .object([("actions", .array(actions))])
                do throws(RPCError) { result = try Self.call(&session, "step", params: params) } catch { #expect(error.code == -32003) }
            }
        }
    }

    @Test(arguments: names)
    func theSameSeedAndActionsGiveTheSameResults(game: String) throws {
        for numEnvs in [1, 4] {
            let first = try Self.play(game, numEnvs: numEnvs, seed: 21, steps: 120)
            #expect(try Self.play(game, numEnvs: numEnvs, seed: 21, steps: 120) == first, "\(game)")
            #expect(try Self.play(game, numEnvs: numEnvs, seed: 22, steps: 120) != first, "\(game): the seed plays no part")
        }
    }

    @Test(arguments: names)
    func renderIsTextForEveryGame(game: String) throws {
        var session = try Self.session(game, [("num_envs", 2)])
        _ = try Self.call(&session, "reset", params: .object([("seed", 1)]))
        let render = try Self.call(&session, "render", params: nil)
        let text = try #require(render["text"]?.string)
        #expect(!text.isEmpty && render.object?.count == 1)
    }

    /// Random requests, valid and not: every error has a documented code and leaves the session as it was.
    @Test(arguments: names)
    func refusedRequestsChangeNothing(game: String) throws {
        var errors = 0
        for index in 0..<40 {
            var rng = Xoshiro256StarStar(seed: UInt64(index))
            let numEnvs = [1, 2, 3][index % 3]
            var session = try Self.session(game, [("num_envs", .integer(Int128(numEnvs)))])
            let count = Self.actionCount(try Self.call(&session, "spec", params: nil))
            let junk: [JSONValue] = ["up", -1, .integer(Int128(count)), 1.5, .null, .array([]), .object([])]
            for _ in 0..<60 {
                let action = { () -> JSONValue in
                    rng.uniform(below: 4) == 0 ? junk[rng.uniform(below: junk.count)] : .integer(Int128(rng.uniform(below: count)))
                }
                let request: (String, JSONValue) =
                    switch rng.uniform(below: 9) {
                    case 0: ("reset", .object([("seed", .integer(Int128(rng.uniform(below: 5))))]))
                    case 1: ("reset", .object([("seeds", .array((0..<(numEnvs + rng.uniform(below: 2))).map { _ in 1 }))]))
                    case 2: (["spec", "render", "nonsense", "afterstates"][rng.uniform(below: 4)], .object([]))
                    case 3: ("reset", .object([("seed", -1)]))
                    default:
                        numEnvs == 1
                            ? ("step", .object([("action", action())]))
                            : ("step", .object([("actions", .array((0..<(numEnvs + (rng.uniform(below: 8) == 0 ? 1 : 0))).map { _ in action() }))]))
                    }
                let before = String(reflecting: session)
                do throws(RPCError) { _ = try Self.call(&session, request.0, params: request.1) } catch {
                    errors += 1
                    #expect(Self.codes.contains(error.code), "\(game) \(request.0) \(request.1.serialized): \(error.code)")
                    #expect(String(reflecting: session) == before, "\(game) \(request.0) \(request.1.serialized) changed the session")
                }
            }
        }
        #expect(errors > 200)
    }

    /// The columns the C ABI gets (a declared game's, through the same session) hold what the protocol's JSON says.
    @Test(arguments: names.filter { $0 != GameRegistry.standard.defaultGame.name })
    func theColumnsAreTheJSONsValues(game: String) throws {
        for (numEnvs, mode) in [(1, "next_step"), (3, "same_step"), (3, "next_step")] {
            let options: [(String, JSONValue)] = [("num_envs", .integer(Int128(numEnvs))), ("autoreset_mode", .string(mode))]
            var json = try Self.session(game, options), columns = try Self.session(game, options)
            let layout = try #require(columns.declaredColumns).columns
            let store = ColumnStore(columns: layout, count: numEnvs)
            var rng = Xoshiro256StarStar(seed: 3)
            var result = try Self.call(&json, "reset", params: .object([("seed", 8)]))
            try store.withPointers { addresses throws(RPCError) in try columns.reset(params: .object([("seed", 8)]), into: addresses) }
            let count = Self.actionCount(try Self.call(&json, "spec", params: nil))
            for step in 0..<150 {
                let space = try #require(columns.declaredSpace)
                #expect(DeclaredSession.result(from: store, space: space, stepped: step > 0) == result, "\(game) step \(step)")
                if numEnvs == 1 && (result["terminated"] == true || result["truncated"] == true) { break }
                let infos = Self.infos(result, numEnvs: numEnvs)
                let actions = infos.map { Int64(Self.action($0, count: count, &rng)) }
                let params: JSONValue =
                    numEnvs == 1 ? .object([("action", .integer(Int128(actions[0])))]) : .object([("actions", .array(actions.map { .integer(Int128($0)) }))])
                let served: JSONValue
                do throws(RPCError) { served = try Self.call(&json, "step", params: params) } catch {
                    let refused = Self.refusal { () throws(RPCError) in
                        try actions.withUnsafeBufferPointer { given throws(RPCError) in
                            try store.withPointers { addresses throws(RPCError) in try columns.step(actions: given, into: addresses) }
                        }
                    }
                    #expect(refused == error.message)
                    continue
                }
                try actions.withUnsafeBufferPointer { given throws(RPCError) in
                    try store.withPointers { addresses throws(RPCError) in try columns.step(actions: given, into: addresses) }
                }
                result = served
            }
        }
    }

    static func refusal(_ body: () throws(RPCError) -> Void) -> String? {
        do throws(RPCError) {
            try body()
            return nil
        } catch { return error.message }
    }
}
