// A tutorial: temporal-difference learning of 2048 with an n-tuple network,
// built on the public `Environment` API (the library's `TDLearner` is the same
// algorithm, hand-tuned on packed boards for speed).
//
//     swift run -c release TDLearner [games] [seed]
//
// 1. The value function V is an n-tuple network: lookup tables indexed by the
//    tiles found in a few groups of cells, read in every symmetric orientation.
// 2. The agent plays greedily on afterstates (the board after its move, before
//    the random tile): it picks the move maximizing reward + V(afterstate).
// 3. After each move, the previous afterstate's value is nudged toward what
//    actually followed: the next reward plus the next afterstate's value (TD(0),
//    Szubert & Jaśkowski 2014). At the end of a game the target is 0.
import Game2048
import Game2048Network
import Game2048Search

let arguments = CommandLine.arguments.dropFirst()
let games = arguments.first.flatMap { Int($0) } ?? 3_000
let seed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? 1

// A small board learns in seconds; the default network for 3×3 reads 3-cell lines and 2×2 squares.
let rules = try Rules(rows: 3, cols: 3)
let network = NTupleNetwork(rows: rules.rows, cols: rules.cols)
// The learning rate, split over the features that make up one value.
let step = Float(0.1) / Float(network.featureCount)

var env = Environment(rules: rules)
var recentScores: [Int64] = []
for game in 0..<games {
    var state = game == 0 ? env.reset(seed: seed) : env.reset()
    var previous: Board? = nil
    while true {
        // Greedy over afterstates: afterstates() says what each move would do, without doing it.
        let best = env.afterstates()
            .filter(\.legal)
            .max { Float($0.reward) + network.value(of: $0.board) < Float($1.reward) + network.value(of: $1.board) }
        // TD(0): move V(previous afterstate) toward r' + V(next afterstate), or 0 when the game is over.
        if let previous {
            let target = best.map { Float($0.reward) + network.value(of: $0.board) } ?? 0
            network.update(previous, by: step * (target - network.value(of: previous)))
        }
        guard let best else { break }
        let result = try env.step(best.direction)
        previous = best.board
        state = Reset(observation: result.observation, info: result.info)
        if env.isOver {
            network.update(best.board, by: step * (0 - network.value(of: best.board)))
            break
        }
    }
    recentScores.append(state.info.score)
    if recentScores.count == 500 {
        let mean = Double(recentScores.reduce(0, +)) / 500
        print("games \(game + 1): mean score of the last 500: \(mean)")
        recentScores.removeAll()
    }
}

// Compare with a random player on the same rules.
let learned = try Evaluation.run(rules: rules, games: 500, seed: 99, threads: 1) { _ in SearchPlayer(network: network, depth: 0) }
let random = try Evaluation.run(rules: rules, games: 500, seed: 99, threads: 1) { RandomPlayer(seed: UInt64($0)) }
print("after \(games) games: learned player \(learned.meanScore), random player \(random.meanScore) (mean score over 500 games)")
