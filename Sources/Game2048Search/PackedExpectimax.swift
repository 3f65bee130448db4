import Game2048
import Game2048Network

/// ``Expectimax``'s search on the packed 4×4 board, for a network that reads bitboards.
///
/// The generic search builds a `Board` and an array of spawns at every chance node and caches in a
/// dictionary; this one keeps each board in a `UInt64`, makes moves with `Bitboard.MoveTable`, walks
/// the empty nibbles for spawns, and caches in a fixed ``TranspositionTable``. The search itself is
/// the one ``ExpectimaxSearch``: it visits the same nodes in the same order and sums in the same
/// order, so with the same settings it gives the same values, moves and node counts (the tests
/// compare both on random boards). ``Expectimax`` hands a decision to it whenever it applies (see
/// ``Expectimax/packedBoard(of:)``).
/// It is generic over the network's packed `ValueFunction`, so each kind searches with its own
/// specialized evaluation; ``PackedSearch`` holds the one a network reads with.
typealias PackedExpectimax<V: ValueFunction> = ExpectimaxSearch<PackedSearchSpace<V>> where V.Position == Bitboard

extension ExpectimaxSearch {
    /// A packed search with `valueFunction` and the settings of ``Expectimax``.
    init<V>(valueFunction: V, nodeBudget: Int?, pruneBelow: Double, downgradeLimit: UInt8?) where Space == PackedSearchSpace<V> {
        self.init(
            space: PackedSearchSpace(valueFunction: valueFunction, downgradeLimit: downgradeLimit), nodeBudget: nodeBudget,
            pruneBelow: pruneBelow)
    }
}

/// The packed search of a network, for the kind of `ValueFunction` it reads with (chosen once,
/// when the search is made; a decision then runs the code specialized for it). Exactly one of the
/// two is set; they are optionals rather than an enum's payloads so that a decision mutates the
/// search (and its ``TranspositionTable``) in place instead of copying it out.
struct PackedSearch {
    var defaultTuples: PackedExpectimax<DefaultTupleValue>?
    var packedRuns: PackedExpectimax<PackedRunValue>?

    /// The packed search over `network` with the settings of ``Expectimax``, or `nil` when the network
    /// does not read packed boards.
    init?(network: NTupleNetwork, nodeBudget: Int?, pruneBelow: Double, downgradeLimit: UInt8?) {
        switch network.reading {
        case .defaultTuples:
            defaultTuples = PackedExpectimax(
                valueFunction: DefaultTupleValue(network), nodeBudget: nodeBudget, pruneBelow: pruneBelow, downgradeLimit: downgradeLimit)
        case .packedRuns:
            packedRuns = PackedExpectimax(
                valueFunction: PackedRunValue(network), nodeBudget: nodeBudget, pruneBelow: pruneBelow, downgradeLimit: downgradeLimit)
        case .cells: return nil
        }
    }

    /// ``ExpectimaxSearch/bestAction(on:depth:p:)`` and the nodes it visited.
    mutating func bestAction(on board: Bitboard, depth: Int, p: Double) -> (best: (action: Direction?, depth: Int), nodes: Int) {
        if defaultTuples != nil { return (defaultTuples!.bestAction(on: board, depth: depth, p: p), defaultTuples!.nodes) }
        return (packedRuns!.bestAction(on: board, depth: depth, p: p), packedRuns!.nodes)
    }

    /// ``ExpectimaxSearch/actionValues(on:depth:p:)``.
    mutating func actionValues(on board: Bitboard, depth: Int, p: Double) -> [(Direction, Float)] {
        if defaultTuples != nil { return defaultTuples!.actionValues(on: board, depth: depth, p: p) }
        return packedRuns!.actionValues(on: board, depth: depth, p: p)
    }
}

/// The packed 4×4 board as a ``SearchSpace``: table moves, spawns from the empty nibbles, a network's
/// value (downgraded past ``downgradeLimit``) and a ``TranspositionTable``.
struct PackedSearchSpace<V: ValueFunction>: SearchSpace where V.Position == Bitboard {
    let valueFunction: V
    let moves = Bitboard.MoveTable()
    var table = TranspositionTable()
    /// Tile-downgrading's limit, or `nil` (see ``Expectimax/downgradeLimit``).
    let downgradeLimit: UInt8?

    init(valueFunction: V, downgradeLimit: UInt8?) {
        self.valueFunction = valueFunction
        self.downgradeLimit = downgradeLimit
    }

    @inline(__always)
    func moved(_ board: Bitboard, _ direction: Direction) -> (afterstate: Bitboard, reward: Int64, changed: Bool) {
        let outcome = moves.move(board, direction)
        return (outcome.afterstate, outcome.reward, outcome.changed)
    }

    /// ``NibbleSpawns`` as bitboards.
    struct Spawns: IteratorProtocol {
        var nibbles: NibbleSpawns

        @inline(__always)
        mutating func next() -> (board: Bitboard, probability: Double)? {
            nibbles.next().map { (Bitboard(rawValue: $0.board), $0.probability) }
        }
    }

    @inline(__always)
    func spawns(of afterstate: Bitboard, spawnFourProbability p: Double) -> Spawns {
        Spawns(nibbles: NibbleSpawns(of: afterstate.rawValue, cellBits: NibbleSpawns.cellBits(16), spawnFourProbability: p))
    }

    @inline(__always)
    func evaluate(_ afterstate: Bitboard) -> Float {
        if let downgradeLimit, TileDowngrade.holds(afterstate.rawValue, atLeast: downgradeLimit) {
            return valueFunction.value(of: TileDowngrade.downgraded(afterstate, from: downgradeLimit))
        }
        return valueFunction.value(of: afterstate)
    }

    @inline(__always)
    func cachedValue(of afterstate: Bitboard, depth: Int) -> Float? { table.value(of: afterstate.rawValue, depth: depth) }

    @inline(__always)
    mutating func cache(_ value: Float, of afterstate: Bitboard, depth: Int) { table.store(value, of: afterstate.rawValue, depth: depth) }

    mutating func clearCache() { table.clear() }
}
