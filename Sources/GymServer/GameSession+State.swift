import Game2048
import GymJSON

// `get_state` and `set_state`: an environment's whole state (see `EnvironmentState`) as JSON, for search
// agents that clone, explore and restore, and for pickling a client's environment.
//
//     {"board": [[2, 0, …], …], "score": 0, "steps": 0, "phase": "running", "generator": [w0, w1, w2, w3]}
//
// The board is tile values, as `reset`'s `options.board` takes them; the generator is its four state words.

extension GameSession {
    /// The names of a state's members, in the order they are written.
    static let stateMembers = ["board", "score", "steps", "phase", "generator"]

    func getState() throws(RPCError) -> JSONValue {
        guard isReset else { throw .notReset() }
        return .object([("state", environments.states(encode: Self.json(of:)))])
    }

    mutating func setState(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        guard let value = members.first?.1 else {
            throw .invalidParams("state is required: what get_state returned (\(environments.stateShape))")
        }
        let reader = self  // parses with the configuration, while the environments change
        let result = try environments.restore(
            value, parse: { value, path throws(RPCError) in try reader.parseState(value, path: path) },
            encoder: ResultEncoder(config: config))
        // A restored state is an episode under way, as after a reset: a fresh session can continue a saved one.
        isReset = true
        return result
    }

    /// One environment's state as JSON.
    static func json(of state: EnvironmentState) -> JSONValue {
        .object([
            ("board", JSONValue(board: state.board)), ("score", .integer(Int128(state.score))), ("steps", .integer(Int128(state.steps))),
            ("phase", .string(state.phase.rawValue)), ("generator", .array(state.generator.words.map { .integer(Int128($0)) })),
        ])
    }

    /// One environment's state from JSON, every member checked (the rules' checks come with the restore).
    func parseState(_ value: JSONValue, path: String) throws(RPCError) -> EnvironmentState {
        let reader = JSONReader(value, path: path)
        let (score, steps, phase, words) = try Params.reading { () throws(JSONReadError) in
            try reader.allowOnly(Set(Self.stateMembers))
            let score = try reader.member("score").integer(in: 0...Int128(Int64.max))
            let steps = try reader.member("steps").integer(in: 0...Int128(Int.max))
            let phase = try reader.member("phase").choice(of: Environment.Phase.self)
            let words = try reader.member("generator").array().map { word throws(JSONReadError) in
                UInt64(try word.integer(in: 0...Int128(UInt64.max)))
            }
            return (Int64(score), Int(steps), phase, words)
        }
        guard let generator = Xoshiro256StarStar(words: words) else {
            throw .invalidParams("\(reader.path(of: "generator")) must be 4 state words, not all 0, as get_state gives them")
        }
        guard let board = value["board"] else { throw .invalidParams("missing \(reader.path(of: "board"))") }
        do {
            return EnvironmentState(board: try parseBoard(board), score: score, steps: steps, phase: phase, generator: generator)
        } catch {
            // parseBoard's messages start with "board": this names the state it belongs to.
            guard case .invalidParams(let message) = error else { throw error }
            throw .invalidParams("\(path).\(message)")
        }
    }
}

extension SingleSession {
    var stateShape: String { "one state object" }

    func states(encode: (EnvironmentState) -> JSONValue) -> JSONValue { encode(environment.state) }

    mutating func restore(
        _ value: JSONValue, parse: (JSONValue, String) throws(RPCError) -> EnvironmentState, encoder: ResultEncoder
    ) throws(RPCError) -> JSONValue {
        let state = try parse(value, "state")
        do { try environment.restore(state) } catch { throw .invalidParams("state: \(error)") }
        return .object([
            ("observation", encoder.observation(state.board)),
            ("terminated", .bool(environment.isOver)),
            ("info", encoder.info(environment.info, moves: [])),
        ])
    }
}

extension VectorSession {
    var stateShape: String { "a list of \(vector.count) state objects, one per environment" }

    func states(encode: (EnvironmentState) -> JSONValue) -> JSONValue { .array(vector.states.map(encode)) }

    mutating func restore(
        _ value: JSONValue, parse: (JSONValue, String) throws(RPCError) -> EnvironmentState, encoder: ResultEncoder
    ) throws(RPCError) -> JSONValue {
        guard let list = value.array, list.count == vector.count else {
            let got = value.array.map { "a list of \($0.count)" } ?? value.typeName
            throw .invalidParams("state must be \(stateShape), got \(got)")
        }
        var states: [EnvironmentState] = []
        states.reserveCapacity(list.count)
        for (index, item) in list.enumerated() { states.append(try parse(item, "state[\(index)]")) }
        do { try vector.restore(states) } catch { throw .invalidParams("state[\(error.index)]: \(error.error)") }
        return encoder.vectorResult(vector, stepped: false, moves: nil)
    }
}
