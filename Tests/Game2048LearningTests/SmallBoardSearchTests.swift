import Game2048
import Testing

@testable import Game2048Network
@testable import Game2048Search

/// The small boards' search against its oracle, the generic ``Expectimax`` over `Board`: the same moves, node
/// counts and values, to the bit, on networks that carry an afterstate table.
struct SmallBoardSearchTests {
    /// The same search with the small boards' path taken away.
    static func generic(_ search: Expectimax) -> Expectimax {
        var generic = search
        generic.small = nil
        return generic
    }

    /// A random network on `rows` × `cols` whose table holds the afterstates of about a third of `boards`' moves
    /// (no table past ``AfterstateTable/maxCells``).
    static func network(rows: Int, cols: Int, seed: UInt64, stages: [UInt8], boards: [Board]) throws -> NTupleNetwork {
        let network = AfterstateTableTests.network(
            rows: rows, cols: cols, seed: seed, stages: stages, table: AfterstateTable.fits(rows: rows, cols: cols))
        guard let table = network.afterstates else { return network }
        var rng = Xoshiro256StarStar(seed: seed &+ 1)
        for board in boards {
            for direction in Direction.allCases where rng.uniform(below: 3) == 0 {
                let outcome = board.moved(direction)
                guard outcome.changed, let key = PackedGrid.key(of: outcome.afterstate) else { continue }
                table.set(canonical: table.canonical(key), to: Float(rng.uniform(below: 100_000)) / 7)
            }
        }
        return network
    }

    /// A board of 16 cells or fewer in lines longer than 4 (2×8, 3×5) takes the generic search: a packed line is 4
    /// cells (`g2048 eval` of a 2×8 network once trapped allocating 48 GiB of tables, of a 3×5 one converting a
    /// 5-cell line to 16 bits).
    @Test(arguments: [(2, 8), (8, 2), (2, 6), (4, 4), (3, 5), (2, 5), (3, 4), (2, 2)])
    func longLinesTakeTheGenericSearch(rows: Int, cols: Int) throws {
        let network = AfterstateTableTests.network(rows: rows, cols: cols, seed: 3, stages: [], table: false)
        var search = Expectimax(evaluator: .network(network), depth: 1)
        #expect((search.small != nil) == (max(rows, cols) <= PackedGrid.longestLine))
        var env = Environment(rules: try Rules(rows: rows, cols: cols))
        let board = env.reset(seed: 1).observation
        #expect(search.bestAction(on: board, spawnFourProbability: 0.1) != nil)
    }

    struct Setting: CustomTestStringConvertible, Sendable {
        var rows: Int, cols: Int, depth: Int, nodeBudget: Int?, pruneBelow: Double, p: Double, stages: [UInt8]
        /// Depth 2 on `Board` is slow in a debug build: fewer boards there.
        var boards: Int { depth < 2 ? 40 : 12 }
        var testDescription: String {
            "\(rows)x\(cols), depth \(depth), budget \(nodeBudget.map(String.init) ?? "none"), prune \(pruneBelow), p \(p)"
        }
    }

    static let settings: [Setting] = [
        Setting(rows: 3, cols: 3, depth: 0, nodeBudget: 100_000, pruneBelow: 0.03, p: 0.1, stages: []),
        Setting(rows: 2, cols: 4, depth: 0, nodeBudget: nil, pruneBelow: 0, p: 0.1, stages: [7]),
        Setting(rows: 2, cols: 3, depth: 1, nodeBudget: nil, pruneBelow: 0, p: 0.1, stages: []),
        Setting(rows: 3, cols: 3, depth: 1, nodeBudget: nil, pruneBelow: 0.03, p: 0, stages: []),
        Setting(rows: 4, cols: 2, depth: 1, nodeBudget: nil, pruneBelow: 0, p: 1, stages: []),
        Setting(rows: 3, cols: 3, depth: 2, nodeBudget: 2_000, pruneBelow: 0, p: 0.1, stages: [8]),
        Setting(rows: 3, cols: 4, depth: 2, nodeBudget: nil, pruneBelow: 0.01, p: 0.5, stages: []),
        Setting(rows: 4, cols: 4, depth: 1, nodeBudget: nil, pruneBelow: 0, p: 0.1, stages: []),
    ]

    @Test("the small boards' search gives the generic search's moves, node counts and values", arguments: settings)
    func sameAsGeneric(setting: Setting) throws {
        var rng = Xoshiro256StarStar(seed: UInt64(setting.rows * 100 + setting.cols * 10 + setting.depth))
        var boards: [Board] = []
        while boards.count < setting.boards {
            let board = AfterstateTableTests.randomBoard(rows: setting.rows, cols: setting.cols, largest: 9, using: &rng)
            if !board.legalMoves.isEmpty { boards.append(board) }
        }
        let network = try Self.network(rows: setting.rows, cols: setting.cols, seed: 5, stages: setting.stages, boards: boards)
        var fast = Expectimax(
            evaluator: .network(network), depth: setting.depth, nodeBudget: setting.nodeBudget, pruneBelow: setting.pruneBelow,
            downgradeLimit: 15)
        var generic = Self.generic(fast)
        for board in boards {
            #expect(fast.smallBoardKey(of: board) != nil)
            let move = fast.bestAction(on: board, spawnFourProbability: setting.p)
            #expect(move == generic.bestAction(on: board, spawnFourProbability: setting.p), "\(board)")
            #expect(fast.nodes == generic.nodes && fast.searchedDepth == generic.searchedDepth, "\(board)")
            guard setting.nodeBudget == nil else { continue }
            let values = fast.actionValues(on: board, spawnFourProbability: setting.p)
            let reference = generic.actionValues(on: board, spawnFourProbability: setting.p)
            #expect(values.map(\.0) == reference.map(\.0))
            #expect(values.map(\.1.bitPattern) == reference.map(\.1.bitPattern), "\(board)")
        }
    }

    @Test("boards whose search could reach the downgrading limit or 2^15 take the generic search")
    func genericWhereTheKeyCouldOverflow() throws {
        let network = AfterstateTableTests.network(rows: 3, cols: 3, seed: 1)
        let board = try Board(rows: 3, cols: 3, exponents: [12, 12, 1, 0, 0, 0, 0, 0, 0])
        // Depth 1 makes two moves, which may make a 2^14: below a limit of 15, not below one of 14.
        #expect(Expectimax(evaluator: .network(network), depth: 1, downgradeLimit: 15).smallBoardKey(of: board) != nil)
        #expect(Expectimax(evaluator: .network(network), depth: 1, downgradeLimit: 14).smallBoardKey(of: board) == nil)
        // With no limit, depth 2's three moves may make 2^15, which four bits hold; depth 3's four may not.
        #expect(Expectimax(evaluator: .network(network), depth: 2, downgradeLimit: nil).smallBoardKey(of: board) != nil)
        #expect(Expectimax(evaluator: .network(network), depth: 3, downgradeLimit: nil).smallBoardKey(of: board) == nil)
        // Two 2^14 tiles merge to 2^15, which fits; two 2^15 would make a tile four bits cannot hold.
        for (exponents, fits): ([UInt8], Bool) in [
            ([14, 14, 1, 0, 0, 0, 0, 0, 0], true), ([15, 15, 1, 0, 0, 0, 0, 0, 0], false), ([16, 1, 0, 0, 0, 0, 0, 0, 0], false),
        ] {
            let big = try Board(rows: 3, cols: 3, exponents: exponents)
            var search = Expectimax(evaluator: .network(network), depth: 0, downgradeLimit: nil)
            var generic = Self.generic(search)
            #expect((search.smallBoardKey(of: big) != nil) == fits)
            #expect(search.bestAction(on: big, spawnFourProbability: 0.1) == generic.bestAction(on: big, spawnFourProbability: 0.1))
            #expect(search.actionValues(on: big, spawnFourProbability: 0.1).map(\.1) == generic.actionValues(on: big, spawnFourProbability: 0.1).map(\.1))
        }
        // The heuristic, a 4×4 network read from bitboards, and a board of another size never take it.
        #expect(Expectimax(evaluator: .heuristic, depth: 0).smallBoardKey(of: board) == nil)
        #expect(Expectimax(evaluator: .network(EvaluationPackedTests.network), depth: 0).small == nil)
        let wide = try Board(rows: 2, cols: 4, exponents: [1, 1, 0, 0, 0, 0, 0, 0])
        #expect(Expectimax(evaluator: .network(network), depth: 0).smallBoardKey(of: wide) == nil)
    }
}
