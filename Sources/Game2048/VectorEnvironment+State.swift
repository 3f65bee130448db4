/// A state refused by ``VectorEnvironment/restore(_:)``: which environment's, and why.
public struct VectorStateError: Error, Hashable, Sendable {
    /// The environment whose state was refused.
    public let index: Int
    /// Why it was refused.
    public let error: StateError
}

extension VectorStateError: CustomStringConvertible {
    public var description: String { "environment \(index): \(error)" }
}

extension VectorEnvironment {
    /// Each environment's state, in order (see ``EnvironmentState``).
    public var states: [EnvironmentState] { (0..<count).map { environment(at: $0).state } }

    /// Puts every environment in its state, as if each had played its way there. Each environment then
    /// reports its state as a reset does: its board, its info, reward 0 and `terminated` when it is over;
    /// under next-step autoreset an over environment is reset by the next step.
    ///
    /// - Throws: ``VectorStateError`` for the first state that contradicts the rules or itself; nothing
    ///   changes then.
    /// - Precondition: `states.count == count`.
    public mutating func restore(_ states: [EnvironmentState]) throws(VectorStateError) {
        try withOwnedBuffers { environments, buffers throws(VectorStateError) in try environments.restore(states, into: buffers) }
    }

    /// As ``restore(_:)``, the report written into caller-owned buffers.
    public mutating func restore(_ states: [EnvironmentState], into out: VectorStepBuffers) throws(VectorStateError) {
        precondition(states.count == count, "expected \(count) states, got \(states.count)")
        var episodes: [Episode] = []
        episodes.reserveCapacity(count)
        for (index, state) in states.enumerated() {
            do {
                episodes.append(try Environment.episode(of: state, limits: limits, rules: rules))
            } catch {
                throw VectorStateError(index: index, error: error)
            }
        }
        makeLanesUnique()
        clearFinals(out)
        let cells = rules.cellCount
        for (index, state) in states.enumerated() {
            let episode = episodes[index]
            if lanes.episodes[index].phase == .needsReset { lanes.unstarted -= 1 }
            lanes.generators[index] = state.generator
            lanes.episodes[index] = episode
            lanes.boards[index] = state.board
            if let packed = Bitboard(state.board), episode.highest < 15 { lanes.packed[index] = packed.rawValue }
            state.board.storeExponents(at: out.observations + index &* cells)
            write(index, afterstate: Board?.none, spawn: nil, invalid: false, cells: cells, to: out.info)
            out.rewards[index] = 0
            out.terminations[index] = episode.isOver
            out.truncations[index] = false
        }
    }
}
