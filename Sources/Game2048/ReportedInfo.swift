/// One member of the `info` a step or reset reports: a field of ``StepInfo``, or the tile movements of the
/// move (`moves`, ``Environment/movements(_:)``), which only the protocol reports.
///
/// The `info` option lists these by name (``rawValue``); the encoder switches over them exhaustively, so a new
/// field is a compile error wherever it must be written.
public enum ReportedInfo: Hashable, Sendable, CaseIterable, RawRepresentable {
    /// A field the environment records.
    case field(InfoField)
    /// The tile movements of the move (`from`, `to`, `merged`), for animations.
    case moves

    /// Every member, in the order an info object lists them: the environment's fields, then `moves`.
    public static let allCases: [ReportedInfo] = InfoField.allCases.map(ReportedInfo.field) + [.moves]

    /// Reported unless `info` says otherwise: every field but the tile movements.
    public static let defaults: [ReportedInfo] = InfoField.allCases.map(ReportedInfo.field)

    /// The name in the protocol (`action_mask`, `moves`).
    public var rawValue: String {
        switch self {
        case .field(let field): field.rawValue
        case .moves: "moves"
        }
    }

    /// The member named `rawValue`, if there is one.
    public init?(rawValue: String) {
        guard let member = ReportedInfo.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = member
    }

    /// The environment's field, or `nil` for `moves`.
    public var field: InfoField? {
        if case .field(let field) = self { field } else { nil }
    }
}
