import Game2048
import Testing
@testable import Game2048Network
@testable import Game2048Search

struct TileDowngradeTests {
    @Test("a board with a 32 768 tile and no 8192: the tiles above the gap are halved")
    func handMadeMapping() throws {
        let board = try Board(
            rows: 4, cols: 4,
            values: [
                32768, 16384, 4096, 2048,
                2, 4, 1024, 512,
                0, 2, 8, 0,
                0, 0, 0, 2,
            ])
        let expected = try Board(
            rows: 4, cols: 4,
            values: [
                16384, 8192, 4096, 2048,
                2, 4, 1024, 512,
                0, 2, 8, 0,
                0, 0, 0, 2,
            ])
        #expect(TileDowngrade.downgraded(board, from: 15) == expected)
        #expect(TileDowngrade.downgraded(try #require(Bitboard(board)), from: 15) == Bitboard(expected))
        // Below the limit nothing changes.
        #expect(TileDowngrade.downgraded(expected, from: 15) == expected)
        #expect(TileDowngrade.downgraded(try #require(Bitboard(expected)), from: 15) == Bitboard(expected))
    }

    @Test("the gap is closed again until the board is under the limit")
    func repeatsWhileAboveTheLimit() throws {
        // 65536 with 16384 and 8192 missing: twice halved (largest gap first), to 16384, 4096 → 4096.
        let board = try Board(rows: 4, cols: 4, values: [65536, 32768, 4096, 2] + Array(repeating: 0, count: 12))
        let expected = try Board(rows: 4, cols: 4, values: [16384, 8192, 4096, 2] + Array(repeating: 0, count: 12))
        #expect(TileDowngrade.downgraded(board, from: 15) == expected)
    }

    @Test("without a gap there is nothing to downgrade")
    func noGap() throws {
        let values = (1...15).map { 1 << $0 } + [0]
        let board = try Board(rows: 4, cols: 4, values: values)
        #expect(TileDowngrade.downgraded(board, from: 15) == board)
        #expect(TileDowngrade.downgraded(try #require(Bitboard(board)), from: 15) == Bitboard(board))
    }

    @Test("packed and generic downgrades agree on random boards", arguments: [UInt8(12), 14, 15])
    func packedMatchesGeneric(limit: UInt8) throws {
        var rng = Xoshiro256StarStar(seed: UInt64(limit))
        for _ in 0..<300 {
            let board = NTupleNetworkTests.randomPackedBoard(&rng)
            let packed = try #require(Bitboard(board))
            #expect(TileDowngrade.holds(packed.rawValue, atLeast: limit) == (board.maxExponent >= limit))
            #expect(Board(TileDowngrade.downgraded(packed, from: limit)) == TileDowngrade.downgraded(board, from: limit), "\(board)")
        }
    }

    /// The rule in its own words, slowly: while a tile at `limit` or above is left, find the largest
    /// exponent below the largest tile that no cell holds, and halve every tile above it.
    static func reference(_ board: Board, from limit: UInt8) -> Board {
        var board = board
        while board.maxExponent >= limit {
            let held = (0..<board.cellCount).map { board[$0] }
            guard let gap = (1..<max(board.maxExponent, 1)).reversed().first(where: { !held.contains($0) }) else { break }
            for cell in 0..<board.cellCount where board[cell] > gap { board[cell] -= 1 }
        }
        return board
    }

    @Test("both downgrades follow the rule on random boards and limits, 4×4 and 3×5", arguments: [UInt8(1), 3, 8, 13])
    func matchesTheRule(lowestLimit: UInt8) throws {
        var rng = Xoshiro256StarStar(seed: UInt64(lowestLimit) &+ 100)
        var changed = 0
        for round in 0..<400 {
            let limit = lowestLimit &+ UInt8(round % 4)
            let board = NTupleNetworkTests.randomPackedBoard(&rng)
            let expected = Self.reference(board, from: limit)
            if expected != board { changed += 1 }
            #expect(TileDowngrade.downgraded(board, from: limit) == expected, "\(board) from \(limit)")
            #expect(Board(TileDowngrade.downgraded(try #require(Bitboard(board)), from: limit)) == expected, "\(board) from \(limit)")
            // A wider board, with exponents past the packed range.
            var wide = try Board(rows: 3, cols: 5)
            for cell in 0..<15 { wide[cell] = UInt8(rng.next() % 17) }
            #expect(TileDowngrade.downgraded(wide, from: limit) == Self.reference(wide, from: limit), "\(wide) from \(limit)")
        }
        // The boards must exercise the rule, not only pass through unchanged.
        #expect(changed > 40)
    }

    @Test("the network values a downgraded afterstate when the search downgrades")
    func searchUsesTheDowngradedValue() throws {
        // A small network with random weights, so that the two boards surely differ in value.
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: [TuplePattern(cells: [0, 1, 2])])
        NTupleNetworkTests.randomize(network, seed: 3)
        let board = try Board(rows: 4, cols: 4, values: [32768, 16384, 4096, 2048] + Array(repeating: 0, count: 12))
        var on = Expectimax(evaluator: .network(network), depth: 0, downgradeLimit: 15)
        var off = Expectimax(evaluator: .network(network), depth: 0)
        #expect(on.generic.space.evaluate(board) == network.value(of: TileDowngrade.downgraded(board, from: 15)))
        #expect(off.generic.space.evaluate(board) == network.value(of: board))
        #expect(on.generic.space.evaluate(board) != off.generic.space.evaluate(board))
        _ = (on.bestAction(on: board, spawnFourProbability: 0.1), off.bestAction(on: board, spawnFourProbability: 0.1))
    }
}
