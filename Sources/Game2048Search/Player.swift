import Game2048
import Game2048Network

/// Something that picks moves: an agent for `g2048 eval` and `g2048 play`.
///
///     var player = GreedyPlayer(seed: 1)
///     let action = player.action(on: board, rules: Rules())   // nil when no move is legal
///
/// Players see only the board and the rules (the observation of the
/// environment), so the same player runs in evaluation, in the terminal
/// player, and as a hint. A player that draws random numbers owns its own
/// generator, seeded at creation, so a game replays exactly.
public protocol Player {
    /// A short name for reports, e.g. `"greedy"` or `"ntuple, depth 1"`.
    var name: String { get }
    /// The move to play on `board`, or `nil` when no move is legal.
    mutating func action(on board: Board, rules: Rules) -> Direction?
}

/// Plays a uniformly random legal move.
public struct RandomPlayer: Player {
    var rng: Xoshiro256StarStar
    public let name = "random"

    /// Creates the player with its own generator.
    public init(seed: UInt64) { rng = Xoshiro256StarStar(seed: seed) }

    public mutating func action(on board: Board, rules: Rules) -> Direction? {
        let mask = board.legalMoves
        return mask.isEmpty ? nil : mask.direction(at: rng.uniform(below: mask.count))
    }
}

/// Plays the move with the largest immediate reward (one-step score); ties are broken at random.
public struct GreedyPlayer: Player {
    var rng: Xoshiro256StarStar
    public let name = "greedy"

    /// Creates the player with its own generator for tie-breaks.
    public init(seed: UInt64) { rng = Xoshiro256StarStar(seed: seed) }

    public mutating func action(on board: Board, rules: Rules) -> Direction? {
        var best: [Direction] = [], bestReward: Int64 = -1
        for direction in Direction.allCases {
            let outcome = board.moved(direction)
            guard outcome.changed else { continue }
            if outcome.reward > bestReward {
                (best, bestReward) = ([direction], outcome.reward)
            } else if outcome.reward == bestReward {
                best.append(direction)
            }
        }
        return best.isEmpty ? nil : best[rng.uniform(below: best.count)]
    }
}

/// Monte Carlo rollouts: for each legal move, play `rollouts` random games from
/// its afterstate (at most `depth` moves each) and pick the move whose rollouts
/// score best on average, the "Monte Carlo AI" of the 2048 apps.
public struct MonteCarloPlayer: Player {
    var rng: Xoshiro256StarStar
    /// Random games per legal move.
    public let rollouts: Int
    /// The longest rollout, in moves.
    public let depth: Int
    public var name: String { "montecarlo (\(rollouts) rollouts of up to \(depth) moves)" }

    /// Creates the player.
    public init(seed: UInt64, rollouts: Int = 50, depth: Int = 40) {
        rng = Xoshiro256StarStar(seed: seed)
        self.rollouts = rollouts
        self.depth = depth
    }

    public mutating func action(on board: Board, rules: Rules) -> Direction? {
        let episode = rules.episodeRules
        var best: Direction? = nil, bestMean = -Double.infinity
        for direction in Direction.allCases {
            let outcome = board.moved(direction)
            guard outcome.changed else { continue }
            var total = 0.0
            for _ in 0..<rollouts {
                var state = outcome.afterstate
                episode.spawn(on: &state, using: &rng)
                var score = Double(outcome.reward)
                for _ in 0..<depth {
                    let mask = state.legalMoves
                    if mask.isEmpty { break }
                    let next = state.moved(mask.direction(at: rng.uniform(below: mask.count)))
                    score += Double(next.reward)
                    state = next.afterstate
                    episode.spawn(on: &state, using: &rng)
                }
                // Surviving longer is worth more than a quick merge: count the empty cells left.
                total += score + 16 * Double(state.emptyCount)
            }
            let mean = total / Double(rollouts)
            if mean > bestMean { (best, bestMean) = (direction, mean) }
        }
        return best
    }
}

/// Plays by ``Expectimax`` search over an afterstate value: a trained
/// `NTupleNetwork` or the hand-written ``Heuristic``.
///
/// Depth 0 is greedy over afterstates (`argmax r + V(afterstate)`, the policy the
/// network was trained with); each further level averages over every spawn (a 2
/// with 0.9, a 4 with 0.1, on every empty cell) before maximizing again.
public struct SearchPlayer: Player {
    var search: Expectimax
    public let name: String

    /// A player that searches with a trained network, at most `nodeBudget` chance nodes a move
    /// (see ``Expectimax/nodeBudget``: deeper layers are skipped where they would not fit).
    ///
    /// - Parameters:
    ///   - network: values the afterstates at the search horizon.
    ///   - depth: chance layers; 0 is greedy over afterstates.
    ///   - nodeBudget: the most chance nodes a move, or `nil` for no limit.
    ///   - pruneBelow: chance-node pruning (see ``Expectimax/pruneBelow``).
    ///   - downgradeLimit: tile-downgrading from this exponent, or `nil` for none (see `TileDowngrade`).
    public init(
        network: NTupleNetwork, depth: Int, nodeBudget: Int? = Expectimax.defaultNodeBudget,
        pruneBelow: Double = Expectimax.defaultPruneBelow, downgradeLimit: UInt8? = TileDowngrade.defaultLimit
    ) {
        search = Expectimax(
            evaluator: .network(network), depth: depth, nodeBudget: nodeBudget,
            pruneBelow: pruneBelow, downgradeLimit: downgradeLimit)
        name = depth == 0 ? "ntuple, greedy" : "ntuple, expectimax depth \(depth)"
    }

    /// A player that searches with the hand-written heuristic, at most `nodeBudget` chance nodes a move,
    /// pruning chance nodes reached with a probability below `pruneBelow` (see ``Expectimax/pruneBelow``).
    public init(
        heuristicDepth depth: Int, nodeBudget: Int? = Expectimax.defaultNodeBudget,
        pruneBelow: Double = Expectimax.defaultPruneBelow
    ) {
        search = Expectimax(evaluator: .heuristic, depth: depth, nodeBudget: nodeBudget, pruneBelow: pruneBelow)
        name = "expectimax (heuristic), depth \(depth)"
    }

    public mutating func action(on board: Board, rules: Rules) -> Direction? {
        search.bestAction(on: board, spawnFourProbability: rules.spawnFourProbability)
    }
}
