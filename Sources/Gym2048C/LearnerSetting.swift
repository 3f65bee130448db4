// The settings `g2048_learner_make` takes, each declared once with what it accepts: read from the options by
// `LearnerOptions`, and listed by `g2048_learner_settings` for the flags of other languages' drivers (Python's
// `ray_train`), so that no driver lists them again.
import Game2048
import Game2048Network
import Game2048Training
import CGym2048
import GymJSON

/// One setting of a learner: a `g2048 train` flag's name with underscores, and the values it accepts (a setting's
/// own decisions, such as a network's name or a stage list, are `TrainingRequest`'s).
struct LearnerSetting: Sendable {
    /// What a setting's value is.
    enum Kind: Sendable {
        case integer(ClosedRange<Int128>)
        case number(ClosedRange<Double>)
        case choice([String])
        case text
    }

    let name: String
    let kind: Kind

    init(_ name: String, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }

    static func integers<Integer: FixedWidthInteger>(_ name: String, _ range: ClosedRange<Integer>) -> LearnerSetting {
        LearnerSetting(name, .integer(Int128(range.lowerBound)...Int128(range.upperBound)))
    }

    static func choice<Choice: CaseIterable & RawRepresentable<String>>(_ name: String, of _: Choice.Type) -> LearnerSetting {
        LearnerSetting(name, .choice(Choice.allCases.map(\.rawValue)))
    }

    /// A board size, in the range its rules option declares.
    static func boardSize(_ option: RulesOption) -> LearnerSetting {
        guard case .integer(let range, _) = option.constraint else { preconditionFailure("\(option.name) is no board size") }
        return integers(option.name, range)
    }

    /// `{"name": …, "kind": "integer", "min": …, "max": …}`, `"number"` likewise, `"choice"` with its `choices`,
    /// or `"text"`.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        switch kind {
        case .integer(let range): members += [("kind", "integer"), ("min", .integer(range.lowerBound)), ("max", .integer(range.upperBound))]
        case .number(let range): members += [("kind", "number"), ("min", .double(range.lowerBound)), ("max", .double(range.upperBound))]
        case .choice(let names): members += [("kind", "choice"), ("choices", .array(names.map { .string($0) }))]
        case .text: members.append(("kind", "text"))
        }
        return .object(members)
    }
}

extension LearnerSetting {
    static let rows = boardSize(RulesOption.rows)
    static let cols = boardSize(RulesOption.cols)
    static let network = LearnerSetting("network", .text)
    static let patterns = LearnerSetting("patterns", .text)
    static let stages = LearnerSetting("stages", .text)
    static let alpha = LearnerSetting("alpha", .number(TrainingRequest.learningRates))
    static let optimistic = LearnerSetting("optimistic", .number(TrainingRequest.optimisms))
    static let learning = choice("learning", of: LearningMethod.self)
    static let coherenceAlpha = LearnerSetting("tc_alpha", .number(TrainingRequest.learningRates))
    static let coherenceFrom = LearnerSetting("tc_from", .number(TrainingRequest.fractions))
    static let tableShare = LearnerSetting("table_share", .number(TrainingRequest.fractions))
    static let tableLearning = choice("table_learning", of: TableLearning.self)
    static let update = choice("update", of: TDLearner.Schedule.self)
    static let lanes = integers("lanes", TrainingRequest.laneCounts)
    static let seed = integers("seed", UInt64.min...UInt64.max)
    static let resume = LearnerSetting("resume", .text)

    /// Every setting a learner takes: those of `g2048 train` that are no output file, limit or report.
    static let all = [
        rows, cols, network, patterns, stages, alpha, optimistic, learning, coherenceAlpha, coherenceFrom, tableShare,
        tableLearning, update, lanes, seed, resume,
    ]
}

nonisolated(unsafe) let learnerSettingsCString = staticCString(JSONValue.array(LearnerSetting.all.map(\.json)).serialized)

@_cdecl("g2048_learner_settings")
public func g2048LearnerSettings() -> UnsafePointer<CChar> { UnsafePointer(learnerSettingsCString) }
