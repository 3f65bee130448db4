/// A field of ``StepInfo``, by the name the protocol, the C ABI and the Python package give it.
///
/// A ``VectorEnvironment`` records the fields it is asked for (``VectorEnvironment/infoFields``):
/// each costs a write per environment per step.
public enum InfoField: String, Hashable, Sendable, CaseIterable {
    /// ``StepInfo/actionMask``.
    case actionMask = "action_mask"
    /// ``StepInfo/score``.
    case score
    /// ``StepInfo/maxTile``.
    case maxTile = "max_tile"
    /// ``StepInfo/steps``.
    case steps
    /// ``StepInfo/afterstate``.
    case afterstate
    /// ``StepInfo/spawn``.
    case spawn
    /// ``StepInfo/invalid``.
    case invalid
    /// ``StepInfo/won``.
    case won
}
