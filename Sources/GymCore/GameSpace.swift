/// What a game's results look like under its rules: the observation, the actions, the reward and the info, as
/// every door reports them (`spec`, the C ABI's columns, Python's spaces).
///
///     let space = CardGame.space(of: rules)   // a card game's environment
///     space.observation.shape   // [4, 4]
///     space.columns(finals: false).all.map(\.name)   // observation, reward, terminated, truncated, action_mask, …
public struct GameSpace: Sendable, Hashable {
    /// An observation: its encoding's name, its shape, and the type and bounds of each value.
    public struct Observation: Sendable, Hashable {
        /// The encoding's name, as `spec` reports it (`codes`, `exponents`).
        public let encoding: String
        /// The shape, outermost first; the values are stored row-major.
        public let shape: [Int]
        /// The type of each value.
        public let type: ElementType
        /// The smallest and largest value.
        public let low: Int, high: Int

        /// An observation of `shape` with values of `type` in `low...high`.
        public init(encoding: String, shape: [Int], type: ElementType, low: Int, high: Int) {
            (self.encoding, self.shape, self.type, self.low, self.high) = (encoding, shape, type, low, high)
        }

        /// Values per observation: the product of the shape.
        public var count: Int { shape.reduce(1, *) }
    }

    /// The observation.
    public let observation: Observation
    /// The number of actions: an action is an integer from 0 to `actionCount - 1`.
    public let actionCount: Int
    /// The actions' names when they have names (2048's directions), else empty.
    public let actionNames: [String]
    /// The smallest and largest reward of one step.
    public var rewardRange: ClosedRange<Double>
    /// The type of a reward: `int64` when every reward is whole, else `float64`.
    public let rewardType: ElementType
    /// The info columns, in the order an info object lists them.
    public let info: [ResultColumn]

    /// A space.
    public init(
        observation: Observation, actionCount: Int, actionNames: [String] = [], rewardRange: ClosedRange<Double>,
        rewardType: ElementType, info: [ResultColumn]
    ) {
        (self.observation, self.actionCount, self.actionNames) = (observation, actionCount, actionNames)
        (self.rewardRange, self.rewardType, self.info) = (rewardRange, rewardType, info)
    }

    /// The result columns of this space; `finals` adds the same-step autoreset columns.
    public func columns(finals: Bool) -> GameColumns {
        GameColumns(
            observation: ResultColumn(name: GameColumns.observation, type: observation.type, width: observation.count),
            reward: rewardType, info: info, finals: finals)
    }
}
