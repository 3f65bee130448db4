import Game2048
import GymJSON
import Testing

@testable import GymServer

/// `get_state`/`set_state`: a saved state restored through the protocol replays the same episode, one
/// environment or a vector, and every malformed member is refused with its path.
struct StateMethodTests {
    typealias D = DispatcherTests

    @Test(arguments: [1, 3])
    func aSavedStateReplaysTheSameSteps(numEnvs: Int) throws {
        var dispatcher = D.dispatcher(try ServerConfig().applying([("num_envs", .integer(Int128(numEnvs)))]))
        _ = try D.result(dispatcher.handle(D.request(1, "reset", #"{"seed":7}"#)))
        let step = numEnvs == 1 ? #"{"action":0}"# : #"{"actions":"\#(String(repeating: "0", count: numEnvs))"}"#
        let other = numEnvs == 1 ? #"{"action":3}"# : #"{"actions":"\#(String(repeating: "3", count: numEnvs))"}"#
        for id in 2..<6 { _ = try D.result(dispatcher.handle(D.request(id, "step", id % 2 == 0 ? step : other))) }
        let state = try D.result(dispatcher.handle(D.request(10, "get_state")))["state"]!
        var first: [JSONValue] = []
        for id in 11..<20 { first.append(try D.result(dispatcher.handle(D.request(id, "step", id % 3 == 0 ? step : other)))) }
        var writer = JSONWriter()
        writer.write(state)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        let restored = try D.result(dispatcher.handle(D.request(20, "set_state", #"{"state":\#(text)}"#)))
        #expect(try D.result(dispatcher.handle(D.request(21, "get_state")))["state"] == state)
        if numEnvs == 1 { #expect(restored["terminated"] == .bool(false)) }
        var second: [JSONValue] = []
        for id in 11..<20 { second.append(try D.result(dispatcher.handle(D.request(id, "step", id % 3 == 0 ? step : other)))) }
        #expect(first == second)
    }

    @Test func malformedStatesAreRefusedWithTheirPath() throws {
        var dispatcher = D.dispatcher(try ServerConfig().applying([("num_envs", 2)]))
        #expect(try D.error(dispatcher.handle(D.request(1, "get_state"))).code == -32001)
        _ = try D.result(dispatcher.handle(D.request(2, "reset", #"{"seed":1}"#)))
        let good = #"{"board":[[2,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,2]],"score":4,"steps":2,"phase":"running","generator":[1,2,3,4]}"#
        let before = try D.result(dispatcher.handle(D.request(3, "get_state")))
        let cases: [(String, String)] = [
            (#"{"state":[\#(good)]}"#, "invalid params: state must be a list of 2 state objects, one per environment, got a list of 1"),
            (#"{"state":\#(good)}"#, "invalid params: state must be a list of 2 state objects, one per environment, got object"),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: #""score":4"#, with: #""score":4.5"#))]}"#,
                "invalid params: state[1].score must be an integer from 0 to 9223372036854775807, got 4.5"
            ),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: #""running""#, with: #""paused""#))]}"#,
                #"invalid params: state[1].phase must be one of "needs_reset", "running", "over", got "paused""#
            ),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: "[1,2,3,4]", with: "[1,2,3]"))]}"#,
                "invalid params: state[1].generator must be 4 state words, not all 0, as get_state gives them"
            ),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: "[1,2,3,4]", with: "[1,2,3,18446744073709551616]"))]}"#,
                "invalid params: state[1].generator[3] must be an integer from 0 to 18446744073709551615, got 18446744073709551616"
            ),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: #""board":[[2,0"#, with: #""board":[[6,0"#))]}"#,
                "invalid params: state[1].board cell 0 must be 0 or a power of two from 2 to 2^50, got 6"
            ),
            (#"{"state":[\#(good),\#(good.replacingOccurrences(of: #""steps":2,"#, with: ""))]}"#, "invalid params: missing state[1].steps"),
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: #""running""#, with: #""needs_reset""#))]}"#,
                #"invalid params: state[1]: phase must be "running" or "over": restore a state saved after a reset"#
            ),
            (#"{"state":[\#(good)],"extra":1}"#, "invalid params: unknown parameter 'extra' for set_state; parameters are state"),
            // A score no play from the board can carry past 2^63 - 1, so that get_state's own answer is always restored.
            (
                #"{"state":[\#(good),\#(good.replacingOccurrences(of: #""score":4"#, with: #""score":9223372036854775807"#))]}"#,
                "invalid params: state[1]: score must be at most 9223372036821221375 on this board (play from it could add more "
                    + "than the rest up to 2^63 - 1), got 9223372036854775807"
            ),
        ]
        for (id, (params, message)) in cases.enumerated() {
            let got = try D.error(dispatcher.handle(D.request(10 + id, "set_state", params))).message
            #expect(got == message)
        }
        #expect(try D.result(dispatcher.handle(D.request(30, "get_state"))) == before)
        _ = try D.result(dispatcher.handle(D.request(31, "set_state", #"{"state":[\#(good),\#(good)]}"#)))
    }
}
