import Game2048
import GymJSON

/// Every option of the server: `Game2048.Configuration`, the environment's configuration, declared in the core.
///
/// Set from the command line (`g2048 serve --rows 5 …`) and changed by the `make` method; field names are the
/// protocol's snake_case ones.
public typealias ServerConfig = Configuration

extension Configuration.Encoding {
    /// How the values travel through the protocol.
    public var wire: Configuration.Wire {
        switch self {
        case .exponents, .values, .onehot, .onehotFloat32, .onehotFlat: .json
        case .base64: .base64
        case .base64Batch: .base64Batch
        }
    }
}

extension Configuration {
    /// How an observation's values travel through the protocol: a wire form applies to any board encoding.
    public enum Wire: Hashable, Sendable {
        /// Nested JSON lists in the encoding's shape.
        case json
        /// One base64 string of the encoding's little-endian bytes per observation. With `info_layout`
        /// `columns` a vector's action masks are one base64 string of one byte per environment.
        case base64
        /// As ``base64``; in vector mode every per-environment column (observations, rewards, flags,
        /// numeric info columns) is one base64 string of the whole batch, so a client decodes a step
        /// with a handful of calls.
        case base64Batch
    }

    /// This configuration with `changes` (JSON values by option name) applied, validated as a whole.
    ///
    /// - Throws: ``RPCError/unknownOption(_:)`` or ``RPCError/invalidOption(_:reason:)`` for the
    ///   first bad option, naming what is allowed.
    public func applying(_ changes: [(String, JSONValue)]) throws(RPCError) -> Configuration {
        var settings = Settings(self)
        for (name, json) in changes {
            guard let option = EnvironmentOption.named(name) else { throw .unknownOption(name) }
            // Read by the option's constraint, so the value is one the option allows.
            option.assign(try option.read(json), to: &settings)
        }
        let next: Configuration
        do {
            next = try Configuration(settings, changing: self)
        } catch {
            throw .invalidOption(RulesOption.name(of: error.field), reason: error.rule)
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
        let planes = [.onehot, .onehotFloat32, .onehotFlat].contains(encoding) ? " (\(onehotChannels) channels)" : ""
        let encoding = "\"\(encoding.rawValue)\"" + planes
        throw .invalidOption(
            EnvironmentOption.numEnvs.name,
            reason: "\(numEnvs) with observation \(encoding) on \(rules.rows)x\(rules.cols) can make "
                + "\(method) results of up to \(largest >> 20) MiB, over the \(limit >> 20) MiB limit of one response; "
                + "use at most \(fitting) environments, a more compact observation or fewer info fields")
    }

    /// Every option and its value, in `EnvironmentOption.all` order.
    public var json: JSONValue {
        let settings = Settings(self)
        return .object(EnvironmentOption.all.map { ($0.name, JSONValue($0.value(in: settings))) })
    }
}

/// Typed access to request parameters through `GymJSON.JSONReader`, with messages that name
/// the field and what is allowed.
enum Params {
    /// A seed; `orNull` only adds "or null" to the message, for callers that accept null themselves.
    static func seed(_ value: JSONValue, name: String = "seed", orNull: Bool = false) throws(RPCError) -> UInt64 {
        do {
            return UInt64(try JSONReader(value, path: name).integer(in: 0...Int128(UInt64.max)))
        } catch {
            throw .invalidParams("\(name) must be an unsigned 64-bit integer (0 to \(UInt64.max))\(orNull ? " or null" : ""), got \(value.brief)")
        }
    }

    /// `read`, of the value of option `name`, with its read error as an option error.
    static func option<Value>(_ name: String, _ read: (JSONReader) throws(JSONReadError) -> Value, _ value: JSONValue) throws(RPCError) -> Value {
        do { return try read(JSONReader(value, path: name)) } catch {
            guard let rule = rule(error) else { throw .invalidParams(message(error)) }
            throw .invalidOption(name, reason: rule)
        }
    }

    /// `read` with its read error worded as the protocol words it.
    static func reading<Value>(_ read: () throws(JSONReadError) -> Value) throws(RPCError) -> Value {
        do { return try read() } catch { throw .invalidParams(message(error)) }
    }

    /// The protocol's wording of a read error: the parameter, what is allowed and what was received.
    static func message(_ error: JSONReadError) -> String {
        if let rule = rule(error) { return "\(error.path) \(rule)" }
        switch error.failure {
        case .unknownMember: return "unknown parameter '\(error.path)'"
        case .duplicateMember: return "duplicate parameter '\(error.path)'"
        default: return "missing \(error.path)"
        }
    }

    /// What is wrong with the value at the error's path ("must be an integer from 2 to 8, got 9"), or `nil`
    /// when the path itself is the fault (missing, unknown or duplicate).
    static func rule(_ error: JSONReadError) -> String? {
        let got = error.value.map(\.brief) ?? "nothing"
        switch (error.failure, error.expected) {
        case (.missing, _): return nil
        case (_, .integer(let range)): return "must be \(OptionConstraint.expectation(integersIn: range)), got \(got)"
        case (_, .number(let range)): return "must be \(OptionConstraint.expectation(numbersIn: range)), got \(got)"
        case (_, .oneOf(let names)): return "must be one of \(names.map { "\"\($0)\"" }.joined(separator: ", ")), got \(got)"
        case (.unknownMember, _), (.duplicateMember, _): return nil
        case (_, .object): return "must be an object, got \(error.value?.typeName ?? "nothing")"
        case (_, .array): return "must be a list, got \(error.value?.typeName ?? "nothing")"
        case (_, .string): return "must be a string, got \(got)"
        case (_, .bool): return "must be true or false, got \(got)"
        case (_, .members(let names)): return "must have only \(names.joined(separator: ", ")), got \(got)"
        }
    }
}
