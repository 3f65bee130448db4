#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Game2048
import GymJSON
import Testing
@testable import GymServer

/// Seeded, stateful fuzzing of the protocol: random sessions over every option, with custom
/// boards at and above the largest tile, dead and won boards, and invalid requests mixed in.
///
/// Every request is checked against the specification (one response per request with an id,
/// none for a notification, the id echoed, exactly one of result and error, a documented code),
/// every result against the spec's bounds and the rules (masks match the board, scores add up),
/// and every failed request against a snapshot of the whole session taken before it: a failure
/// changes nothing. `G2048_FUZZ_SESSIONS` (default 2 000) and `G2048_FUZZ_SEED` make longer runs.
struct ProtocolFuzzTests {
    static func environment(_ name: String) -> UInt64? {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
    }

    static let sessions = Int(environment("G2048_FUZZ_SESSIONS") ?? 2_000)
    static let seed = environment("G2048_FUZZ_SEED") ?? 2_048

    @Test func randomSessionsKeepEveryPromise() {
        var totals = ProtocolFuzzer.Totals()
        for index in 0..<Self.sessions {
            var fuzzer = ProtocolFuzzer(seed: Self.seed &+ UInt64(index))
            fuzzer.runSession()
            totals.add(fuzzer.totals)
            if fuzzer.totals.failures > 0 {
                let lines = fuzzer.transcript.prefix(60).joined(separator: "\n")
                Issue.record("session \(index) (G2048_FUZZ_SEED=\(Self.seed &+ UInt64(index)) G2048_FUZZ_SESSIONS=1) failed; requests:\n\(lines)")
                break
            }
        }
        print(
            "protocol fuzz: \(Self.sessions) sessions, \(totals.requests) request lines, \(totals.steps) successful steps, "
                + "\(totals.errors) errors (codes \(totals.codes.sorted().map(String.init).joined(separator: ", ")))")
        // After every step the reported mask left out each merge of two tiles at the largest exponent.
        #expect(totals.ceilingMaskMismatches == 0)
        // The run reaches what it is meant to reach (at the default size and above).
        if Self.sessions >= 500 {
            #expect(totals.steps > 10_000)
            #expect(Set(totals.codes).isSuperset(of: [-32700, -32600, -32601, -32602, -32001, -32002, -32003]))
            #expect(totals.deadResets > 0 && totals.wonResets > 0 && totals.ceilingBoards > 0 && totals.autoresets > 0)
            #expect(totals.seededEnvironments > 100 && totals.batchedResults > 100 && totals.finalObservations > 50)
            #expect(totals.restoredStates > 50 && totals.forgedStates > 50)
        }
    }

    /// A short run through the real binary over pipes answers byte for byte as the dispatcher does in-process.
    @Test func theBinaryAnswersAsTheDispatcherDoes() throws {
        var input: [String] = [], expected: [String] = []
        for index in 0..<40 {
            var fuzzer = ProtocolFuzzer(seed: Self.seed &+ 1_000_000 &+ UInt64(index))
            fuzzer.closes = false
            fuzzer.runSession()
            // Each session starts from the server's defaults: one make with them resets a session in the binary.
            input += [DispatcherTests.request(0, "make", ProtocolFuzzer.defaultMake)] + fuzzer.transcript
            expected += [fuzzer.defaultSpecResponse] + fuzzer.responses
        }
        let output = try Self.runBinary(input: input.joined(separator: "\n") + "\n")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == expected.count)
        for (index, (line, want)) in zip(lines, expected).enumerated() where line != want {
            Issue.record("response \(index) differs:\n\(line.prefix(300))\nin-process:\n\(want.prefix(300))")
            break
        }
    }

    /// The built `g2048` beside the test bundle.
    static func runBinary(input: String) throws -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var executable: URL?
        while directory.path != "/" && executable == nil {
            let candidate = directory.appendingPathComponent("g2048")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { executable = candidate }
            directory = directory.deletingLastPathComponent()
        }
        let process = Process()
        let found: URL = try #require(executable, "g2048 is not built next to the tests")
        process.executableURL = found
        process.arguments = ["serve"]
        let out = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardInput = inPipe
        try process.run()
        let writer = Foundation.Thread {
            inPipe.fileHandleForWriting.write(Data(input.utf8)); try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}

/// One random session against an in-process dispatcher, checking every response.
struct ProtocolFuzzer {
    struct Totals {
        var requests = 0, steps = 0, errors = 0, failures = 0
        var deadResets = 0, wonResets = 0, ceilingBoards = 0, autoresets = 0, seededEnvironments = 0, batchedResults = 0, finalObservations = 0
        /// Masks that offer a move merging two tiles at the largest exponent, a move the step then refuses.
        var ceilingMaskMismatches = 0
        /// States restored as get_state gave them, and forged ones refused.
        var restoredStates = 0, forgedStates = 0
        var codes: Set<Int> = []

        mutating func add(_ other: Totals) {
            requests += other.requests; steps += other.steps; errors += other.errors; failures += other.failures
            deadResets += other.deadResets; wonResets += other.wonResets; ceilingBoards += other.ceilingBoards
            autoresets += other.autoresets
            seededEnvironments += other.seededEnvironments; batchedResults += other.batchedResults
            finalObservations += other.finalObservations
            ceilingMaskMismatches += other.ceilingMaskMismatches
            restoredStates += other.restoredStates; forgedStates += other.forgedStates
            codes.formUnion(other.codes)
        }
    }

    /// Codes docs/PROTOCOL.md lists (-32603, an internal error, would be a bug).
    static let documentedCodes: Set<Int> = [-32700, -32600, -32601, -32602, -32001, -32002, -32003]
    /// The server's defaults, as a make request.
    static let defaultMake =
        #"{"rows":4,"cols":4,"num_envs":1,"spawn_four_probability":0.1,"initial_tiles":2,"win_tile":null,"max_steps":null,"invalid_action":"noop","invalid_action_penalty":0,"observation":"exponents","onehot_channels":18,"info":["action_mask","score","max_tile","steps","afterstate","spawn","invalid","won"],"info_layout":"rows","autoreset_mode":"next_step"}"#

    var rng: Xoshiro256StarStar
    var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
    var totals = Totals()
    /// Every request line sent, and every response line received, in order.
    var transcript: [String] = []
    var responses: [String] = []
    var defaultSpecResponse = ""
    /// Whether the session may end with `close`.
    var closes = true
    var nextID = 1

    // What the fuzzer knows of the server's state, from responses.
    var config = ServerConfig()
    var isReset = false
    var closed = false
    /// Per environment: whether its last reported step or reset ended its episode; `nil` when unknown.
    var over: [Bool]? = nil
    /// Per environment: the last reported score; `nil` when unknown.
    var scores: [Int128?] = [nil]
    /// Per environment: the last reported board (exponents) when the encoding shows it exactly.
    var boards: [[UInt8]?] = [nil]

    init(seed: UInt64) {
        rng = Xoshiro256StarStar(seed: seed)
        var probe = Dispatcher(session: GameSession(config: ServerConfig()))
        defaultSpecResponse = probe.handle(DispatcherTests.request(0, "make", Self.defaultMake)) ?? ""
    }

    mutating func random(_ bound: Int) -> Int { rng.uniform(below: bound) }
    mutating func chance(_ percent: Int) -> Bool { random(100) < percent }
    mutating func pick<T>(_ options: [T]) -> T { options[random(options.count)] }

    var numEnvs: Int { config.numEnvs }
    var largest: Int { Int(config.rules.largestExponent) }

    mutating func fail(_ message: String) {
        totals.failures += 1
        Issue.record("\(message)\nlast request: \(transcript.last ?? "")\nlast response: \(responses.last?.prefix(400) ?? "")")
    }

    // MARK: the session

    mutating func runSession() {
        makeRandomConfiguration()
        let length = 4 + random(30)
        for _ in 0..<length where totals.failures == 0 {
            let roll = random(100)
            switch roll {
            case 0..<45:
                step()
                if chance(8) { stateRoundTrip() }
            case 45..<57: reset()
            case 57..<62: call("afterstates", nil)
            case 62..<66: call("render", pick([nil, #"{"ansi":true}"#, #"{"ansi":false}"#, #"{"ansi":1}"#]))
            case 66..<68: call("spec", pick([nil, "{}", #"{"x":1}"#]))
            case 68..<72: makeRandomConfiguration()
            case 72..<80: invalidRequest()
            case 80..<86: badStep()
            case 86..<91: notification()
            case 91..<95: batch()
            case 95..<97: call(pick(["fly", "Step", "", "reset "]), nil)
            default: if closes && chance(30) { call("close", nil) } else { step() }
            }
        }
    }

    // MARK: requests

    /// Sends one line; returns the parsed response, after the envelope checks.
    @discardableResult
    mutating func send(_ line: String, id: String?, expectsResponse: Bool = true) -> JSONValue? {
        // A copy (the dispatcher is a value), described only when the request fails: describing the whole session
        // before every request took most of the fuzzer's time.
        let before = dispatcher
        let answer = dispatcher.handle(line)
        transcript.append(line)
        totals.requests += 1
        guard expectsResponse else {
            if let answer {
                responses.append(answer)
                fail("a notification was answered")
            }
            return nil
        }
        guard let answer else {
            fail("no response to a request with an id")
            return nil
        }
        responses.append(answer)
        guard answer.utf8.count <= ResultEncoder.largestResultBytes(dispatcher.session.config) + 2 * line.utf8.count + 200 else {
            fail("response of \(answer.utf8.count) bytes is over the bound make checked")
            return nil
        }
        guard let response = try? JSONValue.parse(Array(answer.utf8)) else {
            fail("response is not JSON")
            return nil
        }
        if let id, !answer.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"#) {
            fail("the id \(id) is not echoed as written")
        }
        for element in response.array ?? [response] { checkEnvelope(element) }
        if let error = (response.array?.first ?? response)["error"] {
            totals.errors += 1
            if let code = error["code"]?.integer { totals.codes.insert(Int(code)) }
            if String(reflecting: dispatcher) != String(reflecting: before) { fail("a failed request changed the session") }
        }
        return response
    }

    mutating func checkEnvelope(_ response: JSONValue) {
        guard let members = response.object else { return fail("a response is not an object") }
        let names = members.map(\.0)
        guard names.count == 3, names[0] == "jsonrpc", names[1] == "id", names[2] == "result" || names[2] == "error" else {
            return fail("response members are \(names)")
        }
        guard response["jsonrpc"] == "2.0" else { return fail("jsonrpc is not \"2.0\"") }
        if let error = response["error"] {
            guard let code = error["code"]?.integer, Self.documentedCodes.contains(Int(code)), let message = error["message"]?.string,
                error.object?.count == (error["data"] == nil ? 2 : 3)
            else {
                return fail("malformed or undocumented error \(error.serialized)")
            }
            // An option error names its option in `data`, as its message does: a client needs only `data`.
            if let data = error["data"] {
                let option = data["option"]?.string ?? ""
                let named: Bool =
                    switch data["reason"] {
                    case "invalid": ServerOption.names.contains(option) && message.hasPrefix("invalid params: \(option) ")
                    case "unknown": !ServerOption.names.contains(option) && message.hasPrefix("invalid params: unknown option '\(option)'")
                    default: false
                    }
                guard code == -32602, data.object?.count == 2, named else { return fail("error data \(data.serialized) for \(message)") }
            }
        }
    }

    /// A request with a fresh id (in one of JSON's number or string spellings); returns the response.
    @discardableResult
    mutating func call(_ method: String, _ params: String?) -> JSONValue? {
        let id = nextIDText()
        let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
        let response = send(line, id: id)
        if method == "close", response?["result"] != nil { closed = true }
        if closed, method != "close" || response?["result"] == nil, let response {
            expect(code: -32600, in: response, "after close")
        }
        return response
    }

    mutating func nextIDText() -> String {
        nextID += 1
        switch random(8) {
        case 0: return #""r\#(nextID)""#
        case 1: return "\(nextID).0"
        case 2: return "\(nextID)e0"
        case 3: return "-\(nextID)"
        case 4: return String(repeating: "9", count: 40)
        case 5: return "null"
        default: return "\(nextID)"
        }
    }

    mutating func expect(code: Int, in response: JSONValue, _ context: String) {
        let got = response["error"]?["code"]?.integer
        if got != Int128(code) { fail("\(context): expected error \(code), got \(got.map(String.init) ?? "a result")") }
    }

    // MARK: make

    mutating func makeRandomConfiguration() {
        var members: [String] = []
        let rows = 2 + random(7), cols = 2 + random(7)
        if chance(80) { members.append(#""rows":\#(rows)"#) }
        if chance(80) { members.append(#""cols":\#(cols)"#) }
        if chance(70) { members.append(#""num_envs":\#(pick([1, 1, 2, 3, 5, 8]))"#) }
        if chance(40) { members.append(#""spawn_four_probability":\#(pick(["0", "0.1", "0.5", "1", "1.0", "0.9"]))"#) }
        if chance(30) { members.append(#""initial_tiles":\#(1 + random(4))"#) }
        if chance(30) { members.append(#""win_tile":\#(pick(["null", "4", "8", "16", "32", "64", "2048"]))"#) }
        if chance(40) { members.append(#""max_steps":\#(pick(["null", "1", "2", "5", "20", "100"]))"#) }
        if chance(50) { members.append(#""invalid_action":"\#(pick(["noop", "terminate", "reject"]))""#) }
        if chance(30) { members.append(#""invalid_action_penalty":\#(pick(["0", "1", "64", "9223372036854775807"]))"#) }
        if chance(70) { members.append(#""observation":"\#(pick(ServerConfig.Encoding.allCases).rawValue)""#) }
        if chance(15) { members.append(#""onehot_channels":\#(2 + random(63))"#) }
        if chance(40) {
            let fields = ReportedInfo.allCases.map(\.rawValue).filter { _ in chance(50) }
            members.append(#""info":[\#(fields.map { "\"\($0)\"" }.joined(separator: ","))]"#)
        }
        if chance(40) { members.append(#""info_layout":"\#(pick(["rows", "columns"]))""#) }
        if chance(50) { members.append(#""autoreset_mode":"\#(pick(["next_step", "same_step", "disabled"]))""#) }
        // Now and then one bad option: the whole make must fail and change nothing.
        let bad = chance(12)
        if bad {
            members.append(
                pick([
                    #""rows":9"#, #""cols":1"#, #""num_envs":0"#, #""num_envs":65537"#, #""spawn_four_probability":1.5"#,
                    #""win_tile":100"#, #""max_steps":0"#, #""invalid_action":"skip""#, #""observation":"bits""#,
                    #""onehot_channels":65"#, #""info":["colour"]"#, #""info_layout":"cols""#, #""colour":1"#,
                    #""initial_tiles":0"#, #""invalid_action_penalty":-1"#, #""rows":"4""#,
                    #""num_envs":65536,"rows":8,"cols":8,"observation":"onehot""#,
                ]))
        }
        guard let response = call("make", "{" + members.joined(separator: ",") + "}"), !closed else { return }
        if bad { return expect(code: -32602, in: response, "make with a bad option") }
        guard response["result"] != nil else {
            // Initial tiles above the cell count are the one random combination that may fail.
            if response["error"]?["code"] != -32602 { fail("make failed unexpectedly") }
            return
        }
        config = dispatcher.session.config
        checkSpec(response["result"]!)
        isReset = false
        over = nil
        scores = Array(repeating: nil, count: numEnvs)
        boards = Array(repeating: nil, count: numEnvs)
        // Mostly start playing at once; otherwise the steps that follow must fail with "not reset".
        if chance(80) { reset() }
    }

    mutating func checkSpec(_ spec: JSONValue) {
        if spec["observation"]?["high"] != expectedHigh { fail("spec high is \(spec["observation"]?["high"]?.serialized ?? "-")") }
        if spec["config"] != config.json { fail("spec config differs from the session's") }
    }

    var expectedHigh: JSONValue {
        switch config.encoding {
        case .exponents, .base64, .base64Batch: .integer(Int128(largest))
        case .values: .integer(Int128(1) << largest)
        case .onehot, .onehotFloat32, .onehotFlat: 1
        }
    }

    // MARK: reset

    /// A random board: tiles anywhere up to the largest (sometimes at it, or above it), dead, or already won.
    mutating func randomBoard() -> (text: String, exponents: [UInt8], kind: String) {
        let rows = config.rules.rows, cols = config.rules.cols, cells = rows * cols
        var exponents = [UInt8](repeating: 0, count: cells)
        let kind = pick(["random", "random", "ceiling", "above", "dead", "won", "empty", "shape"])
        switch kind {
        case "dead":
            // A checkerboard of two exponents: no move changes it.
            exponents = (0..<cells).map { UInt8(($0 / cols + $0 % cols) % 2 + 1) }
        case "won":
            let win = config.rules.winTile.map { UInt8($0.trailingZeroBitCount) } ?? UInt8(largest)
            exponents[random(cells)] = min(win, UInt8(largest))
        case "ceiling":
            exponents[0] = UInt8(largest)
            exponents[1] = UInt8(largest)
            totals.ceilingBoards += 1
        case "above":
            exponents[random(cells)] = UInt8(min(largest + 1, 51))
        default:
            break
        }
        if kind == "random" || kind == "ceiling" || kind == "won" {
            for cell in 0..<cells where exponents[cell] == 0 && chance(40) { exponents[cell] = UInt8(1 + random(largest)) }
        }
        func value(_ e: UInt8) -> String { e == 0 ? "0" : String(Int128(1) << Int(e)) }
        if kind == "shape" {
            return ("[" + (0..<(rows + 1)).map { _ in "[" + (0..<cols).map { _ in "0" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]", [], kind)
        }
        let text =
            chance(20)
            ? "[" + exponents.map(value).joined(separator: ",") + "]"
            : "[" + (0..<rows).map { r in "[" + (0..<cols).map { value(exponents[r * cols + $0]) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        return (text, exponents, kind)
    }

    mutating func reset() {
        var members: [String] = []
        var seeds: [UInt64?]? = nil
        var badSeeds = false
        if chance(25) {
            // Per-environment seeds; now and then a list of the wrong length, a bad entry, or seed beside seeds.
            var list: [UInt64?] = (0..<numEnvs).map { _ in chance(25) ? nil : pick([0, 1, 42, UInt64.max, rng.next()]) }
            var texts = list.map { $0.map(String.init) ?? "null" }
            switch random(12) {
            case 0: texts.append("1"); list.append(1); badSeeds = true
            case 1 where numEnvs > 1: texts.removeLast(); list.removeLast(); badSeeds = true
            case 2: texts[random(numEnvs)] = pick(["-1", "1.5", "\"7\"", "18446744073709551616", "[]"]); badSeeds = true
            case 3: members.append(#""seed":\#(pick(["0", "5"]))"#); badSeeds = true
            default: break
            }
            members.append(chance(5) ? #""seeds":7"# : #""seeds":[\#(texts.joined(separator: ","))]"#)
            if members.last == #""seeds":7"# { badSeeds = true }
            seeds = list
        } else if chance(70) {
            members.append(#""seed":\#(pick(["0", "1", "42", "18446744073709551615", String(rng.next() >> 1), "null"]))"#)
        }
        var board: (text: String, exponents: [UInt8], kind: String)? = nil
        var options: String? = nil
        if chance(35) {
            board = randomBoard()
            options = #""options":{"board":\#(board!.text)}"#
            members.append(options!)
        }
        guard let response = call("reset", members.isEmpty && chance(50) ? nil : "{" + members.joined(separator: ",") + "}"),
            !closed
        else { return }
        if let board, board.kind == "above" || board.kind == "shape" {
            return expect(code: -32602, in: response, "a board \(board.kind == "above" ? "above the largest tile" : "of the wrong shape")")
        }
        if badSeeds { return expect(code: -32602, in: response, "reset with bad seeds") }
        guard let result = response["result"].flatMap({ unbatched($0) }) else {
            if board?.kind != "empty" { fail("reset failed") }
            return
        }
        isReset = true
        let observations = checkObservations(result["observation"])
        let infos = checkInfos(result["info"])
        let terminated = numEnvs == 1 ? result["terminated"].map { [$0] } : result["terminated"]?.array
        guard let terminated, terminated.count == numEnvs, terminated.allSatisfy({ $0.bool != nil }) else {
            return fail("reset reports no terminated flags")
        }
        over = terminated.map { $0 == true }
        for index in 0..<numEnvs {
            let board = Self.board(observations, index)
            // A seeded environment starts as a single environment reset with its seed would.
            if let seed = seeds?[index], let board, options == nil {
                var single = Environment(rules: config.rules)
                if single.reset(seed: seed).observation.exponents != board { fail("environment \(index) does not start as reset(seed: \(seed))") }
                totals.seededEnvironments += 1
            }
            boards[index] = board
            scores[index] = infos?[index]["score"]?.integer
            if let mask = infos?[index]["action_mask"], let board {
                let legal = legalMask(board)
                if mask != legal && !(over![index] && mask == [false, false, false, false]) {
                    fail("reset mask \(mask.serialized) for a board whose legal moves are \(legal.serialized)")
                }
                let won = config.rules.winTile.map { tile in board.contains { Int128(1) << Int($0) >= Int128(tile) && $0 > 0 } } ?? false
                if over![index] != (won || legal == [false, false, false, false]) { fail("reset terminated flag disagrees with the board") }
            }
        }
        if let board, board.kind == "dead" || board.kind == "won", let terminated = over {
            if board.kind == "dead" { totals.deadResets += 1 } else { totals.wonResets += 1 }
            if board.kind == "dead" && terminated.contains(false) { fail("a dead board is not terminated at reset") }
            if board.kind == "won", let tile = config.rules.winTile, tile.trailingZeroBitCount <= largest, terminated.contains(false) {
                fail("a won board is not terminated at reset")
            }
        }
    }

    static func board(_ observations: [[UInt8]?]?, _ index: Int) -> [UInt8]? { observations?[index] ?? nil }

    // MARK: step

    mutating func actionText(_ index: Int) -> String {
        var action = random(4)
        if let board = boards[index], chance(85) {
            let legal = Direction.allCases.filter { legalMask(board).array?[$0.rawValue] == true }
            if !legal.isEmpty { action = pick(legal).rawValue }
        }
        return chance(20) ? "\"\(Direction(rawValue: action)!.name)\"" : "\(action)"
    }

    mutating func step() {
        let params: String
        var actions: [Int] = []
        if numEnvs == 1 {
            let text = actionText(0)
            actions = [Direction.allCases.firstIndex { "\"\($0.name)\"" == text } ?? Int(text)!]
            params = #"{"action":\#(text)}"#
        } else {
            let texts = (0..<numEnvs).map { actionText($0) }
            actions = texts.map { text in Direction.allCases.firstIndex { "\"\($0.name)\"" == text } ?? Int(text)! }
            params = chance(30) ? #"{"actions":"\#(actions.map(String.init).joined())"}"# : #"{"actions":[\#(texts.joined(separator: ","))]}"#
        }
        guard let response = call("step", params), !closed else { return }
        guard let result = response["result"].flatMap({ unbatched($0) }) else {
            if response["result"] != nil { return }  // a malformed batch, already failed
            let code = response["error"]?["code"]?.integer
            let endedRefused = numEnvs == 1 || config.autoresetMode == .disabled
            if !isReset {
                expect(code: -32001, in: response, "step before reset")
            } else if code == -32002, endedRefused, over?.contains(true) ?? true {
                // Refused as it must be.
            } else if let over, over.contains(true), endedRefused {
                expect(code: -32002, in: response, "step after the episode ended")
            } else if code == -32003, config.rules.invalidAction == .reject {
                // Refused: at least one action is illegal on the board the fuzzer knows.
                for (index, action) in actions.enumerated() where boards[index] != nil && !(over?[index] ?? false) {
                    if legalMask(boards[index]!).array?[action] == true, numEnvs == 1 { fail("a legal action was refused") }
                }
            } else {
                fail("step failed unexpectedly")
            }
            return
        }
        if !isReset { return fail("step before reset succeeded") }
        if numEnvs == 1, over?.first == true { return fail("a step after the episode ended succeeded") }
        if numEnvs > 1, config.autoresetMode == .disabled, over?.contains(true) == true { return fail("disabled autoreset stepped a finished environment") }
        totals.steps += 1
        let observations = checkObservations(result["observation"])
        let infos = checkInfos(result["info"])
        let rewards = numEnvs == 1 ? result["reward"].map { [$0] } : result["reward"]?.array
        let terminated = numEnvs == 1 ? result["terminated"].map { [$0] } : result["terminated"]?.array
        let truncated = numEnvs == 1 ? result["truncated"].map { [$0] } : result["truncated"]?.array
        guard let rewards, let terminated, let truncated, rewards.count == numEnvs, terminated.count == numEnvs, truncated.count == numEnvs
        else { return fail("step result lists have the wrong length") }
        let penalty: Int128 = if case .terminate(let p) = config.rules.invalidAction { Int128(p) } else { 0 }
        checkFinalObservations(result["final_observation"], terminated: terminated, truncated: truncated, infos: infos)
        var nextOver: [Bool] = []
        for index in 0..<numEnvs {
            guard let reward = rewards[index].integer, let ended = terminated[index].bool, let cut = truncated[index].bool else {
                return fail("step result has a malformed reward or flag")
            }
            let info = infos?[index]
            let wasOver = over?[index] ?? false
            let sameStepReset = numEnvs > 1 && config.autoresetMode == .sameStep && (ended || cut)
            if wasOver && numEnvs > 1 && config.autoresetMode == .nextStep {
                // The step after an ended episode resets that environment (whose new board may be over at once:
                // a win tile among the first tiles).
                totals.autoresets += 1
                if reward != 0 || cut { fail("an autoreset step reports reward \(reward), truncated \(cut)") }
                if let steps = info?["steps"], steps != 0 { fail("an autoreset step reports steps \(steps.serialized)") }
                if let score = info?["score"], score != 0 { fail("an autoreset step reports score \(score.serialized)") }
            } else if !sameStepReset {
                if reward < -penalty || (reward < 0 && reward != -penalty) { fail("reward \(reward) with penalty \(penalty)") }
                if let score = info?["score"]?.integer, let last = scores[index] {
                    if score != last + max(reward, 0) { fail("score \(score) after \(last) and reward \(reward)") }
                }
                if let board = Self.board(observations, index), let maxTile = info?["max_tile"]?.integer {
                    let top = board.max() ?? 0
                    if maxTile != (top == 0 ? 0 : Int128(1) << Int(top)) { fail("max_tile \(maxTile) for a board whose top exponent is \(top)") }
                }
            }
            if let mask = info?["action_mask"], let board = Self.board(observations, index), !(ended || cut) || sameStepReset {
                checkMask(mask, board)
            }
            if let board = Self.board(observations, index), !(ended || cut), legalMask(board) == [false, false, false, false] {
                if legalMask(board, ceilingMerges: true) != [false, false, false, false] {
                    totals.ceilingMaskMismatches += 1
                } else {
                    fail("not terminated on a board without legal moves")
                }
            }
            if let mask = info?["action_mask"], ended, !cut, !sameStepReset, mask != [false, false, false, false] {
                let mayBeInvalid: Bool = if case .terminate = config.rules.invalidAction { info?["invalid"] != false } else { false }
                if let board = Self.board(observations, index), legalMask(board) != [false, false, false, false], info?["won"] != true,
                    !mayBeInvalid, config.rules.winTile == nil
                {
                    fail("terminated with legal moves left")
                }
            }
            boards[index] = Self.board(observations, index)
            scores[index] = sameStepReset ? nil : info?["score"]?.integer
            nextOver.append((ended || cut) && !sameStepReset)
        }
        over = nextOver
    }

    /// Steps that must fail with -32602 (or -32001 before reset): wrong counts, out-of-range values, extra parameters.
    mutating func badStep() {
        let count = numEnvs
        let params = pick([
            #"{"action":7}"#, #"{"action":-1}"#, #"{"action":"north"}"#, #"{"action":1.5}"#, #"{"action":null}"#, "{}",
            #"{"actions":[\#(Array(repeating: "0", count: count + 1).joined(separator: ","))]}"#,
            #"{"actions":"\#(String(repeating: "0", count: max(0, count - 1)))"}"#,
            #"{"actions":"\#(String(repeating: "4", count: count))"}"#, #"{"actions":7}"#,
            #"{"action":0,"actions":[0]}"#, #"{"action":0,"colour":1}"#, "[0]",
        ])
        guard let response = call("step", params), !closed else { return }
        if response["result"] != nil { fail("a malformed step succeeded") }
        if response["error"]?["code"] != -32602 { expect(code: -32602, in: response, "malformed step") }
    }

    // MARK: get_state and set_state

    /// `get_state`, then `set_state` with what it gave (taken, nothing changes) or with a forged copy (refused with
    /// -32602, nothing changes); `get_state` again must give the same state.
    mutating func stateRoundTrip() {
        guard let saved = call("get_state", pick([nil, "{}"])), !closed else { return }
        guard isReset else { return expect(code: -32001, in: saved, "get_state before reset") }
        guard let state = saved["result"]?["state"] else { return fail("get_state gave no state") }
        let forged = chance(40) ? nil : forge(state)
        guard let response = call("set_state", #"{"state":\#((forged ?? state).serialized)}"#), !closed else { return }
        if forged == nil, response["result"] == nil { return fail("set_state refused the state get_state gave") }
        if forged != nil { expect(code: -32602, in: response, "a forged state") }
        if forged == nil { totals.restoredStates += 1 } else { totals.forgedStates += 1 }
        guard let after = call("get_state", nil), !closed else { return }
        if after["result"]?["state"] != state { fail("set_state left another state than get_state gave") }
    }

    /// `state` (one environment's object, or a vector's list of them) made invalid in one of many ways.
    mutating func forge(_ state: JSONValue) -> JSONValue {
        if case .array(var list) = state {
            if chance(25) { return .array(Array(list.dropLast())) }  // one state too few
            let index = random(list.count)
            list[index] = forge(list[index])
            return .array(list)
        }
        guard var members = state.object, !members.isEmpty else { return 7 }
        func replace(_ name: String, _ value: JSONValue) {
            if let index = members.firstIndex(where: { $0.0 == name }) { members[index].1 = value }
        }
        switch random(11) {
        case 0: members.remove(at: random(members.count))
        case 1: members.append(("colour", 1))
        case 2: replace("score", pick([-1, 1.5, "7", .null]))
        case 3: replace("steps", pick([-1, "7", .bool(true), .integer(Int128(Int.max) + 1)]))
        case 4: replace("phase", pick(["paused", "needs_reset", 1]))
        case 5: replace("generator", pick([[0, 0, 0, 0], [1, 2, 3], [1, 2, 3, -4], [1, 2, 3, .integer(Int128(UInt64.max) + 1)], "x"]))
        case 6: replace("board", pick(["x", [[3]], []]))
        case 7:
            // A tile that is not a power of two, in a board of the right shape.
            if case .array(var rows)? = state["board"], case .array(var first)? = rows.first {
                first[0] = 6
                rows[0] = .array(first)
                replace("board", .array(rows))
            } else {
                replace("board", "x")
            }
        case 8: replace("board", .array((state["board"]?.array ?? []) + [[0]]))
        case 9: return pick([7, "state", .null, []])
        default:
            // A running episode on a checkerboard of 2s and 4s: no legal move.
            let rows = (state["board"]?.array ?? []).enumerated().map { row, cells in
                JSONValue.array((0..<(cells.array?.count ?? 0)).map { .integer(Int128(2 << ((row + $0) % 2))) })
            }
            replace("phase", "running")
            replace("board", .array(rows))
        }
        return .object(members)
    }

    // MARK: invalid requests, notifications and batches

    mutating func invalidRequest() {
        let (line, code, answered): (String, Int, Bool) = pick([
            ("{", -32700, true), ("nonsense", -32700, true), ("[1,2", -32700, true), ("\u{FF}", -32700, true),
            ("{}", -32600, true), (#"{"foo":"bar"}"#, -32600, true), (#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, -32600, true),
            (#"{"method":"spec"}"#, -32600, true), (#"{"jsonrpc":"2.0","method":"spec","params":7}"#, -32600, true),
            (#"{"jsonrpc":"2.0","method":"spec","params":null}"#, -32600, true), (#"{"jsonrpc":"1.0","id":1,"method":"spec"}"#, -32600, true),
            (#"{"jsonrpc":"2.0","id":1,"id":2,"method":"spec"}"#, -32600, true), (#"{"jsonrpc":"2.0","id":{},"method":"spec"}"#, -32600, true),
            ("[]", -32600, true), ("[1]", -32600, true), ("7", -32600, true),
            (#"{"jsonrpc":"2.0","id":3,"method":"reset","params":{"seed":1,"seed":2}}"#, -32602, true),
            (#"{"jsonrpc":"2.0","id":3,"method":"reset","params":{"seed":-1}}"#, -32602, true),
            (#"{"jsonrpc":"2.0","id":3,"method":"reset","params":{"options":{"board":7}}}"#, -32602, true),
            (#"{"jsonrpc":"2.0","id":3,"method":"reset","params":{"options":{"colour":7}}}"#, -32602, true),
        ])
        guard let response = send(line, id: nil, expectsResponse: answered) else { return }
        let received = response.array?.first ?? response
        if closed && code == -32602 { return expect(code: -32600, in: received, "after close") }
        expect(code: code, in: received, "invalid request \(line)")
    }

    /// Valid requests without an id: never answered; those that change state leave the fuzzer unsure of it.
    mutating func notification() {
        let (method, params) = pick([
            ("spec", ""), ("render", ""), ("afterstates", ""), ("reset", #","params":{"seed":5}"#),
            ("step", #","params":{"action":0}"#), ("fly", ""), ("reset", #","params":{"seed":-1}"#),
        ])
        send(#"{"jsonrpc":"2.0","method":"\#(method)"\#(params)}"#, id: nil, expectsResponse: false)
        if (method == "reset" && !params.contains("-1")) || method == "step", !closed {
            if method == "reset" { isReset = true }
            if method == "step", numEnvs > 1 || !isReset { return }  // the fuzzer cannot tell whether it ran
            over = nil
            scores = Array(repeating: nil, count: numEnvs)
            boards = Array(repeating: nil, count: numEnvs)
        }
    }

    /// A batch of requests that change nothing, with and without ids: one response per id, in order.
    mutating func batch() {
        var elements: [String] = [], ids: [String] = []
        for _ in 0..<(1 + random(4)) {
            let method = pick(["spec", "render", "afterstates", "fly"])
            if chance(70) {
                let id = nextIDText()
                ids.append(id)
                elements.append(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#)
            } else {
                elements.append(#"{"jsonrpc":"2.0","method":"\#(method)"}"#)
            }
            if chance(15) {
                elements.append("{}")
                ids.append("null")
            }
        }
        let line = "[" + elements.joined(separator: ",") + "]"
        let before = String(reflecting: dispatcher)
        let answer = dispatcher.handle(line)
        transcript.append(line)
        totals.requests += 1
        if let answer { responses.append(answer) }
        if String(reflecting: dispatcher) != before { fail("a batch of reads changed the session") }
        guard !ids.isEmpty else {
            if answer != nil { fail("a batch of notifications was answered") }
            return
        }
        guard let answer, let list = (try? JSONValue.parse(Array(answer.utf8)))?.array else { return fail("a batch got no array") }
        guard list.count == ids.count else { return fail("a batch of \(ids.count) requests with ids got \(list.count) responses") }
        // Ids come back as written, in request order.
        var rest = Substring(answer)
        for (response, id) in zip(list, ids) {
            checkEnvelope(response)
            guard let found = rest.range(of: #"{"jsonrpc":"2.0","id":\#(id),"#) else { return fail("batch id \(id) is not echoed in order") }
            rest = rest[found.upperBound...]
            if let code = response["error"]?["code"]?.integer { totals.codes.insert(Int(code)); totals.errors += 1 }
        }
    }

    // MARK: results

    /// The legal actions on `board` under the rules, as the protocol's mask: tiles at the largest exponent don't merge
    /// (unless `ceilingMerges`).
    func legalMask(_ board: [UInt8], ceilingMerges: Bool = false) -> JSONValue {
        guard let grid = try? Board(rows: config.rules.rows, cols: config.rules.cols, exponents: board) else { return .null }
        return .array(
            Direction.allCases.map { direction in
                let outcome = grid.moved(direction)
                return .bool(outcome.changed && (ceilingMerges || Int(outcome.highestMerge) <= largest))
            })
    }

    /// A step's mask against the board; one that also offers the moves merging two tiles at the largest exponent
    /// is counted apart (`Environment.step` reports the unfiltered mask), anything else is a failure.
    mutating func checkMask(_ mask: JSONValue, _ board: [UInt8]) {
        let legal = legalMask(board)
        guard mask != legal else { return }
        if mask == legalMask(board, ceilingMerges: true) {
            totals.ceilingMaskMismatches += 1
        } else {
            fail("mask \(mask.serialized) for a board whose legal moves are \(legal.serialized)")
        }
    }

    /// Every environment's observation, checked against the spec's shape and bounds; the exponents when they are exact.
    mutating func checkObservations(_ value: JSONValue?) -> [[UInt8]?]? {
        guard let value else { fail("no observation"); return nil }
        let list = numEnvs == 1 ? [value] : (value.array ?? [])
        guard list.count == numEnvs else { fail("\(list.count) observations for \(numEnvs) environments"); return nil }
        var boards: [[UInt8]?] = []
        for observation in list {
            guard let board = decode(observation) else { return nil }
            boards.append(board)
        }
        return boards
    }

    /// One observation's exponents; `nil` (with a failure recorded) when it breaks the spec, or `.some(nil)` when the
    /// encoding cannot show every exponent (one-hot planes fewer than the largest exponent).
    mutating func decode(_ observation: JSONValue) -> [UInt8]?? {
        let rows = config.rules.rows, cols = config.rules.cols
        func grid(_ value: JSONValue) -> [JSONValue]? {
            guard let lines = value.array, lines.count == rows, lines.allSatisfy({ $0.array?.count == cols }) else { return nil }
            return lines.flatMap { $0.array! }
        }
        var exponents: [UInt8] = []
        switch config.encoding {
        case .exponents:
            guard let cells = grid(observation) else { fail("observation shape"); return nil }
            for cell in cells {
                guard let e = cell.integer, e >= 0, e <= Int128(largest) else { fail("exponent \(cell.serialized) outside 0...\(largest)"); return nil }
                exponents.append(UInt8(e))
            }
        case .values:
            guard let cells = grid(observation) else { fail("observation shape"); return nil }
            for cell in cells {
                guard let v = cell.integer, v >= 0, v <= Int128(1) << largest, v == 0 || v & (v - 1) == 0, v != 1 else {
                    fail("value \(cell.serialized) outside the spec"); return nil
                }
                exponents.append(v == 0 ? 0 : UInt8(v.trailingZeroBitCount))
            }
        case .base64, .base64Batch:
            // base64_batch results arrive here split per environment by `unbatched(_:)`.
            guard let text = observation.string, let bytes = Base64.decode(text), bytes.count == rows * cols,
                bytes.allSatisfy({ Int($0) <= largest })
            else { fail("base64 observation outside the spec"); return nil }
            exponents = bytes
        case .onehot, .onehotFloat32, .onehotFlat:
            // Every one-hot form as channels × cells: planes (uint8 or float32), or one flat list.
            let channels = config.onehotChannels, count = rows * cols
            var planes: [[JSONValue]] = []
            switch config.encoding {
            case .onehotFlat:
                guard let flat = observation.array, flat.count == channels * count else { fail("onehot_flat length"); return nil }
                planes = (0..<channels).map { Array(flat[($0 * count)..<(($0 + 1) * count)]) }
            default:
                guard let list = observation.array, list.count == channels else { fail("onehot planes"); return nil }
                for plane in list {
                    guard let flat = grid(plane) else { fail("onehot plane shape"); return nil }
                    planes.append(flat)
                }
            }
            var cells = [Int](repeating: -1, count: count)
            for (k, flat) in planes.enumerated() {
                for (cell, bit) in flat.enumerated() {
                    guard bit == 0 || bit == 1 else { fail("onehot value \(bit.serialized)"); return nil }
                    if bit == 1 {
                        guard cells[cell] == -1 else { fail("two planes mark one cell"); return nil }
                        cells[cell] = k
                    }
                }
            }
            guard !cells.contains(-1) else { fail("a cell marked on no plane"); return nil }
            if channels <= largest { return .some(nil) }
            exponents = cells.map { UInt8($0) }
        }
        return .some(exponents)
    }

    /// Under same_step, one entry per environment: the final board of each that ended, null for the others.
    mutating func checkFinalObservations(_ value: JSONValue?, terminated: [JSONValue], truncated: [JSONValue], infos: [JSONValue]?) {
        guard numEnvs > 1, config.autoresetMode == .sameStep else {
            if value != nil { fail("final_observation outside same_step vector mode") }
            return
        }
        guard let list = value?.array, list.count == numEnvs else { return fail("final_observation is not a list of \(numEnvs)") }
        for (index, entry) in list.enumerated() {
            let ended = terminated[index] == true || truncated[index] == true
            if entry == .null {
                // Only an environment that restarted in this step (it was over, perhaps unknown to the fuzzer: a new
                // episode can be over at once) ends without a final observation, and it reports a new episode.
                if ended, let steps = infos?[index]["steps"], steps != 0 {
                    fail("environment \(index) ended after \(steps.serialized) steps without a final observation")
                }
                continue
            }
            if !ended { fail("environment \(index) has a final observation but did not end") }
            guard let board = decode(entry) else { return }
            totals.finalObservations += 1
            if let board, board.allSatisfy({ $0 == 0 }) { fail("an empty final board") }
        }
    }

    /// A vector result of base64_batch split back into per-environment entries (observations as base64 strings, JSON
    /// lists of rewards, flags and info columns, the mask string kept), so the checks read every encoding alike; each
    /// batched string is checked for its exact length and values first. Other results pass unchanged; `nil` (with a
    /// failure recorded) when a batched column is malformed.
    mutating func unbatched(_ result: JSONValue) -> JSONValue? {
        guard config.encoding == .base64Batch, numEnvs > 1, let members = result.object else { return result }
        totals.batchedResults += 1
        let cells = config.rules.cellCount
        func bytes(_ value: JSONValue?, _ width: Int, _ name: String) -> [UInt8]? {
            guard let text = value?.string, let bytes = Base64.decode(text), bytes.count == numEnvs * width else {
                fail("\(name) is not one base64 string of \(numEnvs * width) bytes: \(value?.serialized.prefix(80) ?? "absent")")
                return nil
            }
            return bytes
        }
        func boards(_ value: JSONValue?, _ name: String, emptyIsNull: Bool) -> JSONValue? {
            guard let all = bytes(value, cells, name) else { return nil }
            return .array(
                (0..<numEnvs).map { index in
                    let board = Array(all[(index * cells)..<((index + 1) * cells)])
                    return emptyIsNull && board.allSatisfy { $0 == 0 } ? .null : .string(Base64.encode(board))
                })
        }
        func integers(_ value: JSONValue?, _ name: String) -> JSONValue? {
            guard let all = bytes(value, 8, name) else { return nil }
            return .array(
                (0..<numEnvs).map { index in
                    .integer(Int128(Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(all[index * 8 + $1]) << (8 * $1) })))
                })
        }
        func flags(_ value: JSONValue?, _ name: String) -> JSONValue? {
            guard let all = bytes(value, 1, name) else { return nil }
            guard all.allSatisfy({ $0 <= 1 }) else { fail("\(name) holds a byte other than 0 and 1"); return nil }
            return .array(all.map { .bool($0 == 1) })
        }
        var split: [(String, JSONValue)] = []
        for (name, value) in members {
            let column: JSONValue?
            switch name {
            case "observation": column = boards(value, name, emptyIsNull: false)
            case "reward": column = integers(value, name)
            case "terminated", "truncated": column = flags(value, name)
            case "final_observation": column = value
            case "info" where config.infoLayout == .columns:
                guard let fields = value.object else { fail("columns info is not an object"); return nil }
                var info: [(String, JSONValue)] = []
                for (field, entries) in fields {
                    let entry: JSONValue?
                    switch field {
                    case "score", "max_tile", "steps": entry = integers(entries, field)
                    case "invalid", "won": entry = flags(entries, field)
                    case "afterstate": entry = boards(entries, field, emptyIsNull: true)
                    default: entry = entries  // action_mask (a string), spawn and moves (lists)
                    }
                    guard let entry else { return nil }
                    info.append((field, entry))
                }
                column = .object(info)
            default: column = value
            }
            guard let column else { return nil }
            split.append((name, column))
        }
        return .object(split)
    }

    /// Every environment's info as an object with exactly the configured fields.
    mutating func checkInfos(_ value: JSONValue?) -> [JSONValue]? {
        guard let value else { fail("no info"); return nil }
        var infos: [JSONValue] = []
        if numEnvs == 1 || config.infoLayout == .rows {
            let list = numEnvs == 1 ? [value] : (value.array ?? [])
            guard list.count == numEnvs else { fail("\(list.count) infos for \(numEnvs) environments"); return nil }
            infos = list
        } else {
            guard let columns = value.object else { fail("columns info is not an object"); return nil }
            for index in 0..<numEnvs {
                var members: [(String, JSONValue)] = []
                for (name, column) in columns {
                    if name == "action_mask", config.encoding == .base64 || config.encoding == .base64Batch, let text = column.string {
                        guard let bytes = Base64.decode(text), bytes.count == numEnvs else { fail("packed masks"); return nil }
                        members.append((name, .array((0..<4).map { .bool(bytes[index] >> $0 & 1 == 1) })))
                        continue
                    }
                    guard let list = column.array, list.count == numEnvs else { fail("info column \(name) length"); return nil }
                    members.append((name, list[index]))
                }
                infos.append(.object(members))
            }
        }
        for info in infos {
            guard info.object?.map(\.0) == config.info.map(\.rawValue) else {
                fail("info fields \(info.object?.map(\.0) ?? []) instead of \(config.info)")
                return nil
            }
            if let mask = info["action_mask"], mask.array?.count != 4 || mask.array?.contains(where: { $0.bool == nil }) == true {
                fail("malformed mask \(mask.serialized)"); return nil
            }
        }
        return infos
    }
}
