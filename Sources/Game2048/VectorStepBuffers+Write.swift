extension VectorStepBuffers {
    /// Writes one environment's result, a reset's or a step's, as entry `index` of every column given:
    /// how a single ``Environment`` reports into the same caller-owned buffers as a ``VectorEnvironment``.
    ///
    ///     let start = environment.reset(seed: 42)
    ///     buffers.write(observation: start.observation, reward: 0, terminated: environment.isOver,
    ///                   truncated: false, info: start.info, at: 0)
    ///
    /// - Precondition: every column has room for entry `index`.
    public func write(observation: Board, reward: Int64, terminated: Bool, truncated: Bool, info: StepInfo, at index: Int) {
        let cells = observation.cellCount
        observation.storeExponents(at: observations + index * cells)
        rewards[index] = reward
        terminations[index] = terminated
        truncations[index] = truncated
        self.info.write(info, at: index, cells: cells)
    }

    /// Clears the same-step columns of `count` environments of `cells` cells: no environment has a final
    /// result (only same-step autoreset makes them), and spawn cells are -1.
    public func clearFinals(count: Int, cells: Int) {
        finals?.initialize(repeating: false, count: count)
        finalObservations?.initialize(repeating: 0, count: count * cells)
        let info = finalInfo
        info.actionMasks?.initialize(repeating: 0, count: count)
        info.scores?.initialize(repeating: 0, count: count)
        info.maxTiles?.initialize(repeating: 0, count: count)
        info.steps?.initialize(repeating: 0, count: count)
        info.invalid?.initialize(repeating: false, count: count)
        info.won?.initialize(repeating: false, count: count)
        info.afterstates?.initialize(repeating: 0, count: count * cells)
        info.spawnCells?.initialize(repeating: -1, count: count)
        info.spawnExponents?.initialize(repeating: 0, count: count)
        info.legalActions?.initialize(repeating: 0, count: count * 4)
    }
}

extension VectorInfoBuffers {
    /// Writes `info` as entry `index` of every column given (an absent afterstate is an all-zero board,
    /// an absent spawn cell -1 and exponent 0, as ``VectorInfoBuffers`` documents).
    public func write(_ info: StepInfo, at index: Int, cells: Int) {
        actionMasks?[index] = info.actionMask.rawValue
        scores?[index] = info.score
        maxTiles?[index] = Int64(info.maxTile)
        steps?[index] = Int64(info.steps)
        invalid?[index] = info.invalid
        won?[index] = info.won
        if let afterstates {
            if let afterstate = info.afterstate {
                afterstate.storeExponents(at: afterstates + index * cells)
            } else {
                (afterstates + index * cells).initialize(repeating: 0, count: cells)
            }
        }
        spawnCells?[index] = Int8(truncatingIfNeeded: info.spawn?.cell ?? -1)
        spawnExponents?[index] = info.spawn?.exponent ?? 0
        if let legalActions { info.actionMask.storeBytes(at: legalActions + index * 4) }
    }
}
