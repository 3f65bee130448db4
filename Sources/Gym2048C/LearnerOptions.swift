import Game2048
import Game2048Network
import Game2048Training
import GymJSON
import GymServer

/// The options of `g2048_learner_make`: `g2048 train`'s settings, named as its flags with underscores, read into
/// the request the command makes; `TrainingRequest` and `TrainingSetup` then decide and refuse as they do for it.
struct LearnerOptions {
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

    func integer<Integer: FixedWidthInteger>(_ setting: LearnerSetting, as _: Integer.Type = Integer.self) throws(CallError) -> Integer? {
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

    func choice<Choice: RawRepresentable & CaseIterable>(_ setting: LearnerSetting, of kind: Choice.Type) throws(CallError) -> Choice?
    where Choice.RawValue == String {
        guard let value = value(setting) else { return nil }
        guard let choice = value.string.flatMap(Choice.init(rawValue:)) else {
            throw refuse(setting, "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), got: value)
        }
        return choice
    }

    /// The request `g2048 train` makes of the same settings; its decisions refused in its words.
    func request() throws(CallError) -> TrainingRequest {
        let (rows, cols): (Int?, Int?) = (try integer(LearnerSetting.rows), try integer(LearnerSetting.cols))
        // As the command's flags: either sets both.
        let size = (rows ?? cols).map { (rows: rows ?? $0, cols: cols ?? $0) }
        let resume = try text(LearnerSetting.resume)
        let rules: Rules
        do { rules = try Rules(rows: size?.rows ?? 4, cols: size?.cols ?? 4) } catch {
            throw CallError(.invalidOption((error.field == .cols ? LearnerSetting.cols : LearnerSetting.rows).name, reason: error.rule))
        }
        let alpha = try number(LearnerSetting.alpha), optimism = try number(LearnerSetting.optimistic)
        let stagesText = try text(LearnerSetting.stages), network = try text(LearnerSetting.network)
        let patterns = try text(LearnerSetting.patterns)
        let learning = try choice(LearnerSetting.learning, of: LearningMethod.self)
        var request = try settings { () throws(TrainingError) in
            try TrainingRequest(rules: rules, out: resume ?? "", learning: learning, alpha: alpha, optimism: optimism)
        }
        request.size = size
        request.resume = resume
        request.coherenceAlpha = try number(LearnerSetting.coherenceAlpha)
        request.coherenceFrom = try number(LearnerSetting.coherenceFrom)
        request.tableShare = try number(LearnerSetting.tableShare)
        request.tableLearning = try choice(LearnerSetting.tableLearning, of: TableLearning.self)
        request.schedule = try choice(LearnerSetting.update, of: TDLearner.Schedule.self) ?? .forward
        request.restart = try number(LearnerSetting.restart) ?? 0
        request.restartFrom = try integer(LearnerSetting.restartFrom)
        request.lanes = try integer(LearnerSetting.lanes)
        if let seed: UInt64 = try integer(LearnerSetting.seed) { (request.seed, request.seedGiven) = (seed, true) }
        try settings { [request] () throws(TrainingError) in
            // A resumed file's board and rules are its own: checked when it is read.
            if resume == nil { try request.checkTableShare(rules: rules) }
        }
        if let stagesText {
            request.stages = try settings { () throws(TrainingError) in try TrainingRequest.stages(parsing: stagesText, rows: rules.rows, cols: rules.cols) }
        }
        do { try request.choosePatterns(named: network, cells: patterns, optimismGiven: optimism != nil) } catch { throw .argument(error.message) }
        return request
    }

    /// `body`'s result, its refusal an invalid argument in the command's words.
    func settings<Value>(_ body: () throws(TrainingError) -> Value) throws(CallError) -> Value {
        do { return try body() } catch { throw .argument(error.message) }
    }
}
