/// What a step does with an action the game refuses now: one inside the action space that its rules do not allow
/// (a 2048 move that would not change the board, a card already face up). Every game has the policy
/// (`invalid_action`, ``EpisodeOption``); an action outside the action space is always refused.
public enum InvalidActionPolicy: Hashable, Sendable {
    /// The state is unchanged, the reward is 0, and the step still counts toward the step limit (`max_steps`).
    case noop
    /// The episode terminates, with reward `-penalty`.
    case terminate(penalty: Int64)
    /// The step is refused with the game's reason, and nothing changes.
    case reject

    /// The kinds of policy, by the names the protocol and the CLI give them.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// ``InvalidActionPolicy/noop``.
        case noop
        /// ``InvalidActionPolicy/terminate(penalty:)``.
        case terminate
        /// ``InvalidActionPolicy/reject``.
        case reject
    }

    /// The policy of `kind`; `penalty` applies to ``Kind/terminate`` only.
    public init(_ kind: Kind, penalty: Int64 = 0) {
        switch kind {
        case .noop: self = .noop
        case .terminate: self = .terminate(penalty: penalty)
        case .reject: self = .reject
        }
    }

    /// The kind of policy.
    public var kind: Kind {
        switch self {
        case .noop: .noop
        case .terminate: .terminate
        case .reject: .reject
        }
    }

    /// The policy's name as the protocol and the CLI spell it: `noop`, `terminate` or `reject`.
    public var name: String { kind.rawValue }

    /// The penalty under ``terminate(penalty:)``; 0 under the others.
    public var penalty: Int64 { if case .terminate(let penalty) = self { penalty } else { 0 } }
}
