import Game2048
import GymCore
import GymGames
import GymJSON

/// A session of any registered game, served from its declaration alone: `make` reads the game's options,
/// `spec` its space, `reset` and `step` write its result columns, and the JSON results are read from those
/// columns, so that the protocol and the C ABI give the same results for every game and a new game needs no
/// door code.
///
/// Besides the game's options it takes the door's `num_envs` and `autoreset_mode`, by their declarations
/// (`EnvironmentOption.numEnvs`, `EnvironmentOption.autoresetMode`): the same names, ranges and cases as 2048's.
struct DeclaredSession: Sendable {
    /// The game served.
    let game: GameDeclaration
    /// Every option's value.
    let values: [String: OptionValue]
    /// `num_envs`: 1 serves one environment, more a vector.
    let numEnvs: Int
    /// `autoreset_mode`, in vector mode.
    let autoresetMode: AutoresetMode
    /// The environments.
    var instance: any GameInstance
    /// Whether `reset` has been called since `make`.
    var isReset = false

    /// The door's options beside the game's.
    static let doorOptions = [EnvironmentOption.numEnvs, EnvironmentOption.autoresetMode]

    /// A session of `game` with these options (JSON by name) as changes to `base` (`nil`: the game's defaults);
    /// `game` is not among them.
    ///
    /// - Throws: ``RPCError`` naming the first unknown or invalid option, or the options that make no game.
    init(game: GameDeclaration, options: [(String, JSONValue)], base: DeclaredSession?) throws(RPCError) {
        var values = base?.values ?? game.defaults
        var numEnvs = base?.numEnvs ?? 1, autoresetMode = base?.autoresetMode ?? .nextStep
        for (name, json) in options {
            if let option = game.option(named: name) {
                values[name] = try option.constraint.read(json, name: name)
            } else if name == EnvironmentOption.numEnvs.name, case .integer(let count) = try EnvironmentOption.numEnvs.read(json) {
                numEnvs = count
            } else if name == EnvironmentOption.autoresetMode.name,
                case .string(let text) = try EnvironmentOption.autoresetMode.read(json), let mode = AutoresetMode(rawValue: text)
            {
                autoresetMode = mode
            } else {
                throw .invalidParams(
                    "unknown option '\(name)' for \(game.name); options are "
                        + (game.options.map(\.name) + Self.doorOptions.map(\.name)).joined(separator: ", "))
            }
        }
        do {
            // One environment has no autoreset: a step after its end is refused, as Gymnasium's single env.
            instance = try game.make(values, count: numEnvs, autoresetMode: numEnvs == 1 ? .disabled : autoresetMode)
        } catch {
            throw .invalidOption(error.option, reason: error.reason)
        }
        let bytes = Self.largestResultBytes(instance.space, count: numEnvs, finals: autoresetMode == .sameStep)
        guard bytes <= ResultEncoder.resultByteLimit else {
            throw .invalidOption(
                EnvironmentOption.numEnvs.name,
                reason: "must be at most \(numEnvs * ResultEncoder.resultByteLimit / bytes) for \(game.name) with these options: "
                    + "a result must stay within \(ResultEncoder.resultByteLimit >> 20) MiB, got \(numEnvs)")
        }
        self.game = game
        self.values = values
        self.numEnvs = numEnvs
        self.autoresetMode = autoresetMode
    }

    /// An upper bound on the bytes of one JSON result: every value at its longest (21 bytes and a comma), twice
    /// with the final observations and infos, and the keys.
    static func largestResultBytes(_ space: GameSpace, count: Int, finals: Bool) -> Int {
        let values = space.observation.count + 3 + space.info.reduce(0) { $0 + $1.width }
        let keys = 64 + space.info.reduce(0) { $0 + $1.name.utf8.count + 4 }
        return count * (values * 24 + keys) * (finals ? 2 : 1) + 1_024
    }

    /// The result columns, with the same-step ones in vector mode under `same_step`.
    var columns: GameColumns { instance.space.columns(finals: numEnvs > 1 && autoresetMode == .sameStep) }

    /// The options and their values, the game's first, in declaration order.
    var config: JSONValue {
        .object(
            [("game", .string(game.name))] + game.options.map { ($0.name, JSONValue(values[$0.name] ?? $0.defaultValue)) }
                + [
                    (EnvironmentOption.numEnvs.name, .integer(Int128(numEnvs))),
                    (EnvironmentOption.autoresetMode.name, .string(autoresetMode.rawValue)),
                ])
    }

    /// The `spec` result: the game, the number of environments, the actions, the observation, the reward's
    /// range, the info columns, the configuration and the record's layout.
    var spec: JSONValue {
        let space = instance.space
        let observation = space.observation
        return .object([
            ("protocol", .string(Methods.protocolVersion)),
            ("game", .string(game.name)),
            ("num_envs", .integer(Int128(numEnvs))),
            ("actions", space.actionNames.isEmpty ? .integer(Int128(space.actionCount)) : .array(space.actionNames.map { .string($0) })),
            (
                "observation",
                .object([
                    ("encoding", .string(observation.encoding)), ("shape", .array(observation.shape.map { .integer(Int128($0)) })),
                    ("dtype", .string(observation.type.rawValue)), ("low", .integer(Int128(observation.low))),
                    ("high", .integer(Int128(observation.high))),
                ])
            ),
            ("reward_range", .array([space.rewardRange.lowerBound, space.rewardRange.upperBound].map { Self.reward($0, space.rewardType) })),
            (
                "info",
                .array(
                    space.info.map {
                        .object([("name", .string($0.name)), ("dtype", .string($0.type.rawValue)), ("width", .integer(Int128($0.width)))])
                    })
            ),
            ("config", config),
            ("record", recordLayout),
        ])
    }

    /// A reward as JSON: an integer for a game whose rewards are integers.
    static func reward(_ value: Double, _ type: ElementType) -> JSONValue {
        type == .int64 ? .integer(Int128(value)) : .double(value)
    }

    /// Before the first reset: what to call.
    static let notReset = RPCError.notReset("call reset before step or render")
}
