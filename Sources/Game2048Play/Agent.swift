import Game2048
import Game2048Learning

/// The built-in players `g2048 play --agent` can watch.
///
///     let agent = try #require(Agent(name: "greedy"))
///     var player = agent.makePlayer(seed: 1, network: nil)
///     player.action(on: board, rules: rules)
public enum Agent: String, CaseIterable, Hashable, Sendable {
    /// ``RandomPlayer``: a uniformly random legal move.
    case random
    /// ``GreedyPlayer``: the largest immediate reward.
    case greedy
    /// ``MonteCarloPlayer``: random rollouts from each move.
    case montecarlo
    /// ``SearchPlayer`` with the hand-written heuristic, depth 2.
    case expectimax
    /// ``SearchPlayer`` with a trained n-tuple network, depth 1 (needs weights).
    case ntuple

    /// The agent called `name`, or `nil`.
    public init?(name: String) { self.init(rawValue: name) }

    /// The names, comma-separated, for help and errors.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// Whether the agent needs a trained network.
    public var needsNetwork: Bool { self == .ntuple }

    /// A player for this agent.
    ///
    /// - Parameters:
    ///   - seed: the player's own generator (random tie-breaks, rollouts).
    ///   - network: the trained network; required for ``ntuple``, ignored otherwise.
    /// - Precondition: `network` is given when ``needsNetwork``.
    public func makePlayer(seed: UInt64, network: NTupleNetwork?) -> any Player {
        switch self {
        case .random: return RandomPlayer(seed: seed)
        case .greedy: return GreedyPlayer(seed: seed)
        case .montecarlo: return MonteCarloPlayer(seed: seed)
        case .expectimax: return SearchPlayer(heuristicDepth: 2)
        case .ntuple:
            guard let network else { preconditionFailure("the ntuple agent needs a network") }
            return SearchPlayer(network: network, depth: 1)
        }
    }

    /// The player that gives `g2048 play --hint` its suggestions: the network at
    /// depth 1 when one is given, else the heuristic expectimax at depth 2.
    public static func hintPlayer(network: NTupleNetwork?) -> any Player {
        network.map { SearchPlayer(network: $0, depth: 1) } ?? SearchPlayer(heuristicDepth: 2)
    }
}
