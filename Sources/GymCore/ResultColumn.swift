/// One column of a game's results: `width` values of `type` per environment, written by `reset` and `step`.
///
///     ResultColumn(name: "pairs_matched", type: .int64)            // one integer per environment
///     ResultColumn(name: "action_mask", type: .bool, width: 16)    // one flag per action
///
/// A game declares its info columns; the doors add the columns every game has (``GameColumns``). JSON, the C
/// ABI and Python read the same list, so a new game's info reaches every door without a line of door code.
public struct ResultColumn: Sendable, Hashable {
    /// The name (snake_case): the info key, the C column's and the Python array's name.
    public let name: String
    /// The type of each value.
    public let type: ElementType
    /// Values per environment.
    public let width: Int

    /// A column of `width` values of `type` per environment.
    public init(name: String, type: ElementType, width: Int = 1) {
        precondition(width >= 1, "a column holds at least one value per environment")
        self.name = name
        self.type = type
        self.width = width
    }

    /// The bytes the column takes for `count` environments.
    public func byteCount(environments count: Int) -> Int { count * width * type.byteCount }
}

/// The columns of a game's results, in the order every door lists them: the observation, the reward, the two
/// flags, the game's info columns; then, for a vector whose autoreset mode is `same_step`, which environments
/// ended during the step with their final observations and infos.
public struct GameColumns: Sendable, Hashable {
    /// Every column, in order.
    public let all: [ResultColumn]
    /// How many info columns the game has (they follow the four fixed ones).
    public let infoCount: Int

    /// The name of the column that holds observations, and of the fixed ones after it.
    public static let observation = "observation", reward = "reward", terminated = "terminated", truncated = "truncated"
    /// The same-step columns: the flag of an environment that ended, and the prefix of its final observation and infos.
    public static let final = "final", finalPrefix = "final_"

    /// The columns of a game with this observation, reward type and info; `finals` adds the same-step columns.
    public init(observation: ResultColumn, reward: ElementType, info: [ResultColumn], finals: Bool) {
        var all = [
            observation, ResultColumn(name: Self.reward, type: reward), ResultColumn(name: Self.terminated, type: .bool),
            ResultColumn(name: Self.truncated, type: .bool),
        ]
        all += info
        if finals {
            all.append(ResultColumn(name: Self.final, type: .bool))
            all += ([observation] + info).map { ResultColumn(name: Self.finalPrefix + $0.name, type: $0.type, width: $0.width) }
        }
        self.all = all
        infoCount = info.count
    }

    /// The index of the column named `name`.
    public func index(of name: String) -> Int? { all.firstIndex { $0.name == name } }
    /// The info columns.
    public var info: ArraySlice<ResultColumn> { all[4..<(4 + infoCount)] }
    /// Whether the same-step columns are present.
    public var hasFinals: Bool { all.count > 4 + infoCount }
}
