import Game2048
import Testing
@testable import Game2048Search

/// The packed search against its oracle, the generic ``Expectimax`` over ``Board``.
struct PackedExpectimaxTests {
    /// A 4×4 board with about half its cells filled with 2 … 2048, and sometimes a 32 768 tile
    /// (so that tile-downgrading has something to do).
    static func randomBoard(_ rng: inout Xoshiro256StarStar) -> Board {
        var board = try! Board(rows: 4, cols: 4)
        for cell in 0..<16 where rng.uniform(below: 2) == 0 { board[cell] = UInt8(1 + rng.uniform(below: 11)) }
        if rng.uniform(below: 4) == 0 { board[0] = 15 }
        return board
    }

    /// The same search with the packed path taken away.
    static func generic(_ search: Expectimax) -> Expectimax {
        var generic = search
        generic.packed = nil
        return generic
    }

    struct Setting: CustomTestStringConvertible, Sendable {
        var depth: Int, nodeBudget: Int?, pruneBelow: Double, downgradeLimit: UInt8?, boards: Int
        var testDescription: String {
            "depth \(depth), budget \(nodeBudget.map(String.init) ?? "none"), prune \(pruneBelow), downgrade \(downgradeLimit.map(String.init) ?? "off")"
        }
    }

    static let settings: [Setting] = [
        Setting(depth: 0, nodeBudget: nil, pruneBelow: 0, downgradeLimit: nil, boards: 60),
        Setting(depth: 1, nodeBudget: nil, pruneBelow: 0, downgradeLimit: nil, boards: 40),
        Setting(depth: 1, nodeBudget: nil, pruneBelow: 0, downgradeLimit: 15, boards: 40),
        Setting(depth: 1, nodeBudget: nil, pruneBelow: 0.01, downgradeLimit: 15, boards: 40),
        Setting(depth: 2, nodeBudget: 3_000, pruneBelow: 0, downgradeLimit: nil, boards: 8),
        Setting(depth: 2, nodeBudget: nil, pruneBelow: 0.002, downgradeLimit: 15, boards: 6),
    ]

    @Test("the packed search gives the generic search's values, moves and node counts", arguments: settings)
    func sameAsGeneric(setting: Setting) throws {
        var rng = Xoshiro256StarStar(seed: UInt64(setting.depth * 100 + setting.boards))
        var packed = Expectimax(
            evaluator: .network(EvaluationPackedTests.network), depth: setting.depth,
            nodeBudget: setting.nodeBudget, pruneBelow: setting.pruneBelow, downgradeLimit: setting.downgradeLimit)
        var generic = Self.generic(packed)
        var compared = 0
        while compared < setting.boards {
            let board = Self.randomBoard(&rng)
            guard !board.legalMoves.isEmpty else { continue }
            compared += 1
            #expect(packed.packedBoard(of: board) != nil)
            let fast = packed.bestAction(on: board, spawnFourProbability: 0.1)
            let reference = generic.bestAction(on: board, spawnFourProbability: 0.1)
            #expect(fast == reference, "\(board)")
            #expect(packed.nodes == generic.nodes && packed.searchedDepth == generic.searchedDepth, "\(board)")
            guard setting.nodeBudget == nil else { continue }
            let fastValues = packed.actionValues(on: board, spawnFourProbability: 0.1)
            let referenceValues = generic.actionValues(on: board, spawnFourProbability: 0.1)
            #expect(fastValues.map(\.0) == referenceValues.map(\.0))
            for (a, b) in zip(fastValues.map(\.1), referenceValues.map(\.1)) {
                #expect(abs(a - b) <= 1e-3 * max(1, abs(b)), "\(board)")
            }
        }
    }

    @Test("only 2s or only 4s: the packed spawns skip the impossible tile as the generic ones do", arguments: [0.0, 1.0])
    func sameAsGenericWithOneTile(spawnFourProbability p: Double) {
        var rng = Xoshiro256StarStar(seed: 11)
        var packed = Expectimax(evaluator: .network(EvaluationPackedTests.network), depth: 1)
        var generic = Self.generic(packed)
        var compared = 0
        while compared < 20 {
            let board = Self.randomBoard(&rng)
            guard !board.legalMoves.isEmpty else { continue }
            compared += 1
            #expect(packed.bestAction(on: board, spawnFourProbability: p) == generic.bestAction(on: board, spawnFourProbability: p))
            #expect(packed.nodes == generic.nodes, "\(board)")
            let fast = packed.actionValues(on: board, spawnFourProbability: p)
            let reference = generic.actionValues(on: board, spawnFourProbability: p)
            #expect(fast.map(\.0) == reference.map(\.0))
            for (a, b) in zip(fast.map(\.1), reference.map(\.1)) { #expect(abs(a - b) <= 1e-3 * max(1, abs(b)), "\(board)") }
        }
    }

    @Test("boards the packed board cannot search safely take the generic search")
    func genericWhereThePackedBoardDoesNotFit() throws {
        let search = Expectimax(evaluator: .network(EvaluationPackedTests.network), depth: 2)
        // Two 32 768 tiles could merge into a tile four bits cannot hold.
        let twoLimitTiles = try Board(rows: 4, cols: 4, values: [32768, 32768, 2, 4] + Array(repeating: 0, count: 12))
        #expect(search.packedBoard(of: twoLimitTiles) == nil)
        let sixtyFiveK = try Board(rows: 4, cols: 4, values: [65536, 2] + Array(repeating: 0, count: 14))
        #expect(search.packedBoard(of: sixtyFiveK) == nil)
        #expect(search.packedBoard(of: try Board(rows: 4, cols: 4, values: [32768, 2] + Array(repeating: 0, count: 14))) != nil)
        // Heuristics and other sizes never do.
        let heuristic = Expectimax(evaluator: .heuristic, depth: 1)
        #expect(heuristic.packedBoard(of: ExpectimaxTests.midGame) == nil)
        var generic = search
        #expect(generic.bestAction(on: twoLimitTiles, spawnFourProbability: 0.1) != nil)
    }

    @Test("pruning visits fewer nodes and stays deterministic")
    func pruningSavesNodes() {
        var full = Expectimax(evaluator: .network(EvaluationPackedTests.network), depth: 2)
        // Ten empty cells after most moves: a 4 on one of them (0.01) is pruned, a 2 (0.09) is not.
        var pruned = Expectimax(evaluator: .network(EvaluationPackedTests.network), depth: 2, pruneBelow: 0.05)
        var again = pruned
        _ = full.bestAction(on: ExpectimaxTests.midGame, spawnFourProbability: 0.1)
        let move = pruned.bestAction(on: ExpectimaxTests.midGame, spawnFourProbability: 0.1)
        #expect(pruned.nodes < full.nodes)
        #expect(again.bestAction(on: ExpectimaxTests.midGame, spawnFourProbability: 0.1) == move)
        #expect(again.nodes == pruned.nodes)
    }
}
