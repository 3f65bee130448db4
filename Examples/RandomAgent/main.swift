// The first program to read after the README: seeded episodes of 2048 played
// by an agent that picks a uniformly random legal move, through the public
// `Environment` API only.
//
//     swift run -c release RandomAgent [episodes] [seed]
import Game2048

let arguments = CommandLine.arguments.dropFirst()
let episodes = arguments.first.flatMap { Int($0) } ?? 100
let seed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? 42

// The classic game: 4×4, two starting tiles, 90 % twos and 10 % fours.
var env = Environment(rules: Rules())
// The agent has its own generator, so its choices never disturb the game's stream.
var agent = Xoshiro256StarStar(seed: seed &+ 1)

var totalScore: Int64 = 0
var bestTile = 0
for episode in 0..<episodes {
    // Seed once; later resets continue the same stream (Gymnasium's convention).
    var state = episode == 0 ? env.reset(seed: seed) : env.reset()
    var mask = state.info.actionMask
    while !env.isOver {
        let action = mask.direction(at: agent.uniform(below: mask.count))
        let step = try env.step(action)
        mask = step.info.actionMask
        state = Reset(observation: step.observation, info: step.info)
    }
    totalScore += env.score
    bestTile = max(bestTile, state.info.maxTile)
}

print("random agent, \(episodes) episodes, seed \(seed)")
print("mean score \(Double(totalScore) / Double(episodes)), best tile \(bestTile)")
print("last board:\n\(env.board)")
