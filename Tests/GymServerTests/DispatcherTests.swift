import Game2048
import Testing
@testable import GymServer
import GymJSON

/// The protocol in-process: request strings in, response strings out.
struct DispatcherTests {
    static func dispatcher(_ config: ServerConfig = ServerConfig()) -> Dispatcher {
        Dispatcher(session: GameSession(config: config))
    }

    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    static func result(_ response: String?) throws -> JSONValue {
        let text = try #require(response)
        let value = try JSONValue.parse(Array(text.utf8))
        let result = value["result"]
        return try #require(result, "no result in \(text)")
    }

    static func error(_ response: String?) throws -> (code: Int128, message: String) {
        let text = try #require(response)
        let value = try JSONValue.parse(Array(text.utf8))
        let error = value["error"]
        let code = error?["code"]?.integer
        let message = error?["message"]?.string
        return (try #require(code, "no error in \(text)"), try #require(message))
    }

    @Test func resetAndStepMatchTheLibraryExactly() throws {
        var dispatcher = Self.dispatcher()
        var env = Environment(rules: Rules())
        let reset = try Self.result(dispatcher.handle(Self.request(1, "reset", #"{"seed":42}"#)))
        let start = env.reset(seed: 42)
        let rows = start.observation.exponents
        #expect(reset["observation"] == .array((0..<4).map { r in .array((0..<4).map { .integer(Int128(rows[r * 4 + $0])) }) }))
        for (index, action) in [Direction.left, .up, .right, .down, .left, .left].enumerated() {
            let response = try Self.result(dispatcher.handle(Self.request(index + 2, "step", #"{"action":\#(action.rawValue)}"#)))
            let step = try env.step(action)
            #expect(response["reward"] == .integer(Int128(step.reward)))
            #expect(response["terminated"] == .bool(step.terminated))
            #expect(response["info"]?["score"] == .integer(Int128(step.info.score)))
            #expect(response["info"]?["action_mask"] == .array(step.info.actionMask.booleans.map { .bool($0) }))
            #expect(response["info"]?["invalid"] == .bool(step.info.invalid))
            let flat = response["observation"]?.array?.flatMap { $0.array ?? [] }.map { UInt8($0.integer ?? -1) }
            #expect(flat == step.observation.exponents)
            if let spawn = step.info.spawn {
                #expect(response["info"]?["spawn"] == .object([("cell", .integer(Int128(spawn.cell))), ("value", .integer(Int128(spawn.value)))]))
            }
        }
    }

    @Test func actionNamesAndIndicesAreEquivalent() throws {
        var byName = Self.dispatcher(), byIndex = Self.dispatcher()
        _ = byName.handle(Self.request(1, "reset", #"{"seed":3}"#))
        _ = byIndex.handle(Self.request(1, "reset", #"{"seed":3}"#))
        for (name, index) in [("up", 0), ("right", 1), ("down", 2), ("left", 3)] {
            #expect(
                byName.handle(Self.request(2, "step", #"{"action":"\#(name)"}"#))
                    == byIndex.handle(Self.request(2, "step", #"{"action":\#(index)}"#)))
        }
    }

    @Test func sameRequestsGiveByteIdenticalResponses() {
        let script =
            [
                Self.request(1, "make", #"{"num_envs":3,"observation":"base64"}"#),
                Self.request(2, "reset", #"{"seed":9}"#),
            ]
            + (0..<30).map { Self.request($0 + 3, "step", #"{"actions":[\#($0 % 4),"left","up"]}"#) }
        var a = Self.dispatcher(), b = Self.dispatcher()
        #expect(script.map { a.handle($0) } == script.map { b.handle($0) })
    }

    @Test(arguments: [
        (
            #"{"jsonrpc":"2.0","id":1,"method":"step","params":{"action":7}}"#, -32602,
            "invalid params: action must be 0..3 or up/right/down/left, got 7"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"step","params":{"action":"north"}}"#, -32602,
            #"invalid params: action must be 0..3 or up/right/down/left, got "north""#
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"step","params":{}}"#, -32602, "invalid params: action is required: 0..3 or up/right/down/left"),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":-1}}"#, -32602,
            "invalid params: seed must be an unsigned 64-bit integer (0 to 18446744073709551615), got -1"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":1.5}}"#, -32602,
            "invalid params: seed must be an unsigned 64-bit integer (0 to 18446744073709551615), got 1.5"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"seed":18446744073709551616}}"#, -32602,
            "invalid params: seed must be an unsigned 64-bit integer (0 to 18446744073709551615), got 18446744073709551616"
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"reset","params":[1]}"#, -32602, "invalid params: params must be an object, got array"),
        (#"{"jsonrpc":"2.0","id":1,"method":"make","params":{"rows":99}}"#, -32602, "invalid params: rows must be an integer from 2 to 8, got 99"),
        (#"{"jsonrpc":"2.0","id":1,"method":"make","params":{"rows":"4"}}"#, -32602, #"invalid params: rows must be an integer from 2 to 8, got "4""#),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"make","params":{"colour":1}}"#, -32602,
            "invalid params: unknown option 'colour'; options are \(ServerOption.names.joined(separator: ", "))"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"make","params":{"win_tile":100}}"#, -32602,
            "invalid params: win_tile must be a power of two from 4 to 2^50, got 100"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"make","params":{"spawn_four_probability":1e999}}"#, -32602,
            "invalid params: spawn_four_probability must be a number from 0.0 to 1.0, got inf"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"fly"}"#, -32601,
            "method not found: 'fly'; methods are \(Methods.names.joined(separator: ", "))"
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"step","params":{"action":0}}"#, -32001,
            "not reset: call reset (or set_state) before step, afterstates, get_state or render"
        ),
        (#"{"jsonrpc":"1.0","id":1,"method":"spec"}"#, -32600, #"invalid request: jsonrpc must be "2.0""#),
        (#"{"jsonrpc":"2.0","id":1,"method":5}"#, -32600, "invalid request: method must be a string"),
        (#"{"jsonrpc":"2.0","id":[1],"method":"spec"}"#, -32600, "invalid request: id must be a string, a number or null, got array"),
        (#"{"jsonrpc":"2.0","id":1,"method":"spec","extra":1}"#, -32600, "invalid request: unknown member 'extra'"),
        (#"[]"#, -32600, "invalid request: empty batch"),
        (#"42"#, -32600, "invalid request: a request must be an object, got integer"),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"spec\"", -32700, "parse error: unterminated object at byte 39"),
    ])
    func badRequestsGetPreciseErrors(line: String, code: Int, message: String) throws {
        var dispatcher = Self.dispatcher()
        let error = try Self.error(dispatcher.handle(line))
        #expect(error.code == Int128(code))
        #expect(error.message == message)
    }

    @Test func parseErrorsAnswerWithNullID() throws {
        var dispatcher = Self.dispatcher()
        #expect(
            dispatcher.handle("\u{FF}garbage")
                == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected character '\\xC3' at byte 0"}}"#)
        #expect(dispatcher.handle(String(decoding: [0x7B, 0xC3, 0x28], as: UTF8.self))?.contains("-32700") == true)
    }

    @Test func aFailedRequestChangesNothing() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "reset", #"{"seed":5}"#))
        let before = dispatcher.handle(Self.request(2, "afterstates"))
        for bad in [#"{"action":9}"#, #"{"actions":[0]}"#, #"{"action":0,"x":1}"#] {
            _ = dispatcher.handle(Self.request(3, "step", bad))
        }
        _ = dispatcher.handle(Self.request(4, "make", #"{"rows":3,"cols":99}"#))
        _ = dispatcher.handle(Self.request(5, "reset", #"{"seed":5,"options":{"board":[[2]]}}"#))
        #expect(dispatcher.handle(Self.request(2, "afterstates")) == before)
        #expect(dispatcher.session.config == ServerConfig())
    }

    /// Only a valid request without an id is a notification; an invalid one is answered with -32600 and a null id.
    @Test(arguments: [
        (#"{}"#, #"jsonrpc must be "2.0""#),
        (#"{"foo":"bar"}"#, "unknown member 'foo'"),
        (#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, "method must be a string"),
        (#"{"method":"spec"}"#, #"jsonrpc must be "2.0""#),
        (#"{"jsonrpc":"2.0","method":"spec","params":7}"#, "params must be an object or an array when present, got integer"),
        (#"{"jsonrpc":"2.0","method":"spec","params":"x"}"#, "params must be an object or an array when present, got string"),
        (#"{"jsonrpc":"2.0","method":"spec","params":null}"#, "params must be an object or an array when present, got null"),
        (#"{"jsonrpc":"2.0","method":"spec","id":1,"id":2}"#, "duplicate member 'id'"),
        (#"{"jsonrpc":"2.0","method":"spec","method":"reset"}"#, "duplicate member 'method'"),
    ])
    func invalidRequestsWithoutIDAreAnswered(line: String, reason: String) throws {
        var dispatcher = Self.dispatcher()
        let expected =
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: "# + JSONValue.string(reason).serialized.dropFirst() + "}}"
        #expect(dispatcher.handle(line) == expected)
        // The same inside a batch, next to a notification (no response) and a request.
        let batch = "[" + line + #",{"jsonrpc":"2.0","method":"spec"},"# + line + "," + Self.request(3, "spec") + "]"
        let responseLine = dispatcher.handle(batch)
        let response = try #require(responseLine)
        let parsed = try JSONValue.parse(Array(response.utf8)).array
        let elements = try #require(parsed)
        #expect(elements.count == 3)
        #expect(elements[0].serialized == expected && elements[1].serialized == expected)
        #expect(elements[2]["id"] == 3 && elements[2]["result"] != nil)
    }

    /// Ids come back as they were written, numbers included.
    @Test(arguments: ["1e400", "1234567890123456789012345678901234567890", "1e3", "-0", "2.50", "-7", "0", #""a\u00e9""#, "null"])
    func idsAreEchoedExactly(id: String) throws {
        var dispatcher = Self.dispatcher()
        let errorLine = dispatcher.handle(#"{"jsonrpc":"2.0","id":\#(id),"method":"fly"}"#)
        let error = try #require(errorLine)
        #expect(error.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id == #""a\u00e9""# ? #""aé""# : id),"error":{"code":-32601,"#))
        let resultLine = dispatcher.handle(#"{"jsonrpc":"2.0","method":"spec","id":\#(id)}"#)
        let result = try #require(resultLine)
        #expect(result.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id == #""a\u00e9""# ? #""aé""# : id),"result":{"protocol""#))
    }

    /// Duplicate member names are refused wherever they are, and change nothing.
    @Test(arguments: [
        (#"{"seed":1,"seed":2}"#, "seed"),
        (#"{"seed":1,"options":{"board":null,"board":[[2,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}"#, "options.board"),
    ])
    func duplicateParametersAreRefused(params: String, path: String) throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "reset", #"{"seed":5}"#))
        let before = dispatcher.handle(Self.request(2, "render"))
        let error = try Self.error(dispatcher.handle(Self.request(3, "reset", params)))
        #expect(error.code == -32602)
        #expect(error.message == "invalid params: duplicate parameter '\(path)'")
        #expect(dispatcher.handle(Self.request(2, "render")) == before)
        let make = try Self.error(dispatcher.handle(Self.request(4, "make", #"{"rows":3,"rows":5}"#)))
        #expect(make.message == "invalid params: duplicate parameter 'rows'")
        #expect(dispatcher.session.config == ServerConfig())
    }

    @Test func notificationsWithBadParamsGetNoResponse() {
        var dispatcher = Self.dispatcher()
        #expect(dispatcher.handle(#"{"jsonrpc":"2.0","method":"reset","params":{"seed":-1}}"#) == nil)
        #expect(dispatcher.handle(#"{"jsonrpc":"2.0","method":"reset","params":{"seed":1,"seed":1}}"#) == nil)
        #expect(!dispatcher.session.isReset)
    }

    /// A configuration whose responses could outgrow the limit is refused at make, naming why;
    /// 65 536 one-hot 8x8 environments used to make 2.5 GB afterstates lines.
    @Test func makeRefusesConfigurationsWithOversizedResponses() throws {
        var dispatcher = Self.dispatcher()
        let error = try Self.error(dispatcher.handle(Self.request(1, "make", #"{"rows":8,"cols":8,"num_envs":65536,"observation":"onehot"}"#)))
        #expect(error.code == -32602)
        #expect(
            error.message.hasPrefix(#"invalid params: num_envs 65536 with observation "onehot" (51 channels) on 8x8 can make afterstates results of up to "#))
        #expect(error.message.contains("over the 256 MiB limit of one response; use at most "))
        #expect(dispatcher.session.config == ServerConfig())
        // The largest number it names is accepted, and one more is not.
        let fitting = try #require(error.message.split(separator: " ").drop { $0 != "most" }.dropFirst().first.flatMap { Int($0) })
        _ = try Self.result(dispatcher.handle(Self.request(2, "make", #"{"rows":8,"cols":8,"num_envs":\#(fitting),"observation":"onehot"}"#)))
        #expect(try Self.error(dispatcher.handle(Self.request(3, "make", #"{"num_envs":\#(fitting + 1)}"#))).code == -32602)
        // Compact encodings serve the most environments on the largest board.
        _ = try Self.result(dispatcher.handle(Self.request(4, "make", #"{"num_envs":65536,"observation":"exponents"}"#)))
    }

    /// Each result fits the bound that make checks, for every method, on the encodings' extremes.
    @Test(arguments: ServerConfig.Encoding.allCases)
    func resultsFitTheirBound(encoding: ServerConfig.Encoding) throws {
        var dispatcher = Self.dispatcher()
        let make =
            #"{"rows":2,"cols":3,"num_envs":3,"observation":"\#(encoding.rawValue)","info":["action_mask","score","max_tile","steps","afterstate","spawn","invalid","won","moves"],"autoreset_mode":"same_step","invalid_action":"terminate","invalid_action_penalty":9223372036854775807}"#
        _ = try Self.result(dispatcher.handle(Self.request(1, "make", make)))
        let bound = ResultEncoder.largestResultBytes(dispatcher.session.config)
        // Two tiles at the top of a 2x3 board's range (2^7), so that every number is at its widest.
        let board = "[[128,128,64],[64,32,32]]"
        let lines = [
            Self.request(2, "reset", #"{"seed":1,"options":{"board":\#(board)}}"#),
            Self.request(3, "afterstates"), Self.request(4, "render", #"{"ansi":true}"#),
            Self.request(5, "step", #"{"actions":"330"}"#), Self.request(6, "step", #"{"actions":"000"}"#),
        ]
        for line in lines {
            let answer = dispatcher.handle(line)
            let response = try #require(answer)
            #expect(response.utf8.count <= bound, "\(line)")
            #expect(try JSONValue.parse(Array(response.utf8))["result"] != nil)
        }
    }

    /// Found by the protocol fuzz: under reject, a vector step merging two tiles at the largest exponent
    /// (offered by the step's mask) crashed the server in VectorEnvironment.step; it is an illegal action.
    @Test func rejectingAVectorMergeAtTheLargestTileIsAnErrorNotACrash() throws {
        var dispatcher = Self.dispatcher()
        _ = try Self.result(dispatcher.handle(Self.request(1, "make", #"{"rows":2,"cols":3,"num_envs":2,"invalid_action":"reject"}"#)))
        _ = try Self.result(dispatcher.handle(Self.request(2, "reset", #"{"seed":1,"options":{"board":[[128,128,0],[0,0,2]]}}"#)))
        _ = try Self.result(dispatcher.handle(Self.request(3, "step", #"{"actions":"22"}"#)))
        let before = dispatcher.handle(Self.request(4, "render"))
        let error = try Self.error(dispatcher.handle(Self.request(5, "step", #"{"actions":"33"}"#)))
        #expect(error.code == -32003)
        #expect(error.message == "illegal action: environment 0: illegal action left: it does not change the board")
        #expect(dispatcher.handle(Self.request(4, "render")) == before)
    }

    @Test func notificationsGetNoResponseButRun() throws {
        var dispatcher = Self.dispatcher()
        #expect(dispatcher.handle(#"{"jsonrpc":"2.0","method":"reset","params":{"seed":1}}"#) == nil)
        #expect(dispatcher.session.isReset)
        #expect(dispatcher.handle(#"{"jsonrpc":"2.0","method":"nope"}"#) == nil)
    }

    @Test func batchesGetArraysOfResponses() throws {
        var dispatcher = Self.dispatcher()
        let line = "[" + Self.request(1, "reset", #"{"seed":1}"#) + #",{"jsonrpc":"2.0","method":"spec"},"# + Self.request(2, "fly") + "]"
        let answer = dispatcher.handle(line)
        let response = try #require(answer)
        let parsed = try JSONValue.parse(Array(response.utf8)).array
        let array = try #require(parsed)
        #expect(array.count == 2)
        #expect(array[0]["id"] == 1 && array[0]["result"] != nil)
        #expect(array[1]["error"]?["code"] == -32601)
        #expect(dispatcher.handle("[" + #"{"jsonrpc":"2.0","method":"spec"}"# + "]") == nil)
    }

    /// A batch of millions of invalid entries took 45 s and made millions of replies: a batch is bounded, and one
    /// over the bound is refused whole, before any of it runs.
    @Test func aBatchOverTheBoundIsRefusedWholeAndNothingRuns() throws {
        var dispatcher = Self.dispatcher()
        let fits = "[" + Array(repeating: "1", count: Dispatcher.maxBatchCount).joined(separator: ",") + "]"
        let handled = dispatcher.handle(fits)
        let reply = try #require(handled)
        let answers = try #require(JSONValue.parse(Array(reply.utf8)).array)
        #expect(answers.count == Dispatcher.maxBatchCount)
        let over = "[" + Array(repeating: Self.request(1, "reset", #"{"seed":1}"#), count: Dispatcher.maxBatchCount + 1).joined(separator: ",") + "]"
        let refused = dispatcher.handle(over)
        #expect(
            refused
                == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch holds at most 10000 requests, got 10001; none was run"}}"#
        )
        // Nothing ran: the session was never reset.
        let step = dispatcher.handle(Self.request(2, "step", #"{"action":0}"#))
        #expect(try Self.error(step).code == -32001)
    }

    @Test func episodeOverIsAStateError() throws {
        var dispatcher = Self.dispatcher()
        // One legal move (left merges the 2s), then no move is left.
        let board = "[[2,2,4,8],[16,32,64,128],[256,512,1024,4096],[8,16,32,64]]"
        _ = dispatcher.handle(Self.request(1, "reset", #"{"seed":1,"options":{"board":\#(board)}}"#))
        let step = try Self.result(dispatcher.handle(Self.request(2, "step", #"{"action":"left"}"#)))
        #expect(step["reward"] == 4)
        if step["terminated"] == true {
            #expect(try Self.error(dispatcher.handle(Self.request(3, "step", #"{"action":"left"}"#))).code == -32002)
        }
    }

    @Test func rejectPolicyReportsIllegalActionAndKeepsState() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "make", #"{"invalid_action":"reject"}"#))
        _ = dispatcher.handle(Self.request(2, "reset", #"{"seed":1,"options":{"board":[[2,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}"#))
        let error = try Self.error(dispatcher.handle(Self.request(3, "step", #"{"action":"up"}"#)))
        #expect(error.code == -32003)
        #expect(error.message == "illegal action: illegal action up: it does not change the board")
        let render = try Self.result(dispatcher.handle(Self.request(4, "render")))
        #expect(render["text"] == "2 . . .\n. . . .\n. . . .\n. . . .")
    }

    @Test func makeChangesTheSpecAndRequiresReset() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "reset"))
        let spec = try Self.result(dispatcher.handle(Self.request(2, "make", #"{"rows":3,"cols":5,"observation":"onehot","num_envs":2}"#)))
        #expect(spec["rows"] == 3 && spec["cols"] == 5 && spec["num_envs"] == 2)
        #expect(spec["observation"]?["shape"] == [17, 3, 5])
        #expect(spec["config"]?["onehot_channels"] == 17)
        #expect(try Self.error(dispatcher.handle(Self.request(3, "step", #"{"actions":[0,0]}"#))).code == -32001)
        let reset = try Self.result(dispatcher.handle(Self.request(4, "reset", #"{"seed":2}"#)))
        #expect(reset["observation"]?.array?.count == 2)
        #expect(reset["observation"]?.array?.first?.array?.count == 17)
    }

    @Test func base64ObservationsAreExponentBytes() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "make", #"{"observation":"base64"}"#))
        let reset = try Self.result(
            dispatcher.handle(Self.request(2, "reset", #"{"seed":11,"options":{"board":[[2,4,0,0],[0,0,0,0],[0,0,0,2048],[0,0,0,0]]}}"#)))
        let observation = reset["observation"]?.string
        let text = try #require(observation)
        #expect(Base64.decode(text) == [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0])
    }

    /// Environment `i` of a vector reset with `seeds[i] = s` starts as a single environment's `reset(seed: s)`;
    /// null continues that environment's stream.
    @Test func perEnvironmentSeedsStartEachEnvironmentAsASingleResetWithThatSeed() throws {
        var vector = Self.dispatcher()
        _ = try Self.result(vector.handle(Self.request(1, "make", #"{"num_envs":4}"#)))
        _ = try Self.result(vector.handle(Self.request(2, "reset", #"{"seed":1}"#)))
        let seeded = try Self.result(vector.handle(Self.request(3, "reset", #"{"seeds":[7,null,18446744073709551615,7]}"#)))
        let observations = try #require(seeded["observation"]?.array)
        let infos = try #require(seeded["info"]?.array)
        for (index, seed) in [(0, UInt64(7)), (2, UInt64.max), (3, UInt64(7))] {
            var single = Self.dispatcher()
            let start = try Self.result(single.handle(Self.request(1, "reset", #"{"seed":\#(seed)}"#)))
            #expect(observations[index] == start["observation"])
            #expect(infos[index] == start["info"])
        }
        // Environment 1 continued the stream the batch seed 1 gave it.
        var continued = VectorEnvironment(count: 4)
        continued.reset(seed: 1)
        continued.reset()
        let exponents = continued.observation(at: 1).exponents
        #expect(observations[1] == .array((0..<4).map { r in .array((0..<4).map { .integer(Int128(exponents[r * 4 + $0])) }) }))
        // With a board, every environment starts from it with its own generator.
        let board = #""options":{"board":[[2,2,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}"#
        _ = try Self.result(vector.handle(Self.request(4, "reset", #"{"seeds":[1,2,3,4],\#(board)}"#)))
        let stepped = try Self.result(vector.handle(Self.request(5, "step", #"{"actions":"3333"}"#)))
        var single = Self.dispatcher()
        _ = try Self.result(single.handle(Self.request(1, "reset", #"{"seed":3,\#(board)}"#)))
        let alone = try Self.result(single.handle(Self.request(2, "step", #"{"action":3}"#)))
        #expect(stepped["observation"]?.array?[2] == alone["observation"])
    }

    @Test(arguments: [
        (
            #"{"seed":1,"seeds":[1,2,3]}"#,
            "invalid params: seed and seeds cannot be given together: seed seeds every environment from one number, seeds gives one seed per environment"
        ),
        (#"{"seeds":[1,2]}"#, "invalid params: seeds must have 3 entries (one per environment), got 2"),
        (#"{"seeds":[1,2,3,4]}"#, "invalid params: seeds must have 3 entries (one per environment), got 4"),
        (#"{"seeds":7}"#, "invalid params: seeds must be a list of 3 seeds (unsigned 64-bit integers or null), got 7"),
        (#"{"seeds":[1,-1,3]}"#, "invalid params: seeds[1] must be an unsigned 64-bit integer (0 to 18446744073709551615) or null, got -1"),
        (
            #"{"seeds":[1,2,18446744073709551616]}"#,
            "invalid params: seeds[2] must be an unsigned 64-bit integer (0 to 18446744073709551615) or null, got 18446744073709551616"
        ),
    ])
    func badSeedsAreRefusedAndChangeNothing(params: String, message: String) throws {
        var dispatcher = Self.dispatcher()
        _ = try Self.result(dispatcher.handle(Self.request(1, "make", #"{"num_envs":3}"#)))
        _ = try Self.result(dispatcher.handle(Self.request(2, "reset", #"{"seed":1}"#)))
        let before = dispatcher.handle(Self.request(3, "render"))
        let error = try Self.error(dispatcher.handle(Self.request(4, "reset", params)))
        #expect(error.code == -32602)
        #expect(error.message == message)
        #expect(dispatcher.handle(Self.request(3, "render")) == before)
    }

    @Test func aSingleEnvironmentTakesAOneEntrySeedList() throws {
        var listed = Self.dispatcher(), plain = Self.dispatcher()
        #expect(
            try Self.result(listed.handle(Self.request(1, "reset", #"{"seeds":[42]}"#)))
                == Self.result(plain.handle(Self.request(1, "reset", #"{"seed":42}"#))))
        #expect(
            try Self.error(listed.handle(Self.request(2, "reset", #"{"seeds":[1,2]}"#))).message
                == "invalid params: seeds must have 1 entry (one per environment), got 2")
        // null continues the stream, as a reset without a seed does.
        #expect(
            try Self.result(listed.handle(Self.request(3, "reset", #"{"seeds":[null]}"#)))
                == Self.result(plain.handle(Self.request(3, "reset"))))
    }

    @Test func vectorModeFollowsNextStepAutoreset() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "make", #"{"num_envs":4,"max_steps":2}"#))
        _ = dispatcher.handle(Self.request(2, "reset", #"{"seed":8}"#))
        var vector = VectorEnvironment(rules: try Rules(maxSteps: 2), count: 4)
        vector.reset(seed: 8)
        for index in 0..<5 {
            let actions = (0..<4).map { vector.infos[$0].actionMask.isEmpty ? Direction.up : vector.infos[$0].actionMask.direction(at: 0) }
            let list = actions.map { String($0.rawValue) }.joined(separator: ",")
            let result = try Self.result(dispatcher.handle(Self.request(index + 3, "step", #"{"actions":[\#(list)]}"#)))
            try vector.step(actions)
            #expect(result["reward"] == .array(vector.rewards.map { .integer(Int128($0)) }))
            #expect(result["truncated"] == .array(vector.truncations.map { .bool($0) }))
            #expect(result["info"]?.array?.map { $0["steps"] } == vector.infos.map { .integer(Int128($0.steps)) })
        }
    }

    @Test func columnsLayoutPacksMasksWithBase64() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "make", #"{"num_envs":3,"observation":"base64","info_layout":"columns","info":["action_mask","score"]}"#))
        let reset = try Self.result(dispatcher.handle(Self.request(2, "reset", #"{"seed":1}"#)))
        let infoValue = reset["info"]
        let info = try #require(infoValue)
        #expect(info.object?.map(\.0) == ["action_mask", "score"])
        let maskText = info["action_mask"]?.string
        let text = try #require(maskText)
        let decoded = Base64.decode(text)
        let masks = try #require(decoded)
        #expect(masks.count == 3)
        #expect(info["score"] == [0, 0, 0])
    }

    @Test func movesAreReportedWhenAskedFor() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "make", #"{"info":["moves"]}"#))
        _ = dispatcher.handle(Self.request(2, "reset", #"{"seed":1,"options":{"board":[[2,2,0,4],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}"#))
        let step = try Self.result(dispatcher.handle(Self.request(3, "step", #"{"action":"left"}"#)))
        #expect(
            step["info"]
                == .object([
                    (
                        "moves",
                        [
                            .object([("from", 1), ("to", 0), ("merged", true)]),
                            .object([("from", 3), ("to", 1), ("merged", false)]),
                        ]
                    )
                ]))
    }

    @Test func afterstatesReportAllFourActionsWithoutChangingAnything() throws {
        var dispatcher = Self.dispatcher()
        _ = dispatcher.handle(Self.request(1, "reset", #"{"seed":1,"options":{"board":[[2,2,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}"#))
        let result = try Self.result(dispatcher.handle(Self.request(2, "afterstates")))
        let afterstates = result["afterstates"]?.array
        let list = try #require(afterstates)
        #expect(list.map { $0["action"] } == ["up", "right", "down", "left"])
        #expect(list.map { $0["legal"] } == [false, true, true, true])
        #expect(list.map { $0["reward"] } == [0, 4, 0, 4])
        #expect(list[3]["afterstate"] == [[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
        #expect(dispatcher.handle(Self.request(2, "afterstates")) == dispatcher.handle(Self.request(2, "afterstates")))
    }

    @Test func closeAnswersThenStopsServing() throws {
        var dispatcher = Self.dispatcher()
        #expect(try Self.result(dispatcher.handle(Self.request(1, "close"))) == .object([("closed", true)]))
        #expect(dispatcher.isClosed)
    }

    @Test func blankLinesAreIgnored() {
        var dispatcher = Self.dispatcher()
        #expect(dispatcher.handle("") == nil)
        #expect(dispatcher.handle("  \r") == nil)
    }
}
