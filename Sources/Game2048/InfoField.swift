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

/// A set of info fields as one bit each: what a step tests, where a `Set`'s lookups cost a hash each.
struct InfoFieldFlags: Sendable {
    private var bits: UInt16 = 0

    init(_ fields: Set<InfoField>) {
        for (bit, field) in InfoField.allCases.enumerated() where fields.contains(field) { bits |= 1 << bit }
    }

    /// Whether `field` is in the set.
    subscript(field: InfoField) -> Bool {
        bits & (1 << InfoField.allCases.firstIndex(of: field).unsafelyUnwrapped) != 0
    }
}
