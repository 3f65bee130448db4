import Testing
import Game2048
@testable import Game2048Network
@testable import Game2048Training

struct TemporalCoherenceTests {
    /// A 3×3 board whose eight images of the pattern {0, 1} all read different weights.
    static func distinctBoard() throws -> Board {
        var board = try Board(rows: 3, cols: 3)
        for cell in 0..<9 { board[cell] = UInt8(cell + 1) }
        return board
    }

    /// Three TC updates by hand: the rate is 1 while A = 0, then |E| / A of the errors before.
    @Test func eachWeightMovesByItsCoherenceTimesTheError() throws {
        let network = NTupleNetwork(rows: 3, cols: 3, patterns: [TuplePattern(cells: [0, 1])])
        let board = try Self.distinctBoard()
        let indices = network.featureIndices(of: board)
        #expect(Set(indices).count == 8)
        let accumulators = CoherenceAccumulators(count: network.weights.count)
        let step: Float = 0.5
        network.coherentUpdate(board, error: 2, step: step, accumulators: accumulators)  // rate 1: +1
        for index in indices {
            #expect(network.weights[index] == 1)
            #expect(accumulators.error(at: index) == 2 && accumulators.magnitude(at: index) == 2)
        }
        network.coherentUpdate(board, error: -1, step: step, accumulators: accumulators)  // rate 2/2: −0.5
        network.coherentUpdate(board, error: 3, step: step, accumulators: accumulators)  // rate 1/3: +0.5
        for index in indices {
            #expect(network.weights[index] == 1)
            #expect(accumulators.error(at: index) == 4 && accumulators.magnitude(at: index) == 6)
        }
        // Weights no feature reads are untouched.
        let untouched = (0..<network.weights.count).filter { !indices.contains($0) }
        #expect(untouched.allSatisfy { network.weights[$0] == 0 && accumulators.magnitude(at: $0) == 0 })
    }

    /// The packed 4×4 path gives the same TC step as the rule: twins share a weight, so it moves twice.
    @Test func packedUpdateFollowsTheSameRule() throws {
        let network = NTupleNetwork(rows: 4, cols: 4, patterns: [TuplePattern(cells: [0, 1])])
        #expect(network.readsBitboards)
        let accumulators = CoherenceAccumulators(count: network.weights.count)
        let board = try #require(Bitboard(try Board(rows: 4, cols: 4)))  // empty: all eight features read weight 0
        network.coherentUpdate(board, error: 4, step: 0.25, accumulators: accumulators)
        #expect(network.weights[0] == 8 && accumulators.error(at: 0) == 32 && accumulators.magnitude(at: 0) == 32)
        network.coherentUpdate(board, error: -4, step: 0.25, accumulators: accumulators)
        // E/A goes 32/32, 28/36, 24/40, … 0/64 over the eight updates: Σ rate × −1.
        var expected: Float = 8, e: Float = 32, a: Float = 32
        for _ in 0..<8 {
            expected += 0.25 * (abs(e) / a) * -4
            e -= 4
            a += 4
        }
        #expect(abs(network.weights[0] - expected) < 1e-5)
        #expect(accumulators.error(at: 0) == 0 && accumulators.magnitude(at: 0) == 64)
    }

    @Test func methodsKeepAccumulatorsOnlyForTC() throws {
        let rules = try Rules(rows: 3, cols: 3)
        let network = { NTupleNetwork(rows: 3, cols: 3) }
        let td = TDLearner(network: network(), rules: rules)
        #expect(td.accumulators == nil && !td.learnsByCoherence && !td.startCoherence())
        let tc = TDLearner(network: network(), rules: rules, method: .tc)
        #expect(tc.accumulators?.count == tc.network.weights.count && tc.learnsByCoherence)
        let switching = TDLearner(network: network(), rules: rules, method: .otdThenTC)
        #expect(switching.accumulators != nil && !switching.learnsByCoherence)
        #expect(switching.startCoherence() && switching.learnsByCoherence && !switching.startCoherence())
        #expect(TDLearner(network: network(), rules: rules, method: .otdThenTC, coherenceStarted: true).learnsByCoherence)
    }

    /// A TC game fills the accumulators; a TD game (and OTD+TC before its switch) leaves them at zero.
    @Test(arguments: [(LearningMethod.tc, true), (.otdThenTC, false)])
    func aGameFillsTheAccumulatorsOnlyInTC(method: LearningMethod, filled: Bool) throws {
        let learner = TDLearner(network: NTupleNetwork(rows: 3, cols: 3), rules: try Rules(rows: 3, cols: 3), method: method)
        var rng = Xoshiro256StarStar(seed: 5)
        learner.trainGame(using: &rng)
        let accumulators = try #require(learner.accumulators)
        let total = (0..<learner.network.weights.count).reduce(Float(0)) { $0 + accumulators.magnitude(at: $1) }
        #expect((total > 0) == filled)
    }

    /// TC learns on both board types and both schedules, and a seed gives the same weights twice.
    @Test(arguments: [(4, TDLearner.Schedule.forward), (4, .backward), (3, .forward), (3, .backward)])
    func tcTrainingIsDeterministicAndFinite(size: Int, schedule: TDLearner.Schedule) throws {
        func weights() throws -> [Float] {
            let network = NTupleNetwork(rows: size, cols: size, patterns: [TuplePattern(cells: [0, 1, 2])])
            let learner = TDLearner(network: network, rules: try Rules(rows: size, cols: size), schedule: schedule, method: .tc)
            var rng = Xoshiro256StarStar(seed: 11)
            for _ in 0..<20 { learner.trainGame(using: &rng) }
            return network.weights.values
        }
        let first = try weights()
        #expect(first.allSatisfy(\.isFinite) && first.contains { $0 != 0 })
        #expect(try weights() == first)
    }
}
