import Game2048
import Game2048Network
import Game2048Solver

/// Learns a small board's `AfterstateTable` over a trained network: the second part of `g2048 train` on the
/// boards that may have one (`AfterstateTable.fits(rows:cols:)`).
///
///     let learner = try AfterstateLearner(network: network, rules: rules)   // the network carries a table
///     var rng = Xoshiro256StarStar(seed: 1)
///     learner.trainGame(using: &rng)
///
/// Each game is played greedily by the network and its table, as `SearchPlayer` plays them at depth 0 (the
/// first legal move in `Direction` order unless a later one is strictly better). Then, from the last state back
/// to the first, the afterstate of **every** legal move of each state (the move played and the ones not played)
/// takes its exact expected value under the rules' spawns: the mean over the empty cells of a 2 (chance 1 − p) or
/// a 4 (chance p), each followed by the best move's reward plus its afterstate's value, 0 where no move is left
/// or the win tile ends the game. An afterstate not yet in the table is worth the network's value.
///
/// So the values are the solver's equations (`OptimalSolver`) met one board at a time along the games the
/// player plays, a model-based, trial-based form of value iteration (Barto, Bradtke & Singh's real-time dynamic
/// programming) over afterstates; the network stands in for what has not been met. Backing up the moves not
/// played, not only the played one, is what lets a wrongly low value rise again (measured in docs/SOLVER.md).
///
/// The network's weights do not change. One thread; deterministic: the same network, rules and seed give the same
/// games and the same table.
public final class AfterstateLearner: @unchecked Sendable {
    /// The network, which carries the table learned.
    public let network: NTupleNetwork
    /// The table learned (the network's).
    public let table: AfterstateTable
    /// The rules of the training games.
    public let rules: Rules
    /// Asks the run to stop (shared with the ``TDLearner`` of the same run).
    public let stop: TrainingStop
    let game: SolverGame
    let reader: PackedTupleReader
    let fourThreshold: UInt64
    /// The chances of a 2 and of a 4 after a move.
    let twoChance: Float, fourChance: Float
    /// The states of the game in progress, for the backward pass.
    private var states: [UInt64] = []
    /// ``expectedValue(of:)``'s working space.
    private let scratch = SpawnScratch(cells: OptimalSolver.maxCells)

    /// Why `rules` cannot train an afterstate table, or `nil`: the table is learned by the solver's equations,
    /// so only the rules the solver models (no step limit, no ending on an illegal action).
    public static func unsupportedRule(in rules: Rules) -> String? {
        SolverGame.unsupportedRule(in: rules).map {
            "the afterstate table is learned by the solver's equations, which do not model this game: \($0)"
        }
    }

    /// A learner of `network`'s table under `rules`.
    ///
    /// - Precondition: `network` carries a table (`NTupleNetwork.afterstates`) and is for the rules' board;
    ///   ``unsupportedRule(in:)`` is `nil`.
    public init(network: NTupleNetwork, rules: Rules, stop: TrainingStop = TrainingStop()) {
        guard let table = network.afterstates else { preconditionFailure("the network carries no afterstate table") }
        precondition(network.rows == rules.rows && network.cols == rules.cols, "the network is for another board size")
        if let rule = AfterstateLearner.unsupportedRule(in: rules) { preconditionFailure(rule) }
        self.network = network
        self.table = table
        self.rules = rules
        self.stop = stop
        game = SolverGame(rules: rules, objective: .score, symmetric: true)
        reader = PackedTupleReader(network)
        fourThreshold = bernoulliThreshold(probability: rules.spawnFourProbability)
        fourChance = Float(rules.spawnFourProbability)
        twoChance = 1 - fourChance
    }

    /// The value of `key`, a canonical afterstate: the table's, else the network's.
    @inline(__always)
    func value(ofCanonical key: UInt64) -> Float { table.value(ofCanonical: key) ?? reader.value(of: key) }

    /// The greedy move on `state`: its afterstate and reward, and the move's worth (reward + value); `nil` when no
    /// move is legal or the game is won.
    @inline(__always)
    func bestMove(on state: UInt64) -> (afterstate: UInt64, reward: UInt32, worth: Float)? {
        if game.isWon(state) { return nil }
        var best: (afterstate: UInt64, reward: UInt32, worth: Float)? = nil
        for direction in Direction.allCases {
            let move = game.grid.move(state, direction)
            guard move.legal else { continue }
            let worth = Float(move.reward) + value(ofCanonical: table.canonical(move.afterstate))
            if best.map({ worth > $0.worth }) ?? true { best = (move.afterstate, move.reward, worth) }
        }
        return best
    }

    /// The expected value of `afterstate` over its spawns, each followed by the best move (0 when none).
    ///
    /// Every spawn's legal moves are gathered first and their afterstates asked of memory together (the table's
    /// slots, then the network's weights of those the table lacks): both are too large for the cache, and asking
    /// for one board at a time waits out each miss in turn. The values are then combined in the order
    /// ``bestMove(on:)`` would meet them, so the result is the same to the bit.
    @inline(__always)
    func expectedValue(of afterstate: UInt64) -> Float {
        let scratch = self.scratch
        var candidates = 0, spawns = 0
        for cell in 0..<game.cells where (afterstate >> (4 * UInt64(cell))) & 0xF == 0 {
            for exponent in UInt64(1)...2 {
                let chance = exponent == 1 ? twoChance : fourChance
                guard chance > 0 else { continue }
                let state = afterstate | exponent << (4 * UInt64(cell))
                if !game.isWon(state) {
                    for direction in Direction.allCases {
                        let move = game.grid.move(state, direction)
                        guard move.legal else { continue }
                        let key = table.canonical(move.afterstate)
                        table.prefetch(canonical: key)
                        scratch.keys[candidates] = key
                        scratch.worths[candidates] = Float(move.reward)
                        candidates += 1
                    }
                }
                scratch.spawnEnds[spawns] = candidates
                scratch.spawnChances[spawns] = chance
                spawns += 1
            }
        }
        for index in 0..<candidates {
            let value = table.value(ofCanonical: scratch.keys[index])
            scratch.inTable[index] = value != nil
            if let value { scratch.values[index] = value } else { reader.prefetch(scratch.keys[index]) }
        }
        var total: Float = 0
        var start = 0
        for spawn in 0..<spawns {
            var best: Float? = nil
            for index in start..<scratch.spawnEnds[spawn] {
                let value = scratch.inTable[index] ? scratch.values[index] : reader.value(of: scratch.keys[index])
                let worth = scratch.worths[index] + value
                if best.map({ worth > $0 }) ?? true { best = worth }
            }
            total += scratch.spawnChances[spawn] * (best ?? 0)
            start = scratch.spawnEnds[spawn]
        }
        let empty = PackedGrid.emptyCount(afterstate, cells: game.cells)
        return empty == 0 ? 0 : total / Float(empty)
    }

    /// A spawn on `key`, drawn as the environment draws it: the value first, then the cell.
    @inline(__always)
    func spawn(on key: UInt64, using rng: inout Xoshiro256StarStar) -> UInt64 {
        let exponent: UInt64 = rng.bernoulli(threshold: fourThreshold) ? 2 : 1
        var pick = rng.uniform(below: PackedGrid.emptyCount(key, cells: game.cells))
        for cell in 0..<game.cells where (key >> (4 * UInt64(cell))) & 0xF == 0 {
            if pick == 0 { return key | exponent << (4 * UInt64(cell)) }
            pick -= 1
        }
        preconditionFailure("a spawn on a full board")
    }

    /// Plays one game greedily, then backs up the afterstate of every legal move of each of its states, last first.
    @discardableResult
    public func trainGame(using rng: inout Xoshiro256StarStar) -> GameResult {
        var state: UInt64 = 0
        for _ in 0..<rules.initialTiles { state = spawn(on: state, using: &rng) }
        states.removeAll(keepingCapacity: true)
        var score: Int64 = 0
        while let move = bestMove(on: state) {
            states.append(state)
            score += Int64(move.reward)
            state = spawn(on: move.afterstate, using: &rng)
        }
        for visited in states.reversed() {
            for direction in Direction.allCases {
                let move = game.grid.move(visited, direction)
                guard move.legal else { continue }
                let key = table.canonical(move.afterstate)
                table.set(canonical: key, to: expectedValue(of: key))
            }
        }
        return GameResult(score: score, maxTile: Board.value(ofExponent: PackedGrid.highestExponent(state)), moves: states.count)
    }

    /// Trains until `plan`'s games or seconds or ``stop``; returns the games this run played. One thread whatever
    /// `plan.threads` says; the generator is seeded as ``TrainingLoop`` seeds its first thread.
    ///
    /// - Parameters:
    ///   - plan: when to stop, and the seed.
    ///   - gamesBefore: the games already played (a plan's `games` counts them).
    ///   - onGame: called after every game with its result and the games so far; `false` stops the run.
    @discardableResult
    public func run(_ plan: TrainingPlan, gamesBefore: Int, onGame: (GameResult, Int) -> Bool) -> Int {
        var rng = Xoshiro256StarStar(seed: VectorEnvironment.seeds(from: plan.seed &+ UInt64(gamesBefore), count: 1)[0])
        stop.setDeadline(secondsFromNow: plan.seconds)
        defer { stop.setDeadline(secondsFromNow: nil) }
        var total = gamesBefore
        while !stop.isDue && plan.games.map({ total < $0 }) ?? true {
            let result = trainGame(using: &rng)
            total += 1
            if !onGame(result, total) { break }
        }
        return total - gamesBefore
    }
}

/// Room for every spawn of an afterstate of up to `cells` cells (a 2 and a 4 on each empty cell) and every legal
/// move after each: the boards ``AfterstateLearner/expectedValue(of:)`` gathers before reading their values.
final class SpawnScratch {
    /// Per candidate (a spawn's legal move): its canonical afterstate, reward, and the table's value if it has one.
    let keys: UnsafeMutablePointer<UInt64>
    let worths: UnsafeMutablePointer<Float>
    let values: UnsafeMutablePointer<Float>
    let inTable: UnsafeMutablePointer<Bool>
    /// Per spawn: where its candidates end, and its chance.
    let spawnEnds: UnsafeMutablePointer<Int>
    let spawnChances: UnsafeMutablePointer<Float>

    init(cells: Int) {
        let spawns = 2 * cells, candidates = spawns * Direction.allCases.count
        keys = .allocate(capacity: candidates)
        worths = .allocate(capacity: candidates)
        values = .allocate(capacity: candidates)
        inTable = .allocate(capacity: candidates)
        spawnEnds = .allocate(capacity: spawns)
        spawnChances = .allocate(capacity: spawns)
    }

    deinit {
        keys.deallocate()
        worths.deallocate()
        values.deallocate()
        inTable.deallocate()
        spawnEnds.deallocate()
        spawnChances.deallocate()
    }
}
