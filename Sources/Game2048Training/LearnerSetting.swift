// The settings a learner takes, each declared once with what it accepts: `g2048 train` names its flags after them,
// the C ABI's `g2048_learner_make` reads its options through them and `g2048_learner_settings` lists them for the
// flags of other languages' drivers (Python's `ray_train`).
import Game2048
import Game2048Network

/// One setting of a learner: a `g2048 train` flag's name with underscores, and the values it accepts (a setting's
/// own decisions, such as a network's name or a stage list, are `TrainingRequest`'s).
public struct LearnerSetting: Sendable {
    /// What a setting's value is.
    public enum Kind: Sendable {
        /// An integer in the range.
        case integer(ClosedRange<Int128>)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// One of the names.
        case choice([String])
        /// Any string.
        case text
    }

    /// The setting's name: a `g2048 train` flag with underscores (`tc_alpha` is `--tc-alpha`).
    public let name: String
    /// The values it accepts.
    public let kind: Kind

    /// A setting named `name` that accepts `kind`.
    public init(_ name: String, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// An integer setting in `range`.
    public static func integers<Integer: FixedWidthInteger>(_ name: String, _ range: ClosedRange<Integer>) -> LearnerSetting {
        LearnerSetting(name, .integer(Int128(range.lowerBound)...Int128(range.upperBound)))
    }

    /// A choice among the raw values of `Choice`.
    public static func choice<Choice: CaseIterable & RawRepresentable<String>>(_ name: String, of _: Choice.Type) -> LearnerSetting {
        LearnerSetting(name, .choice(Choice.allCases.map(\.rawValue)))
    }

    /// A board size, in the range its rules option declares.
    public static func boardSize(_ option: RulesOption) -> LearnerSetting {
        guard case .integer(let range, _) = option.constraint else { preconditionFailure("\(option.name) is no board size") }
        return integers(option.name, range)
    }
}

/// Every setting, named once: read by `g2048 train`'s flags and by `g2048_learner_make`'s options.
extension LearnerSetting {
    /// `--rows`.
    public static let rows = boardSize(RulesOption.rows)
    /// `--cols`.
    public static let cols = boardSize(RulesOption.cols)
    /// `--network`.
    public static let network = LearnerSetting("network", .text)
    /// `--patterns`.
    public static let patterns = LearnerSetting("patterns", .text)
    /// `--stages`.
    public static let stages = LearnerSetting("stages", .text)
    /// `--alpha`.
    public static let alpha = LearnerSetting("alpha", .number(TrainingRequest.learningRates))
    /// `--optimistic`.
    public static let optimistic = LearnerSetting("optimistic", .number(TrainingRequest.optimisms))
    /// `--stage-boards`.
    public static let stageBoards = choice("stage_boards", of: StageBoards.self)
    /// `--learning`.
    public static let learning = choice("learning", of: LearningMethod.self)
    /// `--tc-alpha`.
    public static let coherenceAlpha = LearnerSetting("tc_alpha", .number(TrainingRequest.learningRates))
    /// `--tc-from`.
    public static let coherenceFrom = LearnerSetting("tc_from", .number(TrainingRequest.fractions))
    /// `--table-share`.
    public static let tableShare = LearnerSetting("table_share", .number(TrainingRequest.fractions))
    /// `--table-learning`.
    public static let tableLearning = choice("table_learning", of: TableLearning.self)
    /// `--update`.
    public static let update = choice("update", of: TDLearner.Schedule.self)
    /// `--restart`.
    public static let restart = LearnerSetting("restart", .number(TrainingRequest.restartChances))
    /// `--restart-from`.
    public static let restartFrom = integers("restart_from", TrainingRequest.restartTiles)
    /// `--lanes`.
    public static let lanes = integers("lanes", TrainingRequest.laneCounts)
    /// `--seed`.
    public static let seed = integers("seed", UInt64.min...UInt64.max)
    /// `--resume`.
    public static let resume = LearnerSetting("resume", .text)

    /// Every setting a learner takes: those of `g2048 train` that are no output file, limit or report.
    public static let all = [
        rows, cols, network, patterns, stages, stageBoards, alpha, optimistic, learning, coherenceAlpha, coherenceFrom, tableShare,
        tableLearning, update, restart, restartFrom, lanes, seed, resume,
    ]
}
