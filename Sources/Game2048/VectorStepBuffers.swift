/// Where a ``VectorEnvironment`` writes the info of each environment: one column per field,
/// `count` entries each (`count × rows × cols` for afterstates). A `nil` column is not written, so a
/// caller pays only for the fields it reads.
///
/// The columns are the fields of ``StepInfo``, flattened for a caller that keeps them in plain
/// arrays (numpy, C): an absent afterstate (after a reset) is an all-zero board, which a real
/// afterstate never is; an absent spawn is cell -1 and exponent 0.
@frozen
public struct VectorInfoBuffers {
    /// ``StepInfo/actionMask``: bit `i` set when action `i` is legal.
    public var actionMasks: UnsafeMutablePointer<UInt8>?
    /// ``StepInfo/score``.
    public var scores: UnsafeMutablePointer<Int64>?
    /// ``StepInfo/maxTile``.
    public var maxTiles: UnsafeMutablePointer<Int64>?
    /// ``StepInfo/steps``.
    public var steps: UnsafeMutablePointer<Int64>?
    /// ``StepInfo/invalid``.
    public var invalid: UnsafeMutablePointer<Bool>?
    /// ``StepInfo/won``.
    public var won: UnsafeMutablePointer<Bool>?
    /// ``StepInfo/afterstate``: `rows × cols` exponents per environment, all zero when there is none.
    public var afterstates: UnsafeMutablePointer<UInt8>?
    /// ``StepInfo/spawn``'s cell, -1 when nothing spawned.
    public var spawnCells: UnsafeMutablePointer<Int8>?
    /// ``StepInfo/spawn``'s exponent (1 for a 2, 2 for a 4), 0 when nothing spawned.
    public var spawnExponents: UnsafeMutablePointer<UInt8>?
    /// ``StepInfo/actionMask`` as `count × 4` bytes, 1 where the action is legal: the layout an
    /// action-masking policy reads (a numpy `(count, 4)` array), written without a pass to unpack bits.
    public var legalActions: UnsafeMutablePointer<UInt8>?

    /// Columns for the fields given; the others are not written.
    @inlinable
    public init(
        actionMasks: UnsafeMutablePointer<UInt8>? = nil, scores: UnsafeMutablePointer<Int64>? = nil,
        maxTiles: UnsafeMutablePointer<Int64>? = nil, steps: UnsafeMutablePointer<Int64>? = nil,
        invalid: UnsafeMutablePointer<Bool>? = nil, won: UnsafeMutablePointer<Bool>? = nil,
        afterstates: UnsafeMutablePointer<UInt8>? = nil, spawnCells: UnsafeMutablePointer<Int8>? = nil,
        spawnExponents: UnsafeMutablePointer<UInt8>? = nil, legalActions: UnsafeMutablePointer<UInt8>? = nil
    ) {
        (self.actionMasks, self.scores, self.maxTiles, self.steps) = (actionMasks, scores, maxTiles, steps)
        (self.invalid, self.won, self.afterstates, self.spawnCells) = (invalid, won, afterstates, spawnCells)
        (self.spawnExponents, self.legalActions) = (spawnExponents, legalActions)
    }
}

/// Where a ``VectorEnvironment`` writes the results of a reset or a step: memory the caller owns
/// (an in-process binding's numpy arrays, a C program's buffers), so nothing is copied on the way.
///
/// Every pointer must address `count` entries (`count × rows × cols` for boards), stay valid for
/// the call, and not overlap another. The environment writes every entry of every non-`nil` column
/// on each call and reads none of them back.
@frozen
public struct VectorStepBuffers {
    /// The observations: `count × rows × cols` exponents, environment-major, row-major.
    public var observations: UnsafeMutablePointer<UInt8>
    /// The rewards (0 after a reset).
    public var rewards: UnsafeMutablePointer<Int64>
    /// Whether each episode terminated (after a reset: whether it is over at once).
    public var terminations: UnsafeMutablePointer<Bool>
    /// Whether each episode was truncated.
    public var truncations: UnsafeMutablePointer<Bool>
    /// The info columns the caller wants.
    public var info: VectorInfoBuffers
    /// Under `AutoresetMode.sameStep`: which environments ended and restarted during the step.
    /// Like the other final columns, written on every call when given (all false, zero, and spawn
    /// cell -1, outside same-step autoreset and after a reset).
    public var finals: UnsafeMutablePointer<Bool>?
    /// Under `AutoresetMode.sameStep`: the final observation of each environment that ended,
    /// all zero for the others.
    public var finalObservations: UnsafeMutablePointer<UInt8>?
    /// Under `AutoresetMode.sameStep`: the info of the final step of each environment that ended
    /// (zero, and spawn cell -1, for the others).
    public var finalInfo: VectorInfoBuffers

    /// Buffers for the results and the columns given.
    @inlinable
    public init(
        observations: UnsafeMutablePointer<UInt8>, rewards: UnsafeMutablePointer<Int64>,
        terminations: UnsafeMutablePointer<Bool>, truncations: UnsafeMutablePointer<Bool>,
        info: VectorInfoBuffers = VectorInfoBuffers(), finals: UnsafeMutablePointer<Bool>? = nil,
        finalObservations: UnsafeMutablePointer<UInt8>? = nil, finalInfo: VectorInfoBuffers = VectorInfoBuffers()
    ) {
        (self.observations, self.rewards, self.terminations) = (observations, rewards, terminations)
        (self.truncations, self.info, self.finals, self.finalObservations) = (truncations, info, finals, finalObservations)
        self.finalInfo = finalInfo
    }
}
