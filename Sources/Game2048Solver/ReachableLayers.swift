import Game2048
import Game2048Network

/// The boards a game reaches, by age (the tiles' sum in units of 2, unchanged by a move, grown by 1 or 2 by a
/// spawn): each layer's states, the moves followed from each, and the afterstates they make, every board
/// reduced by the game's symmetries.
///
/// Made by ``LayerEnumerator``, valued by ``BackwardPass``.
struct ReachableLayers: Sendable {
    /// Per age, the distinct states, ascending.
    var states: [[UInt64]] = []
    /// Per age and state: bits 0–3 the moves followed (bit `d` for `Direction(rawValue: d)`), none on a board
    /// that ends the game; bits 4–7 are the follower's own (a policy evaluation marks its moves that are not
    /// optimal there).
    var flags: [[UInt8]] = []
    /// Per age, the distinct afterstates of the moves followed, ascending.
    var afterstates: [[UInt64]] = []

    var stateCount: Int { states.reduce(0) { $0 + $1.count } }
    var afterstateCount: Int { afterstates.reduce(0) { $0 + $1.count } }
}

/// The forward pass, one age at a time: ``nextStates()`` gives a layer's states, ``follow(_:)`` takes the moves
/// followed from each (all legal moves for the optimal solution, a policy's for its evaluation) and makes the
/// layer's afterstates and, by their spawns, the states of the next two ages.
///
/// A loop the caller drives, so a policy outside Swift (Python, over the C ABI) can be asked for a whole layer's
/// moves at once.
struct LayerEnumerator {
    let game: SolverGame
    let threads: Int
    /// The states found so far of the ages to come.
    private var pending: [Int: KeySet] = [:]
    /// The layers done.
    private(set) var layers = ReachableLayers()
    /// The states given by ``nextStates()`` and not yet followed.
    private var waiting: [UInt64]? = nil

    init(game: SolverGame, threads: Int) {
        self.game = game
        self.threads = max(1, threads)
        for start in game.startingBoards() { pendingSet(PackedGrid.age(start.key)).insert(game.symmetry.canonical(start.key)) }
    }

    /// The age of the next layer.
    var age: Int { layers.states.count }

    /// Whether every layer is followed: ``nextStates()`` gave `nil`.
    var isDone: Bool { pending.isEmpty && waiting == nil }

    private mutating func pendingSet(_ age: Int) -> KeySet {
        if let set = pending[age] { return set }
        let set = KeySet()
        pending[age] = set
        return set
    }

    /// The states of the next age (none for an age no game reaches), or `nil` when no game reaches an older
    /// board. Their order is the order they were found in, the same on any number of threads.
    mutating func nextStates() -> [UInt64]? {
        precondition(waiting == nil, "nextStates() twice without follow(_:)")
        guard !pending.isEmpty else { return nil }
        let states = pending.removeValue(forKey: age)?.keys() ?? []
        waiting = states
        return states
    }

    /// Follows, from each state ``nextStates()`` gave, the moves in bits 0–3 of its `flags`.
    mutating func follow(_ flags: [UInt8]) {
        guard let states = waiting else { preconditionFailure("follow(_:) before nextStates()") }
        precondition(flags.count == states.count, "one flags byte per state")
        let game = self.game
        let moved = parallelChunks(count: states.count, threads: threads) { range in
            var afterstates: [UInt64] = []
            afterstates.reserveCapacity(range.count * 2)
            for index in range where flags[index] & 0xF != 0 {
                for direction in Direction.allCases where flags[index] & (1 << UInt8(direction.rawValue)) != 0 {
                    afterstates.append(game.symmetry.canonical(game.grid.move(states[index], direction).afterstate))
                }
            }
            return afterstates
        }
        finishLayer(flags: flags, moved: moved)
    }

    /// Follows every legal move of each state ``nextStates()`` gave (the optimal solution's layers): as
    /// `follow(states.map(game.legalMoves))`, each move made once.
    mutating func followLegalMoves() {
        guard let states = waiting else { preconditionFailure("followLegalMoves() before nextStates()") }
        let game = self.game
        let moved = parallelChunks(count: states.count, threads: threads) { range in
            var afterstates: [UInt64] = []
            var flags: [UInt8] = []
            afterstates.reserveCapacity(range.count * 3)
            flags.reserveCapacity(range.count)
            for index in range {
                var mask: UInt8 = 0
                if !game.isWon(states[index]) {
                    for direction in Direction.allCases {
                        let move = game.grid.move(states[index], direction)
                        guard move.legal else { continue }
                        mask |= 1 << UInt8(direction.rawValue)
                        afterstates.append(game.symmetry.canonical(move.afterstate))
                    }
                }
                flags.append(mask)
            }
            return (flags, afterstates)
        }
        finishLayer(flags: Array(moved.map { $0.0 }.joined()), moved: moved.map { $0.1 })
    }

    /// Records the layer: its states, their `flags`, and its distinct afterstates (`moved`, in chunks); and
    /// gathers the states their spawns make.
    private mutating func finishLayer(flags: [UInt8], moved: [[UInt64]]) {
        let states = waiting!
        waiting = nil
        let game = self.game
        let distinct = KeySet(expected: moved.reduce(0) { $0 + $1.count } / 2)
        for chunk in moved { for key in chunk { distinct.insert(key) } }
        let afterstates = distinct.sorted()
        let spawned = parallelChunks(count: afterstates.count, threads: threads, minimum: 1024) { range in
            var twos: [UInt64] = [], fours: [UInt64] = []
            twos.reserveCapacity(range.count * 4)
            for index in range {
                PackedGrid.forEachSpawn(on: afterstates[index], cells: game.cells, fourProbability: game.fourProbability) { state, step, _ in
                    if step == 1 { twos.append(game.symmetry.canonical(state)) } else { fours.append(game.symmetry.canonical(state)) }
                }
            }
            return (twos, fours)
        }
        let age = self.age
        for (step, keys) in [(1, spawned.map { $0.0 }), (2, spawned.map { $0.1 })] where keys.contains(where: { !$0.isEmpty }) {
            let set = pendingSet(age + step)
            for chunk in keys { for key in chunk { set.insert(key) } }
        }
        layers.states.append(states)
        layers.flags.append(flags)
        layers.afterstates.append(afterstates)
    }
}
