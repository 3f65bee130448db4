import Game2048
import Game2048Learning
#if canImport(Glibc)
import Glibc
#endif
let network = NTupleNetwork(rows: 4, cols: 4)
let learner = TDLearner(network: network, rules: Rules(), alpha: 0.1)
var rng = Xoshiro256StarStar(seed: 1)
var moves = 0, games = 0
var scores: Int64 = 0
var t0 = timespec(); clock_gettime(CLOCK_MONOTONIC, &t0)
let seconds = Double(CommandLine.arguments.dropFirst().first ?? "10")!
while true {
    let r = learner.trainGame(using: &rng)
    moves += r.moves; games += 1; scores += r.score
    if games % 1000 == 0 {
        var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t)
        let el = Double(t.tv_sec - t0.tv_sec) + Double(t.tv_nsec - t0.tv_nsec) / 1e9
        print(games, "moves/s", Double(moves) / el, "mean score (last 1000)", Double(scores) / 1000)
        scores = 0
        if el > seconds { break }
    }
}
