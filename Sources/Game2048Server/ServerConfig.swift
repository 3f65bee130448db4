import Game2048
import Game2048JSON

/// Every option of the server: the game's rules plus how results are encoded.
///
/// Set from the command line (`g2048 serve --rows 5 …`) and changed by the `make`
/// method; field names are the protocol's snake_case ones.
public struct ServerConfig: Hashable, Sendable {
    /// How observations (and afterstates) travel.
    public enum Encoding: String, Hashable, Sendable, CaseIterable {
        /// rows×cols nested lists of exponents (0 = empty).
        case exponents
        /// rows×cols nested lists of tile values.
        case values
        /// channels×rows×cols nested lists of 0/1.
        case onehot
        /// The base64 text of the rows×cols exponent bytes, row-major.
        case base64
        /// In vector mode every per-environment column (observations, rewards, flags, numeric
        /// info columns) is one base64 string of the whole batch, so a client decodes a step
        /// with a handful of calls; a single environment gets exactly ``base64``.
        case base64Batch = "base64_batch"
    }

    /// How a vector environment's info travels.
    public enum InfoLayout: String, Hashable, Sendable, CaseIterable {
        /// A list with one info object per environment.
        case rows
        /// One object whose members are lists (Gymnasium's vector info layout); with
        /// base64 encoding the action masks are one base64 string of N mask bytes, and with
        /// base64_batch every numeric column is one base64 string.
        case columns
    }

    /// The optional info fields a step or reset reports.
    public static let infoFields = ["action_mask", "score", "max_tile", "steps", "afterstate", "spawn", "invalid", "won", "moves"]
    /// Reported unless `info` says otherwise: everything but the per-move tile movements.
    public static let defaultInfoFields = Array(infoFields.dropLast())

    /// The game's rules.
    public var rules: Rules = Rules()
    /// Number of environments; more than 1 is vector mode.
    public var numEnvs: Int = 1
    /// Observation encoding.
    public var encoding: Encoding = .exponents
    /// Planes of the one-hot encoding.
    public var onehotChannels: Int = 18
    /// Info fields to report, in ``infoFields`` order.
    public var info: [String] = ServerConfig.defaultInfoFields
    /// Vector info layout.
    public var infoLayout: InfoLayout = .rows
    /// Vector autoreset mode.
    public var autoresetMode: AutoresetMode = .nextStep

    /// The default configuration: one classic 4×4 environment.
    public init() {}

    /// The names `make` accepts.
    public static let optionNames = [
        "rows", "cols", "num_envs", "spawn_four_probability", "initial_tiles", "win_tile", "max_steps",
        "invalid_action", "invalid_action_penalty", "observation", "onehot_channels", "info", "info_layout",
        "autoreset_mode",
    ]

    /// This configuration with `changes` applied, validated as a whole.
    ///
    /// - Throws: ``RPCError/invalidParams(_:)`` naming the first bad field and what is allowed.
    public func applying(_ changes: [(String, JSONValue)]) throws(RPCError) -> ServerConfig {
        var rows = rules.rows, cols = rules.cols
        var spawnFour = rules.spawnFourProbability, initialTiles = rules.initialTiles
        var winTile = rules.winTile, maxSteps = rules.maxSteps
        var invalidName = rules.invalidAction.name
        var penalty: Int64 = if case .terminate(let p) = rules.invalidAction { p } else { 0 }
        var next = self
        var channelsGiven = false
        for (name, value) in changes {
            switch name {
            case "rows": rows = try Params.int(value, name, in: 2...8)
            case "cols": cols = try Params.int(value, name, in: 2...8)
            case "num_envs": next.numEnvs = try Params.int(value, name, in: 1...65_536)
            case "spawn_four_probability": spawnFour = try Params.double(value, name, in: 0...1)
            case "initial_tiles": initialTiles = try Params.int(value, name, in: 1...64)
            case "win_tile": winTile = value == .null ? nil : try Params.int(value, name, in: 4...(1 << Int(Rules.maxExponent)))
            case "max_steps": maxSteps = value == .null ? nil : try Params.int(value, name, in: 1...Int.max)
            case "invalid_action": invalidName = try Params.choice(value, name, ["noop", "terminate", "reject"])
            case "invalid_action_penalty": penalty = Int64(try Params.int(value, name, in: 0...Int(Int64.max)))
            case "observation":
                next.encoding = Encoding(rawValue: try Params.choice(value, name, Encoding.allCases.map(\.rawValue)))!
            case "onehot_channels":
                next.onehotChannels = try Params.int(value, name, in: 2...64)
                channelsGiven = true
            case "info":
                guard let list = value.array else { throw .invalidParams("info must be a list of field names, got \(value.typeName)") }
                var fields: Set<String> = []
                for item in list {
                    fields.insert(try Params.choice(item, "info", ServerConfig.infoFields))
                }
                next.info = ServerConfig.infoFields.filter(fields.contains)
            case "info_layout":
                next.infoLayout = InfoLayout(rawValue: try Params.choice(value, name, InfoLayout.allCases.map(\.rawValue)))!
            case "autoreset_mode":
                next.autoresetMode = AutoresetMode(rawValue: try Params.choice(value, name, AutoresetMode.allCases.map(\.rawValue)))!
            default:
                throw .invalidParams("unknown option '\(name)'; options are \(ServerConfig.optionNames.joined(separator: ", "))")
            }
        }
        let policy: InvalidActionPolicy = switch invalidName {
        case "terminate": .terminate(penalty: penalty)
        case "reject": .reject
        default: .noop
        }
        do {
            next.rules = try Rules(rows: rows, cols: cols, spawnFourProbability: spawnFour, initialTiles: initialTiles,
                                   winTile: winTile, maxSteps: maxSteps, invalidAction: policy)
        } catch {
            throw .invalidParams("\(ServerConfig.protocolName(of: error.field)) \(error.rule)")
        }
        if !channelsGiven && (rows != rules.rows || cols != rules.cols) {
            next.onehotChannels = Int(next.rules.largestExponent) + 1
        }
        try next.checkResultSize()
        return next
    }

    /// Refuses a configuration whose largest result could exceed ``ResultEncoder/resultByteLimit``,
    /// naming what makes it large and the most environments that fit.
    func checkResultSize() throws(RPCError) {
        let limit = ResultEncoder.resultByteLimit
        let largest = ResultEncoder.largestResultBytes(self)
        guard largest > limit else { return }
        let (perEnvironment, method) = ResultEncoder.largestResultBytesPerEnvironment(self)
        let fitting = max(1, (limit - 1_024) / perEnvironment)
        let encoding = encoding == .onehot ? "\"onehot\" (\(onehotChannels) channels)" : "\"\(encoding.rawValue)\""
        throw .invalidParams("num_envs \(numEnvs) with observation \(encoding) on \(rules.rows)x\(rules.cols) can make "
            + "\(method) results of up to \(largest >> 20) MiB, over the \(limit >> 20) MiB limit of one response; "
            + "use at most \(fitting) environments, a more compact observation or fewer info fields")
    }

    /// The protocol's snake_case name of a `Rules` field.
    static func protocolName(of field: String) -> String {
        switch field {
        case "spawnFourProbability": "spawn_four_probability"
        case "initialTiles": "initial_tiles"
        case "winTile": "win_tile"
        case "maxSteps": "max_steps"
        case "penalty": "invalid_action_penalty"
        default: field
        }
    }

    /// Every option and its value, in ``optionNames`` order.
    public var json: JSONValue {
        let penalty: JSONValue = if case .terminate(let p) = rules.invalidAction { .integer(Int128(p)) } else { 0 }
        return .object([
            ("rows", .integer(Int128(rules.rows))), ("cols", .integer(Int128(rules.cols))),
            ("num_envs", .integer(Int128(numEnvs))),
            ("spawn_four_probability", .double(rules.spawnFourProbability)),
            ("initial_tiles", .integer(Int128(rules.initialTiles))),
            ("win_tile", rules.winTile.map { .integer(Int128($0)) } ?? .null),
            ("max_steps", rules.maxSteps.map { .integer(Int128($0)) } ?? .null),
            ("invalid_action", .string(rules.invalidAction.name)), ("invalid_action_penalty", penalty),
            ("observation", .string(encoding.rawValue)), ("onehot_channels", .integer(Int128(onehotChannels))),
            ("info", .array(info.map { .string($0) })), ("info_layout", .string(infoLayout.rawValue)),
            ("autoreset_mode", .string(autoresetMode.rawValue)),
        ])
    }
}

/// Typed access to request parameters, with messages that name the field and what is allowed.
enum Params {
    static func int(_ value: JSONValue, _ name: String, in range: ClosedRange<Int>) throws(RPCError) -> Int {
        guard case .integer(let i) = value else {
            if case .double(let d) = value, d.rounded() == d, abs(d) < 1e18 {
                return try int(.integer(Int128(d)), name, in: range)
            }
            throw .invalidParams("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
        }
        guard i >= Int128(range.lowerBound), i <= Int128(range.upperBound) else {
            throw .invalidParams("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(i)")
        }
        return Int(i)
    }

    static func double(_ value: JSONValue, _ name: String, in range: ClosedRange<Double>) throws(RPCError) -> Double {
        guard let d = value.number else {
            throw .invalidParams("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
        }
        guard range.contains(d) else {
            throw .invalidParams("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(describe(value))")
        }
        return d
    }

    static func choice(_ value: JSONValue, _ name: String, _ allowed: [String]) throws(RPCError) -> String {
        guard let s = value.string, allowed.contains(s) else {
            throw .invalidParams("\(name) must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), got \(describe(value))")
        }
        return s
    }

    /// A seed; `orNull` only adds "or null" to the message, for callers that accept null themselves.
    static func seed(_ value: JSONValue, name: String = "seed", orNull: Bool = false) throws(RPCError) -> UInt64 {
        guard case .integer(let i) = value, i >= 0, i <= Int128(UInt64.max) else {
            throw .invalidParams("\(name) must be an unsigned 64-bit integer (0 to \(UInt64.max))\(orNull ? " or null" : ""), got \(describe(value))")
        }
        return UInt64(i)
    }

    /// A short rendering of a received value for error messages, truncated to stay one line.
    static func describe(_ value: JSONValue) -> String {
        // JSON has no spelling for NaN or infinity (a number like 1e999 parses to infinity): name them, not `null`.
        if case .double(let number) = value, !number.isFinite { return "\(number)" }
        let text = value.serialized
        return text.count <= 40 ? text : String(text.prefix(37)) + "..."
    }
}
