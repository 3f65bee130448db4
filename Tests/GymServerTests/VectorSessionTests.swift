import Game2048
import Testing
@testable import GymServer
import GymJSON

/// Vector sessions whose environments end, or start over, in every autoreset mode: none of these may crash
/// the server, and a request that fails changes nothing.
struct VectorSessionTests {
    typealias T = DispatcherTests

    static func run(_ dispatcher: inout Dispatcher, _ id: Int, _ method: String, _ params: String? = nil) -> String? {
        dispatcher.handle(T.request(id, method, params))
    }

    @Test func disabledAutoresetRefusesToStepFinishedEnvironmentsAndChangesNothing() throws {
        var d = T.dispatcher()
        _ = try T.result(Self.run(&d, 1, "make", #"{"num_envs":2,"autoreset_mode":"disabled","max_steps":1}"#))
        _ = try T.result(Self.run(&d, 2, "reset", #"{"seed":1}"#))
        _ = try T.result(Self.run(&d, 3, "step", #"{"actions":[0,0]}"#))
        let before = Self.run(&d, 4, "render")
        let error = try T.error(Self.run(&d, 5, "step", #"{"actions":[0,0]}"#))
        #expect(error.code == -32002)
        #expect(error.message == #"episode over: environments 0, 1 ended; with autoreset_mode "disabled" call reset first"#)
        #expect(Self.run(&d, 4, "render") == before)
        _ = try T.result(Self.run(&d, 6, "reset"))
        _ = try T.result(Self.run(&d, 7, "step", #"{"actions":[0,0]}"#))
    }

    @Test func mergingTwoTilesOf2To50IsRefusedAndNothingCrashes() throws {
        var d = T.dispatcher()
        _ = try T.result(Self.run(&d, 1, "make", #"{"num_envs":2,"rows":8,"cols":8,"observation":"base64"}"#))
        let big = 1 << 50
        let row0 = "[\(big),\(big),0,0,0,0,0,0]"
        let board = "[" + ([row0] + Array(repeating: "[0,0,0,0,0,0,0,0]", count: 7)).joined(separator: ",") + "]"
        let reset = try T.result(Self.run(&d, 2, "reset", #"{"seed":1,"options":{"board":\#(board)}}"#))
        #expect(reset["info"]?.array?.first?["action_mask"] == .array([false, false, true, false].map { .bool($0) }))
        let step = try T.result(Self.run(&d, 3, "step", #"{"actions":[3,3]}"#))
        #expect(step["info"]?.array?.allSatisfy { $0["invalid"] == .bool(true) } == true)
        _ = try T.result(Self.run(&d, 4, "render"))
        let spec = try T.result(Self.run(&d, 5, "spec"))
        #expect(spec["observation"]?["high"] == .integer(50))
    }

    @Test func theSingleEnvironmentRefusesATileAboveItsCeiling() throws {
        var d = T.dispatcher()
        let big = 1 << 50
        let before = Self.run(&d, 1, "spec")
        let error = try T.error(Self.run(&d, 2, "reset", #"{"options":{"board":[[\#(big),\#(big),0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}"#))
        #expect(error.code == -32602)
        #expect(error.message == "invalid params: board cell 0 must hold at most 131072 (2^17, the largest tile this board size can make), got 2^50")
        #expect(Self.run(&d, 1, "spec") == before)
        let spec = try T.result(before)
        #expect(spec["observation"]?["high"] == .integer(17))
    }

    @Test func aVectorOverAtResetSaysSoAndTheNextStepStartsNewEpisodes() throws {
        var d = T.dispatcher()
        _ = try T.result(Self.run(&d, 1, "make", #"{"num_envs":2,"win_tile":4,"spawn_four_probability":1}"#))
        let reset = try T.result(Self.run(&d, 2, "reset", #"{"seed":1}"#))
        #expect(reset["terminated"] == .array([true, true]))
        let step = try T.result(Self.run(&d, 3, "step", #"{"actions":[0,0]}"#))
        #expect(step["reward"] == .array([0, 0]))
        #expect(step["info"]?.array?.allSatisfy { $0["steps"] == .integer(0) } == true)
    }

    @Test func rejectPolicyWithADeadBoardIgnoresTheActionsInsteadOfCrashing() throws {
        var d = T.dispatcher()
        _ = try T.result(Self.run(&d, 1, "make", #"{"num_envs":2,"invalid_action":"reject","win_tile":2048}"#))
        let dead = "[[2,4,2,4],[4,2,4,2],[2,4,2,4],[4,2,4,2]]"
        let reset = try T.result(Self.run(&d, 2, "reset", #"{"seed":1,"options":{"board":\#(dead)}}"#))
        #expect(reset["terminated"] == .array([true, true]))
        let step = try T.result(Self.run(&d, 3, "step", #"{"actions":[2,2]}"#))
        #expect(step["reward"] == .array([0, 0]))
        #expect(step["terminated"] == .array([false, false]))
    }

    @Test func aSingleEnvironmentOverAtResetSaysSo() throws {
        var d = T.dispatcher()
        let dead = "[[2,4,2,4],[4,2,4,2],[2,4,2,4],[4,2,4,2]]"
        let reset = try T.result(Self.run(&d, 1, "reset", #"{"options":{"board":\#(dead)}}"#))
        #expect(reset["terminated"] == .bool(true))
        #expect(try T.error(Self.run(&d, 2, "step", #"{"action":0}"#)).code == -32002)
    }

    @Test func sameStepReportsTheFinalInfoOfEachEndedEpisode() throws {
        var d = T.dispatcher()
        _ = try T.result(Self.run(&d, 1, "make", #"{"num_envs":2,"autoreset_mode":"same_step","max_steps":2,"info":["score","steps"]}"#))
        _ = try T.result(Self.run(&d, 2, "reset", #"{"seed":3}"#))
        let first = try T.result(Self.run(&d, 3, "step", #"{"actions":"33"}"#))
        #expect(first["final_info"] == .array([.null, .null]))
        let second = try T.result(Self.run(&d, 4, "step", #"{"actions":"00"}"#))
        var vector = VectorEnvironment(rules: try Rules(maxSteps: 2), count: 2, autoresetMode: .sameStep)
        vector.reset(seed: 3)
        try vector.step([.left, .left])
        try vector.step([.up, .up])
        let expected: [JSONValue] = vector.finalInfos.map { info in
            .object([("score", .integer(Int128(info!.score))), ("steps", 2)])
        }
        #expect(second["final_info"] == .array(expected))
        #expect(second["info"]?.array?.allSatisfy { $0["steps"] == .integer(0) } == true)
    }
}
