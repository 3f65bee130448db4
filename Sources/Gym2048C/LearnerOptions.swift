import Game2048
import Game2048Network
import Game2048Training
import GymJSON
import GymServer

/// The options of `g2048_learner_make`: `g2048 train`'s settings, named as its flags with underscores, read into
/// the request the command makes; `TrainingRequest` and `TrainingSetup` then decide and refuse as they do for it.
struct LearnerOptions: LearnerSettingValues {
    /// The names of the settings a learner takes.
    static let names = LearnerSetting.all.map(\.name)

    let members: [(String, JSONValue)]

    /// Reads `options`, a JSON object, refusing a name it does not know.
    init(_ options: JSONValue) throws(CallError) {
        guard let members = options.object else { throw .argument("options must be a JSON object, got \(options.typeName)") }
        if let unknown = members.first(where: { !Self.names.contains($0.0) }) {
            throw .argument("unknown option '\(unknown.0)'; options are \(Self.names.joined(separator: ", "))")
        }
        if let duplicate = options.firstDuplicateKey { throw .argument("option '\(duplicate)' is given twice") }
        self.members = members
    }

    func value(_ setting: LearnerSetting) -> JSONValue? { members.first { $0.0 == setting.name }?.1 }

    func refuse(_ setting: LearnerSetting, _ expectation: String, got value: JSONValue) -> CallError {
        CallError(.invalidOption(setting.name, reason: "must be \(expectation), got \(value.serialized)"))
    }

    func integer<Integer: FixedWidthInteger>(_ setting: LearnerSetting, as _: Integer.Type) throws(CallError) -> Integer? {
        guard case .integer(let range) = setting.kind else { preconditionFailure("\(setting.name) is no integer") }
        guard let value = value(setting) else { return nil }
        guard let integer = value.integer, range.contains(integer) else {
            throw refuse(setting, OptionConstraint.expectation(integersIn: range), got: value)
        }
        return Integer(integer)
    }

    func number(_ setting: LearnerSetting) throws(CallError) -> Double? {
        guard case .number(let range) = setting.kind else { preconditionFailure("\(setting.name) is no number") }
        guard let value = value(setting) else { return nil }
        guard let number = value.number, range.contains(number) else {
            throw refuse(setting, OptionConstraint.expectation(numbersIn: range), got: value)
        }
        return number
    }

    func text(_ setting: LearnerSetting) throws(CallError) -> String? {
        guard let value = value(setting) else { return nil }
        guard let text = value.string else { throw refuse(setting, "a string", got: value) }
        return text
    }

    func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(_ setting: LearnerSetting, of kind: Choice.Type) throws(CallError) -> Choice? {
        guard let value = value(setting) else { return nil }
        guard let choice = value.string.flatMap(Choice.init(rawValue:)) else {
            throw refuse(setting, "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), got: value)
        }
        return choice
    }

    /// The request `g2048 train` makes of the same settings; its decisions refused in its words.
    func request() throws(CallError) -> TrainingRequest {
        try TrainingRequest(
            self,
            rules: { size throws(CallError) in
                do throws(RulesError) { return try Rules(rows: size?.rows ?? 4, cols: size?.cols ?? 4) } catch {
                    throw CallError(.invalidOption((error.field == .cols ? LearnerSetting.cols : LearnerSetting.rows).name, reason: error.rule))
                }
            },
            out: { _, resume in resume ?? "" })
    }

    func refusal(_ error: TrainingError) -> CallError { .argument(error.message) }
}
