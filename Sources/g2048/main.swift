import Game2048
import Foundation
func run(rows: Int, cols: Int, steps: Int) {
    var env = Environment(rules: try! Rules(rows: rows, cols: cols), seed: 1)
    var agent = Xoshiro256StarStar(seed: 99)
    var mask = env.reset(seed: 1).info.actionMask
    var checksum: Int64 = 0
    var episodes = 0
    let t0 = clock()
    for _ in 0..<steps {
        let a = mask.direction(at: agent.uniform(below: mask.count))
        let s = try! env.step(a)
        checksum &+= s.reward
        if s.terminated || s.truncated { episodes += 1; mask = env.reset().info.actionMask } else { mask = s.info.actionMask }
    }
    let cpu = Double(clock() - t0) / Double(CLOCKS_PER_SEC)
    print(rows, cols, "steps/cpu s: \(Double(steps)/cpu/1e6) M", "episodes \(episodes) checksum \(checksum)")
}
run(rows: 6, cols: 6, steps: 2_000_000)


