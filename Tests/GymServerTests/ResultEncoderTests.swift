import Game2048
import Testing
@testable import GymServer
import GymJSON

/// The `base64_batch` encoding: every per-environment column of a vector result is one base64 string,
/// decoded here and compared with the library's ``VectorEnvironment`` stepped alongside.
struct ResultEncoderTests {
    typealias T = DispatcherTests

    static func bytes(_ value: JSONValue?, count: Int) throws -> [UInt8] {
        let text = try #require(value?.string, "not a base64 string: \(value?.serialized ?? "absent")")
        let decoded = try #require(Base64.decode(text))
        #expect(decoded.count == count)
        return decoded
    }

    static func int64s(_ value: JSONValue?, count: Int) throws -> [Int64] {
        let raw = try bytes(value, count: count * 8)
        return (0..<count).map { index in
            Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(raw[index * 8 + $1]) << (8 * $1) })
        }
    }

    static func flags(_ value: JSONValue?, count: Int) throws -> [Bool] {
        let raw = try bytes(value, count: count)
        #expect(raw.allSatisfy { $0 <= 1 })
        return raw.map { $0 == 1 }
    }

    /// Every column of a reset or step result against the library's vector.
    static func expectColumns(_ result: JSONValue, match vector: VectorEnvironment, step: Bool) throws {
        let n = vector.count, cells = vector.rules.cellCount
        #expect(try bytes(result["observation"], count: n * cells) == vector.observations)
        #expect(try flags(result["terminated"], count: n) == vector.terminations)
        if step {
            #expect(try int64s(result["reward"], count: n) == vector.rewards)
            #expect(try flags(result["truncated"], count: n) == vector.truncations)
        }
        let info = try #require(result["info"])
        #expect(try bytes(info["action_mask"], count: n) == vector.infos.map(\.actionMask.rawValue))
        #expect(try int64s(info["score"], count: n) == vector.infos.map(\.score))
        #expect(try int64s(info["max_tile"], count: n) == vector.infos.map { Int64($0.maxTile) })
        #expect(try int64s(info["steps"], count: n) == vector.infos.map { Int64($0.steps) })
        #expect(try flags(info["invalid"], count: n) == vector.infos.map(\.invalid))
        #expect(try flags(info["won"], count: n) == vector.infos.map(\.won))
        let afterstates = vector.infos.flatMap { $0.afterstate?.exponents ?? Array(repeating: 0, count: cells) }
        #expect(try bytes(info["afterstate"], count: n * cells) == afterstates)
        // Spawns stay a JSON list.
        let spawns = try #require(info["spawn"]?.array)
        #expect(spawns.map { $0 == .null } == vector.infos.map { $0.spawn == nil })
        if vector.autoresetMode == .sameStep && step {
            let finals = try #require(result["final_observation"]?.array)
            #expect(finals.count == n)
            for (entry, board) in zip(finals, vector.finalObservations) {
                #expect(entry == (board.map { .string(Base64.encode($0.exponents)) } ?? .null))
            }
        } else {
            #expect(result["final_observation"] == nil)
        }
    }

    @Test(arguments: [AutoresetMode.nextStep, .sameStep])
    func batchColumnsDecodeToTheLibrarysVector(mode: AutoresetMode) throws {
        var dispatcher = T.dispatcher()
        let make =
            #"{"rows":3,"cols":3,"num_envs":5,"max_steps":9,"win_tile":64,"observation":"base64_batch","info_layout":"columns","autoreset_mode":"\#(mode.rawValue)"}"#
        _ = try T.result(dispatcher.handle(T.request(1, "make", make)))
        var vector = VectorEnvironment(rules: try Rules(rows: 3, cols: 3, winTile: 64, maxSteps: 9), count: 5, autoresetMode: mode)
        vector.reset(seed: 4)
        try Self.expectColumns(T.result(dispatcher.handle(T.request(2, "reset", #"{"seed":4}"#))), match: vector, step: false)
        var ended = 0, finals = 0
        for index in 0..<60 {
            let actions = vector.infos.map { $0.actionMask.isEmpty ? Direction.up : $0.actionMask.direction(at: index % $0.actionMask.count) }
            let result = try T.result(dispatcher.handle(T.request(index + 3, "step", #"{"actions":"\#(actions.map { String($0.rawValue) }.joined())"}"#)))
            try vector.step(actions)
            try Self.expectColumns(result, match: vector, step: true)
            ended += vector.terminations.filter { $0 }.count + vector.truncations.filter { $0 }.count
            finals += vector.finalObservations.compactMap { $0 }.count
        }
        // The run covers episodes that end, and (same_step) final observations.
        #expect(ended > 5)
        #expect(mode != .sameStep || finals > 5)
    }

    @Test func rowsLayoutKeepsPerEnvironmentInfosAsWithBase64() throws {
        var batch = T.dispatcher(), plain = T.dispatcher()
        _ = try T.result(batch.handle(T.request(1, "make", #"{"num_envs":3,"observation":"base64_batch"}"#)))
        _ = try T.result(plain.handle(T.request(1, "make", #"{"num_envs":3,"observation":"base64"}"#)))
        for (id, method, params) in [(2, "reset", #"{"seed":5}"#), (3, "step", #"{"actions":"012"}"#), (4, "step", #"{"actions":"330"}"#)] {
            let b = try T.result(batch.handle(T.request(id, method, params)))
            let p = try T.result(plain.handle(T.request(id, method, params)))
            #expect(b["info"] == p["info"])
            let joined = try (p["observation"]?.array ?? []).flatMap { try Self.bytes($0, count: 16) }
            #expect(try Self.bytes(b["observation"], count: 48) == joined)
        }
        // Afterstates and render travel as with base64.
        #expect(try T.result(batch.handle(T.request(5, "afterstates"))) == T.result(plain.handle(T.request(5, "afterstates"))))
        #expect(try T.result(batch.handle(T.request(6, "render"))) == T.result(plain.handle(T.request(6, "render"))))
    }

    /// A single environment answers exactly as with base64, byte for byte.
    @Test func aSingleEnvironmentIsExactlyBase64() throws {
        var batch = T.dispatcher(), plain = T.dispatcher()
        _ = batch.handle(T.request(1, "make", #"{"observation":"base64_batch","info_layout":"columns"}"#))
        _ = plain.handle(T.request(1, "make", #"{"observation":"base64","info_layout":"columns"}"#))
        let script = [
            T.request(2, "reset", #"{"seed":9}"#), T.request(3, "step", #"{"action":1}"#), T.request(4, "step", #"{"action":"down"}"#),
            T.request(5, "afterstates"), T.request(6, "reset", #"{"seeds":[3]}"#), T.request(7, "render"),
        ]
        for line in script {
            #expect(batch.handle(line) == plain.handle(line))
        }
    }

    @Test func specNamesTheEncodingWithExponentBytes() throws {
        var dispatcher = T.dispatcher()
        let spec = try T.result(dispatcher.handle(T.request(1, "make", #"{"rows":3,"cols":5,"num_envs":4,"observation":"base64_batch"}"#)))
        #expect(spec["observation"] == .object([("encoding", "base64_batch"), ("shape", [3, 5]), ("dtype", "uint8"), ("low", 0), ("high", 16)]))
        #expect(spec["config"]?["observation"] == "base64_batch")
        // The most environments on the largest board fit the response limit, as with base64.
        _ = try T.result(dispatcher.handle(T.request(2, "make", #"{"rows":8,"cols":8,"num_envs":65536,"observation":"base64_batch"}"#)))
    }
}
