import Testing
@testable import Game2048

struct GameBoardTests {
    /// The documentation's greedy agent, written once against the protocol.
    static func greedyMove(on board: some GameBoard) -> Direction? {
        board.legalMoves.directions.max { board.moved($0).reward < board.moved($1).reward }
    }

    /// A whole greedy game through the protocol: the sequence of (move, reward, spawn).
    static func play<G: GameBoard>(_ start: G, seed: UInt64, unpack: (G) -> Board) -> [String] {
        var rng = Xoshiro256StarStar(seed: seed)
        var grid = start
        var log: [String] = []
        let threshold = bernoulliThreshold(probability: 0.1)
        // Bounded, so that a mask that never empties fails rather than hangs.
        while let direction = greedyMove(on: grid), log.count < 10_000 {
            let outcome = grid.moved(direction)
            grid = outcome.afterstate
            let spawn = grid.spawnRandomTile(fourThreshold: threshold, using: &rng)
            log.append("\(direction) \(outcome.reward) \(String(describing: spawn)) \(unpack(grid).exponents)")
        }
        return log
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func boardAndBitboardPlayTheSameGameThroughTheProtocol(seed: UInt64) throws {
        var rng = Xoshiro256StarStar(seed: seed)
        var start = try Board(rows: 4, cols: 4)
        start.spawnRandomTile(fourThreshold: 0, using: &rng)
        start.spawnRandomTile(fourThreshold: 0, using: &rng)
        let generic = Self.play(start, seed: seed) { $0 }
        let packed = Self.play(try #require(Bitboard(start)), seed: seed) { Board($0) }
        #expect(generic.count > 20)
        #expect(generic == packed)
    }

    @Test func protocolExposesTheSameCells() throws {
        let b = board(4, 4, [2, 0, 4, 8, 0, 16, 0, 0, 32, 0, 0, 64, 0, 0, 128, 0])
        let packed = try #require(Bitboard(b))
        func cells(_ g: some GameBoard) -> [UInt8] { (0..<(g.rows * g.cols)).map { g[$0] } }
        #expect(cells(b) == cells(packed))
        #expect(cells(b) == b.exponents)
    }
}
