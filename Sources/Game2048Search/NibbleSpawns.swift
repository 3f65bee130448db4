/// The spawns of a chance node on a board packed four bits a cell (a 4×4 `Bitboard` or a `PackedGrid` key): the
/// empty cells in increasing order, a 2 before a 4, with the probabilities `Board.chanceOutcomes` gives them, and
/// the tile of probability 0 left out, as it leaves it out. The packed searches list the spawns this way so that
/// they visit the generic search's nodes in its order.
struct NibbleSpawns: IteratorProtocol {
    let afterstate: UInt64
    /// One bit (a nibble's lowest) per empty cell not yet visited.
    var cells: UInt64
    let two: Double, four: Double
    let p: Double
    /// The cell whose 4 comes next, after its 2.
    var pendingFour: UInt64 = 0

    /// The lowest bit of each of the first `count` nibbles: the cells of a board of `count` cells.
    static func cellBits(_ count: Int) -> UInt64 { 0x1111_1111_1111_1111 >> (4 * UInt64(16 - count)) }

    /// The spawns on `afterstate`, whose cells are `cellBits` (``cellBits(_:)``); it has an empty cell.
    @inline(__always)
    init(of afterstate: UInt64, cellBits: UInt64, spawnFourProbability p: Double) {
        let x = afterstate
        let empty = ~(x | x >> 1 | x >> 2 | x >> 3) & cellBits
        let n = Double(empty.nonzeroBitCount)
        self.afterstate = afterstate
        cells = empty
        two = (1 - p) / n
        four = p / n
        self.p = p
    }

    @inline(__always)
    mutating func next() -> (board: UInt64, probability: Double)? {
        if pendingFour != 0 {
            defer { pendingFour = 0 }
            return (afterstate | pendingFour << 1, four)
        }
        guard cells != 0 else { return nil }
        let bit = cells & (0 &- cells)
        cells &= cells &- 1
        guard p < 1 else { return (afterstate | bit << 1, four) }
        if p > 0 { pendingFour = bit }
        return (afterstate | bit, two)
    }
}
