import Game2048
import Game2048Network
import Game2048Search
import Game2048Solver

/// The one list of players: what `g2048 eval --agent` measures and `g2048 play --agent`
/// shows, and what both commands' help says about them.
///
///     let agent = try #require(Agent(name: "greedy"))
///     var player = agent.makePlayer(seed: 1, network: nil)
///     player.action(on: board, rules: rules)
package enum Agent: String, CaseIterable, Hashable, Sendable {
    /// `RandomPlayer`: a uniformly random legal move.
    case random
    /// `GreedyPlayer`: the largest immediate reward.
    case greedy
    /// `MonteCarloPlayer`: random rollouts from each move.
    case montecarlo
    /// `SearchPlayer` with the hand-written heuristic, depth 2.
    case expectimax
    /// `SearchPlayer` with a trained n-tuple network, depth 1 (needs weights).
    case ntuple
    /// `OptimalPlayer`: the optimal move of an exact solution (needs a solution file, small boards only).
    case optimal

    /// The agent called `name`, or `nil`.
    package init?(name: String) { self.init(rawValue: name) }

    /// The names, comma-separated, for help and errors.
    package static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// Whether the agent needs a trained network.
    package var needsNetwork: Bool { self == .ntuple }

    /// Whether the agent needs an exact solution (`g2048 solve`).
    package var needsSolution: Bool { self == .optimal }

    /// Whether the agent searches by expectimax, so that a depth and a node budget apply to it.
    package var searches: Bool { self == .ntuple || self == .expectimax }

    /// What the agent does, in a few words, for help texts.
    package var summary: String {
        switch self {
        case .random: "a uniformly random legal move"
        case .greedy: "the best one-step score"
        case .montecarlo: "random rollouts from each move"
        case .expectimax: "expectimax over a hand-written heuristic"
        case .ntuple: "a trained n-tuple network, from --weights"
        case .optimal: "optimal play, from --solution (g2048 solve)"
        }
    }

    /// Every agent with its summary: "random (a uniformly random legal move), greedy (…), …".
    package static let descriptions = allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ")

    /// The search depth a player of this agent gets unless told otherwise: 2 for ``expectimax``,
    /// 1 for ``ntuple`` (0 is greedy over afterstates), 0 for the rest, which do not search.
    package var defaultDepth: Int {
        switch self {
        case .expectimax: 2
        case .ntuple: 1
        default: 0
        }
    }

    /// A player for this agent.
    ///
    /// - Parameters:
    ///   - seed: the player's own generator (random tie-breaks, rollouts).
    ///   - network: the trained network; required for ``ntuple``, ignored otherwise.
    ///   - solution: the exact solution; required for ``optimal``, ignored otherwise.
    ///   - depth: the search depth of ``searches`` agents (default ``defaultDepth``); ignored by the others.
    ///   - nodeBudget: the most chance nodes a search visits per move (see `Expectimax.nodeBudget`).
    ///   - pruneBelow: chance-node pruning of a search (see `Expectimax.pruneBelow`).
    ///   - downgradeLimit: tile-downgrading of the network's search (see `TileDowngrade`), `nil` for none.
    /// - Precondition: `network` is given when ``needsNetwork``.
    package func makePlayer(
        seed: UInt64, network: NTupleNetwork?, solution: Solution? = nil, depth: Int? = nil,
        nodeBudget: Int? = Expectimax.defaultNodeBudget, pruneBelow: Double = Expectimax.defaultPruneBelow,
        downgradeLimit: UInt8? = TileDowngrade.defaultLimit
    ) -> any Player {
        let depth = depth ?? defaultDepth
        switch self {
        case .random: return RandomPlayer(seed: seed)
        case .greedy: return GreedyPlayer(seed: seed)
        case .montecarlo: return MonteCarloPlayer(seed: seed)
        case .expectimax: return SearchPlayer(heuristicDepth: depth, nodeBudget: nodeBudget, pruneBelow: pruneBelow)
        case .ntuple:
            guard let network else { preconditionFailure("the ntuple agent needs a network") }
            return SearchPlayer(
                network: network, depth: depth, nodeBudget: nodeBudget, pruneBelow: pruneBelow,
                downgradeLimit: downgradeLimit)
        case .optimal:
            guard let solution else { preconditionFailure("the optimal agent needs a solution") }
            return OptimalPlayer(solution: solution)
        }
    }

    /// The player that gives `g2048 play --hint` its suggestions: the network at
    /// depth 1 when one is given (with `downgradeLimit`'s tile-downgrading), else the
    /// heuristic expectimax at depth 2.
    package static func hintPlayer(network: NTupleNetwork?, downgradeLimit: UInt8? = TileDowngrade.defaultLimit) -> any Player {
        network.map { SearchPlayer(network: $0, depth: 1, downgradeLimit: downgradeLimit) } ?? SearchPlayer(heuristicDepth: 2)
    }
}
