/// How a `TDLearner` turns a TD error into weight changes.
///
///     TDLearner(network: network, rules: rules, method: .otdThenTC)
public enum LearningMethod: String, Sendable, CaseIterable {
    /// TD(0) with one learning rate α for every weight (Szubert & Jaśkowski 2014); with
    /// optimistic initial weights this is OTD (Guei et al. 2021).
    case td
    /// Temporal coherence learning (Jaśkowski 2018): each weight has its own rate, see ``CoherenceAccumulators``.
    case tc
    /// OTD first, then TC fine-tuning from a switch point of the run (Guei, Chen & Wu 2022).
    case otdThenTC = "otd+tc"

    /// The code a weights file stores.
    var code: UInt8 {
        switch self {
        case .td: 0
        case .tc: 1
        case .otdThenTC: 2
        }
    }

    /// The method stored as `code`, or `nil`.
    init?(code: UInt8) {
        guard let method = LearningMethod.allCases.first(where: { $0.code == code }) else { return nil }
        self = method
    }

    /// Whether the method keeps coherence accumulators.
    public var needsAccumulators: Bool { self != .td }
}
