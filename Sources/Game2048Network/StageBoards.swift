/// How the stages of a multi-stage network past the first read their boards.
///
///     NTupleNetwork(rows: 4, cols: 4, stageThresholds: [14, 15], stageBoards: .downgraded)
///
/// With ``downgraded``, a board in a later stage is read as ``TileDowngrade`` values it from the first threshold:
/// tiles above its largest gap halved until no tile reaches that threshold. A board holding 16 384, 8 192 and 4 096
/// but no 2 048 reads the second stage's tables at the features of 8 192, 4 096 and 2 048. The stage is still the
/// real board's, so each stage has tables of its own; they just see the shapes the first stage learned.
///
/// Why: promotion (``NTupleNetwork/promote(toStage:)``) starts a stage as a copy of the one before, but a copy that
/// reads the real board meets a tile the first stage never held, whose weights are still the initial value, so
/// the stage starts from nothing the first stage knew. Read downgraded, the copy starts where tile-downgrading
/// search already plays well, valuing each board as the first stage values the board of the same shape, and the
/// stage's own games then teach it what differs, the larger scores ahead first.
public enum StageBoards: String, Sendable, CaseIterable {
    /// Every stage reads the board as it is.
    case plain
    /// A stage past the first reads the board downgraded from the first threshold.
    case downgraded

    /// The code a weights file stores (format version 6).
    var code: UInt8 {
        switch self {
        case .plain: 0
        case .downgraded: 1
        }
    }

    /// The reading stored as `code`, or `nil`.
    init?(code: UInt8) {
        guard let reading = StageBoards.allCases.first(where: { $0.code == code }) else { return nil }
        self = reading
    }
}
