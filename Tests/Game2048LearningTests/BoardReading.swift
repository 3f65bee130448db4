import Game2048

@testable import Game2048Network

/// A ``ValueFunction`` on `Board` that reads a 4×4 network through its packed value function
/// whenever the board packs, and cell by cell otherwise: the generic board of the differential tests.
/// The training loop on it makes moves, spawns and checks on `Board`s, while its values are the very
/// Floats of the packed path, so games and weights must come out the same as on `Bitboard`.
///
/// It is also the proof that a new kind of value function is one conformance: nothing else changes.
struct BoardReading: ValueFunction {
    let network: NTupleNetwork

    init(_ network: NTupleNetwork) {
        self.network = network
    }

    func forEachFeature(of board: Board, _ body: (Int) -> Void) {
        network.forEachFeature(of: board, body)
    }

    func value(of board: Board) -> Float {
        network.value(of: board)
    }

    func learn(_ board: Board, toward target: Float, step: Float, accumulators: CoherenceAccumulators?) {
        guard let packed = network.packed(board) else {
            return CellTupleValue(network).learn(board, toward: target, step: step, accumulators: accumulators)
        }
        network.learn(packed, toward: target, step: step, accumulators: accumulators)
    }

    func prefetch(_ board: Board) {}
}
