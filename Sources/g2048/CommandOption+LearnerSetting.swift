import Game2048Training

// A flag of `g2048 train` for a setting a learner takes: its name and what it accepts come from the setting's one
// declaration (`LearnerSetting`), so that the command, the C ABI and Python's drivers cannot drift apart.

extension CommandOption where Value == Double? {
    /// `setting`'s flag: a number in its range.
    static func number(_ setting: LearnerSetting, _ valueName: String, help: String) -> CommandOption<Double?> {
        guard case .number(let range) = setting.kind else { preconditionFailure("\(setting.name) is no number") }
        return number(setting.name, valueName, help: help, in: range)
    }
}

extension CommandOption where Value == Int? {
    /// `setting`'s flag: an integer in its range (one that `Int` holds).
    static func integer(_ setting: LearnerSetting, _ valueName: String = "n", help: String) -> CommandOption<Int?> {
        guard case .integer(let range) = setting.kind else { preconditionFailure("\(setting.name) is no integer") }
        return integer(setting.name, valueName, help: help, in: Int(range.lowerBound)...Int(range.upperBound))
    }
}

extension CommandOption where Value == String? {
    /// `setting`'s flag: text, as given.
    static func text(_ setting: LearnerSetting, _ valueName: String, help: String) -> CommandOption<String?> {
        guard case .text = setting.kind else { preconditionFailure("\(setting.name) is no text") }
        return text(setting.name, valueName, help: help)
    }
}

extension CommandOption {
    /// `setting`'s flag: one of the cases of `Choice`, the choices it declares.
    static func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(
        _ setting: LearnerSetting, _ valueName: String, help: String, of kind: Choice.Type
    ) -> CommandOption<Choice?> where Value == Choice? {
        guard case .choice(let names) = setting.kind, names == Choice.allCases.map(\.rawValue) else {
            preconditionFailure("\(setting.name) is no choice of \(Choice.self)")
        }
        return choice(setting.name, valueName, help: help, of: kind)
    }
}
