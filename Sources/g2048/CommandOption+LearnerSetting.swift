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

/// `g2048 train`'s flags as the values of a learner's settings: each read through a flag made from its declaration,
/// as the command's own flags are (so they parse and refuse alike), for ``TrainingRequest/init(_:rules:out:)``.
extension ParsedArguments: LearnerSettingValues {
    func integer<Integer: FixedWidthInteger>(_ setting: LearnerSetting, as _: Integer.Type) throws(UsageError) -> Integer? {
        guard case .integer(let range) = setting.kind else { preconditionFailure("\(setting.name) is no integer") }
        if range.upperBound <= Int128(Int.max) { return try self[CommandOption.integer(setting, help: "")].map { Integer($0) } }
        precondition(range == 0...Int128(UInt64.max), "\(setting.name): integers beyond Int are UInt64's")
        return try self[CommandOption.unsigned(setting.name, "n", help: "")].map { Integer($0) }
    }

    func number(_ setting: LearnerSetting) throws(UsageError) -> Double? { try self[CommandOption.number(setting, "x", help: "")] }

    func text(_ setting: LearnerSetting) throws(UsageError) -> String? { try self[CommandOption.text(setting, "text", help: "")] }

    func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(_ setting: LearnerSetting, of kind: Choice.Type) throws(UsageError)
        -> Choice?
    { try self[CommandOption.choice(setting, "name", help: "", of: kind)] }

    func refusal(_ error: TrainingError) -> UsageError { UsageError(error.message) }
}
