import Game2048
import Game2048Network
import Game2048Training
import GymJSON
import GymServer

/// The options of `g2048_learner_make`: `g2048 train`'s settings, named as its flags with underscores, read into
/// the request the command makes; `TrainingRequest` and `TrainingSetup` then decide and refuse as they do for it.
struct LearnerOptions {
    /// The settings a learner takes: those of `g2048 train` that are no output file, limit or report.
    static let names = [
        "rows", "cols", "network", "patterns", "stages", "alpha", "optimistic", "learning", "tc_alpha", "tc_from", "table_share",
        "table_learning", "update", "lanes", "seed", "resume",
    ]

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

    func value(_ name: String) -> JSONValue? { members.first { $0.0 == name }?.1 }

    func refuse(_ name: String, _ expectation: String, got value: JSONValue) -> CallError {
        CallError(.invalidOption(name, reason: "must be \(expectation), got \(value.serialized)"))
    }

    func integer<Integer: FixedWidthInteger>(_ name: String, in range: ClosedRange<Integer>) throws(CallError) -> Integer? {
        guard let value = value(name) else { return nil }
        guard let integer = value.integer, integer >= Int128(range.lowerBound), integer <= Int128(range.upperBound) else {
            throw refuse(name, OptionConstraint.expectation(integersIn: range), got: value)
        }
        return Integer(integer)
    }

    /// A board size, in the range its rules option declares.
    func boardSize(_ option: RulesOption) throws(CallError) -> Int? {
        guard case .integer(let range, _) = option.constraint else { preconditionFailure("\(option.name) is no board size") }
        return try integer(option.name, in: range)
    }

    func number(_ name: String, in range: ClosedRange<Double>) throws(CallError) -> Double? {
        guard let value = value(name) else { return nil }
        guard let number = value.number, range.contains(number) else {
            throw refuse(name, OptionConstraint.expectation(numbersIn: range), got: value)
        }
        return number
    }

    func text(_ name: String) throws(CallError) -> String? {
        guard let value = value(name) else { return nil }
        guard let text = value.string else { throw refuse(name, "a string", got: value) }
        return text
    }

    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, of kind: Choice.Type) throws(CallError) -> Choice?
    where Choice.RawValue == String {
        guard let value = value(name) else { return nil }
        guard let choice = value.string.flatMap(Choice.init(rawValue:)) else {
            throw refuse(name, "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), got: value)
        }
        return choice
    }

    /// The request `g2048 train` makes of the same settings; its decisions refused in its words.
    func request() throws(CallError) -> TrainingRequest {
        let (rows, cols) = (try boardSize(RulesOption.rows), try boardSize(RulesOption.cols))
        // As the command's flags: either sets both.
        let size = (rows ?? cols).map { (rows: rows ?? $0, cols: cols ?? $0) }
        let resume = try text("resume")
        let rules: Rules
        do { rules = try Rules(rows: size?.rows ?? 4, cols: size?.cols ?? 4) } catch {
            throw CallError(.invalidOption(error.field == .cols ? "cols" : "rows", reason: error.rule))
        }
        let alpha = try number("alpha", in: TrainingRequest.learningRates), optimism = try number("optimistic", in: TrainingRequest.optimisms)
        let stagesText = try text("stages"), network = try text("network"), patterns = try text("patterns")
        let learning = try choice("learning", of: LearningMethod.self)
        var request = try settings { () throws(TrainingError) in
            try TrainingRequest(rules: rules, out: resume ?? "", learning: learning, alpha: alpha, optimism: optimism)
        }
        request.size = size
        request.resume = resume
        request.coherenceAlpha = try number("tc_alpha", in: TrainingRequest.learningRates)
        request.coherenceFrom = try number("tc_from", in: TrainingRequest.fractions)
        request.tableShare = try number("table_share", in: TrainingRequest.fractions)
        request.tableLearning = try choice("table_learning", of: TableLearning.self)
        request.schedule = try choice("update", of: TDLearner.Schedule.self) ?? .forward
        request.lanes = try integer("lanes", in: TrainingRequest.laneCounts)
        if let seed = try integer("seed", in: UInt64.min...UInt64.max) { (request.seed, request.seedGiven) = (seed, true) }
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
