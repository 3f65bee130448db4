/// The result buffers a ``VectorEnvironment`` owns: every column of ``VectorStepBuffers``, as arrays.
struct VectorResults: Sendable {
    var observations: [UInt8]
    var rewards: [Int64]
    var terminations: [Bool]
    var truncations: [Bool]
    var info: VectorInfoColumns
    var finals: [Bool]
    var finalObservations: [UInt8]
    var finalInfo: VectorInfoColumns

    /// No buffers: what an environment holds while it lends its own out.
    static let none = VectorResults(count: 0, cells: 0)

    /// Buffers for `count` environments of `cells` cells, holding the state before any reset.
    init(count: Int, cells: Int) {
        observations = Array(repeating: 0, count: count * cells)
        rewards = Array(repeating: 0, count: count)
        terminations = Array(repeating: false, count: count)
        truncations = Array(repeating: false, count: count)
        info = VectorInfoColumns(count: count, cells: cells)
        finals = Array(repeating: false, count: count)
        finalObservations = Array(repeating: 0, count: count * cells)
        finalInfo = VectorInfoColumns(count: count, cells: cells)
    }

    /// Lends every column to `body` as ``VectorStepBuffers``, the info columns of `fields` only, and
    /// the final columns only when `finals` is true: outside same-step autoreset they stay as
    /// they are (all false and zero), and a step does not spend a pass over each to say so.
    mutating func withBuffers<R>(fields: InfoFieldFlags, finals keepsFinals: Bool, _ body: (VectorStepBuffers) -> R) -> R {
        observations.withUnsafeMutableBufferPointer { observations in
            rewards.withUnsafeMutableBufferPointer { rewards in
                terminations.withUnsafeMutableBufferPointer { terminations in
                    truncations.withUnsafeMutableBufferPointer { truncations in
                        finals.withUnsafeMutableBufferPointer { finals in
                            finalObservations.withUnsafeMutableBufferPointer { finalObservations in
                                info.withBuffers(fields: fields) { info in
                                    finalInfo.withBuffers(fields: keepsFinals ? fields : InfoFieldFlags([])) { finalInfo in
                                        body(
                                            VectorStepBuffers(
                                                observations: observations.baseAddress.unsafelyUnwrapped,
                                                rewards: rewards.baseAddress.unsafelyUnwrapped,
                                                terminations: terminations.baseAddress.unsafelyUnwrapped,
                                                truncations: truncations.baseAddress.unsafelyUnwrapped,
                                                info: info, finals: keepsFinals ? finals.baseAddress : nil,
                                                finalObservations: keepsFinals ? finalObservations.baseAddress : nil,
                                                finalInfo: finalInfo))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The info of every environment of a ``VectorEnvironment``, one array per field of ``StepInfo``:
/// what ``VectorInfoBuffers`` describes, owned by the environment.
public struct VectorInfoColumns: Sendable {
    /// ``StepInfo/actionMask``: bit `i` set when action `i` is legal.
    public internal(set) var actionMasks: [UInt8]
    /// ``StepInfo/score``.
    public internal(set) var scores: [Int64]
    /// ``StepInfo/maxTile``.
    public internal(set) var maxTiles: [Int64]
    /// ``StepInfo/steps``.
    public internal(set) var steps: [Int64]
    /// ``StepInfo/invalid``.
    public internal(set) var invalid: [Bool]
    /// ``StepInfo/won``.
    public internal(set) var won: [Bool]
    /// ``StepInfo/afterstate``: `rows × cols` exponents per environment, all zero when there is none.
    public internal(set) var afterstates: [UInt8]
    /// ``StepInfo/spawn``'s cell, -1 when nothing spawned.
    public internal(set) var spawnCells: [Int8]
    /// ``StepInfo/spawn``'s exponent, 0 when nothing spawned.
    public internal(set) var spawnExponents: [UInt8]

    init(count: Int, cells: Int) {
        actionMasks = Array(repeating: 0, count: count)
        scores = Array(repeating: 0, count: count)
        maxTiles = Array(repeating: 0, count: count)
        steps = Array(repeating: 0, count: count)
        invalid = Array(repeating: false, count: count)
        won = Array(repeating: false, count: count)
        afterstates = Array(repeating: 0, count: count * cells)
        spawnCells = Array(repeating: -1, count: count)
        spawnExponents = Array(repeating: 0, count: count)
    }

    /// The info of environment `index`, rebuilt from the columns of `fields`; a field not there
    /// reads as it does after a reset (empty mask, 0, no afterstate, no spawn, false).
    func info(at index: Int, fields: Set<InfoField>, cells: Int, rules: Rules) -> StepInfo {
        var board: Board?
        if fields.contains(.afterstate) {
            let afterstate = afterstates[(index * cells)..<((index + 1) * cells)]
            if afterstate.contains(where: { $0 != 0 }) {
                var cellsBoard = Board(rules: rules)
                for (cell, exponent) in afterstate.enumerated() { cellsBoard.storage[cell] = exponent }
                board = cellsBoard
            }
        }
        return StepInfo(
            actionMask: ActionMask(rawValue: actionMasks[index]), score: scores[index], maxTile: Int(maxTiles[index]),
            steps: Int(steps[index]), afterstate: board,
            spawn: spawnCells[index] < 0 ? nil : Spawn(cell: Int(spawnCells[index]), exponent: spawnExponents[index]),
            invalid: invalid[index], won: won[index])
    }

    /// Lends the columns of `fields` to `body` as ``VectorInfoBuffers`` (`nil` for the others).
    mutating func withBuffers<R>(fields: InfoFieldFlags, _ body: (VectorInfoBuffers) -> R) -> R {
        actionMasks.withUnsafeMutableBufferPointer { actionMasks in
            scores.withUnsafeMutableBufferPointer { scores in
                maxTiles.withUnsafeMutableBufferPointer { maxTiles in
                    steps.withUnsafeMutableBufferPointer { steps in
                        invalid.withUnsafeMutableBufferPointer { invalid in
                            won.withUnsafeMutableBufferPointer { won in
                                afterstates.withUnsafeMutableBufferPointer { afterstates in
                                    spawnCells.withUnsafeMutableBufferPointer { spawnCells in
                                        spawnExponents.withUnsafeMutableBufferPointer { spawnExponents in
                                            let spawns = fields[.spawn]
                                            return body(
                                                VectorInfoBuffers(
                                                    actionMasks: fields[.actionMask] ? actionMasks.baseAddress : nil,
                                                    scores: fields[.score] ? scores.baseAddress : nil,
                                                    maxTiles: fields[.maxTile] ? maxTiles.baseAddress : nil,
                                                    steps: fields[.steps] ? steps.baseAddress : nil,
                                                    invalid: fields[.invalid] ? invalid.baseAddress : nil,
                                                    won: fields[.won] ? won.baseAddress : nil,
                                                    afterstates: fields[.afterstate] ? afterstates.baseAddress : nil,
                                                    spawnCells: spawns ? spawnCells.baseAddress : nil,
                                                    spawnExponents: spawns ? spawnExponents.baseAddress : nil))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
