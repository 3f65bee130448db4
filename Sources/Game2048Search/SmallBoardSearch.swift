import Game2048
import Game2048Network

/// A network's search on a board of up to 16 cells packed in a `PackedGrid` key: the small boards' form of
/// ``PackedSearchSpace``, for the networks read cell by cell (`CellTupleValue`), which are the ones that may
/// carry an `AfterstateTable`.
///
/// The generic search builds a `Board` and an array of spawns at every node, converts each afterstate to a key to
/// ask the table, and caches in a dictionary; this one moves keys by table (`PackedGrid`), reads the table and
/// the tuples straight off the key (`PackedTupleReader`, the same Float as `CellTupleValue`), and caches in a
/// ``TranspositionTable``. The search is the one ``ExpectimaxSearch``, so it visits the same nodes in the same
/// order and gives the same values and moves to the bit (the tests compare the two on random boards).
/// ``Expectimax`` hands a decision to it whenever it applies (``Expectimax/smallBoardKey(of:)``); the exact
/// evaluation of a trained 3×3 network asks it for a move on each of about 10^8 states.
typealias SmallBoardSearch = ExpectimaxSearch<SmallBoardSearchSpace>

/// A `PackedGrid` key as a ``SearchSpace``: table moves, spawns from the empty nibbles, the network's afterstate
/// table or else its tuples, and a ``TranspositionTable``.
struct SmallBoardSearchSpace: SearchSpace {
    let grid: PackedGrid
    let reader: PackedTupleReader
    let afterstates: AfterstateTable?
    let cellBits: UInt64
    var table = TranspositionTable()

    /// The space of `network`'s boards.
    ///
    /// - Precondition: the network reads cells (`NTupleNetwork.Reading.cells`), on a board of at most 16 cells.
    init(network: NTupleNetwork) {
        // No ceiling on merges up to 2^15: the generic search plays every move that changes the board, and
        // ``Expectimax/smallBoardKey(of:)`` keeps every tile of a search at 2^15 or below.
        grid = PackedGrid(rows: network.rows, cols: network.cols, largestExponent: 15)
        reader = PackedTupleReader(network)
        afterstates = network.afterstates
        cellBits = NibbleSpawns.cellBits(network.rows * network.cols)
    }

    @inline(__always)
    func moved(_ key: UInt64, _ direction: Direction) -> (afterstate: UInt64, reward: Int64, changed: Bool) {
        let move = grid.move(key, direction)
        return (move.afterstate, Int64(move.reward), move.afterstate != key)
    }

    @inline(__always)
    func spawns(of afterstate: UInt64, spawnFourProbability p: Double) -> NibbleSpawns {
        NibbleSpawns(of: afterstate, cellBits: cellBits, spawnFourProbability: p)
    }

    /// The table's value of the afterstate if it holds one (any of its mirror images), else the tuples' sum: what
    /// `CellTupleValue.value(of:)` gives its `Board`.
    @inline(__always)
    func evaluate(_ afterstate: UInt64) -> Float {
        afterstates?.value(ofKey: afterstate) ?? reader.value(of: afterstate)
    }

    /// Yes: the table and the weights of a small board's network are far larger than the cache (on 3×3, about
    /// 32 and 78 MB). Asking for a max node's afterstates together, the exact evaluation of the ten-minute 3×3
    /// default took 7 min 39 s against 8 min 40 s asking for each in turn (the two side by side, a core each).
    static var prefetches: Bool { true }

    /// The table's slot of the afterstate, and its tuples' weights, which are read where the table has no value.
    @inline(__always)
    func prefetch(_ afterstate: UInt64) {
        afterstates?.prefetch(key: afterstate)
        reader.prefetch(afterstate)
    }

    @inline(__always)
    func cachedValue(of afterstate: UInt64, depth: Int) -> Float? { table.value(of: afterstate, depth: depth) }

    @inline(__always)
    mutating func cache(_ value: Float, of afterstate: UInt64, depth: Int) { table.store(value, of: afterstate, depth: depth) }

    mutating func clearCache() { table.clear() }
}
