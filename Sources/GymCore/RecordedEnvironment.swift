/// A value of a record line that a game adds to the ones every record holds: JSON's shapes, without JSON.
public indirect enum RecordValue: Hashable, Sendable {
    /// `null`.
    case null
    /// An integer.
    case integer(Int)
    /// A number that need not be whole.
    case number(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// A string.
    case string(String)
    /// A list of values.
    case array([RecordValue])
}

/// The members a game adds to its record lines, by name, in the order they are written. Every record holds the
/// rest (the options, the seed, the player, each step's action and reward, the end's outcome): a game without
/// members of its own is recorded and replayed from those alone.
///
///     RecordLayout(action: "card", header: ["deck"], step: ["content", "reward", "pairs"], end: ["moves", "pairs"])
public struct RecordLayout: Sendable, Hashable {
    /// The member that holds a step's action (`card`).
    public var action: String
    /// The header's own members, after `player`: what the seed dealt.
    public var header: [String]
    /// A step's own members, after the action; `reward` among them places the reward (else it comes first).
    public var step: [String]
    /// The end line's own members, after `steps`.
    public var end: [String]

    /// A layout; the defaults are a game's without members of its own.
    public init(action: String = "action", header: [String] = [], step: [String] = [], end: [String] = []) {
        self.action = action
        self.header = header
        self.step = step
        self.end = end
    }

    /// The step members the game writes itself (``step`` without `reward`).
    public var ownStep: [String] { step.filter { $0 != Self.reward } }

    /// The reward's member.
    public static let reward = "reward"
}

/// A game whose records hold more than its actions, rewards and flags: what a reset dealt (a card game's deck), what
/// a step showed, how an episode stands at its end. A replay checks each against the game's own.
public protocol RecordedEnvironment: GameEnvironment {
    /// The members' names.
    static var recordLayout: RecordLayout { get }
    /// The rules in a few words, for a replay's title and summary (`memorize 2x2`).
    static func recordTitle(of rules: Rules) -> String
    /// The header's own members after a reset, in ``RecordLayout/header`` order.
    var startMembers: [RecordValue] { get }
    /// A step's own members after `action` was taken, in ``RecordLayout/ownStep`` order.
    func stepMembers(after action: Int) -> [RecordValue]
    /// The end line's own members, in ``RecordLayout/end`` order.
    var endMembers: [RecordValue] { get }
    /// How the episode stands, for a replay's summary (`1 move, 2 of 2 pairs`).
    var recordSummary: String { get }
}

/// A made game whose environments are recorded with members of their own; ``VectorGame`` of a
/// ``RecordedEnvironment`` is one, and a made game gives it as ``GameInstance/recorded``.
public protocol RecordedGame {
    /// The members' names.
    var layout: RecordLayout { get }
    /// The rules in a few words.
    var recordTitle: String { get }
    /// Environment `index`'s header members.
    func startMembers(at index: Int) -> [RecordValue]
    /// Environment `index`'s step members after `action`.
    func stepMembers(at index: Int, after action: Int) -> [RecordValue]
    /// Environment `index`'s end members.
    func endMembers(at index: Int) -> [RecordValue]
    /// Environment `index`'s summary.
    func recordSummary(at index: Int) -> String
}

extension VectorGame: RecordedGame where Environment: RecordedEnvironment {
    public var layout: RecordLayout { Environment.recordLayout }
    public var recordTitle: String { Environment.recordTitle(of: rules) }
    public func startMembers(at index: Int) -> [RecordValue] { environments[index].startMembers }
    public func stepMembers(at index: Int, after action: Int) -> [RecordValue] { environments[index].stepMembers(after: action) }
    public func endMembers(at index: Int) -> [RecordValue] { environments[index].endMembers }
    public func recordSummary(at index: Int) -> String { environments[index].recordSummary }
}
