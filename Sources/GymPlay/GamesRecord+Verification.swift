import GymCore
import GymGames
import GymJSON

extension GamesRecord {
    /// Checks the record against its evaluation protocol and replays every game through the engine, comparing
    /// each member a game line claims with what the replay gives.
    ///
    /// - Parameter required: the protocol the record must have been played under; `nil`: the one it names, if any
    ///   (a record naming none is replayed as it is).
    /// - Returns: the replayed games and their statistics.
    /// - Throws: ``GamesRecordError``, the first difference: an unknown protocol, another game or config than the
    ///   protocol's, another number of games, a seed that is not the protocol's, a game that does not replay, or
    ///   a claimed member the replay does not give.
    package func verify(against required: EvaluationProtocol? = nil) throws(GamesRecordError) -> VerifiedGames {
        let played = try evaluationProtocol()
        if let required {
            guard let played else {
                throw GamesRecordError("the record names no protocol: only games played under \(required.name) are taken")
            }
            guard played.name == required.name else {
                throw GamesRecordError("the record was played under \(played.name), not \(required.name)")
            }
        }
        if let played { try check(against: played) }
        var replayer = try GameReplayer(game: game, values: values)
        for (index, claimed) in games.enumerated() {
            let replayed = try replayer.replay(seed: claimed.seed, actions: claimed.actions, game: index)
            if let difference = Self.difference(claimed: claimed.result, replayed: replayed) {
                throw GamesRecordError(game: index, seed: claimed.seed, difference)
            }
        }
        return VerifiedGames(record: self, protocol: played)
    }

    /// The checks a written record still needs, its games having been replayed as they were written: the player's
    /// name as a reader takes it, and, when it names a protocol, that its games are the protocol's.
    package func checkWritten() throws(GamesRecordError) {
        if let refusal = Self.playerRefusal(player) { throw GamesRecordError(line: 1, refusal) }
        if let played = try evaluationProtocol() { try check(against: played) }
    }

    /// The protocol the record names, if any.
    func evaluationProtocol() throws(GamesRecordError) -> EvaluationProtocol? {
        guard let protocolName else { return nil }
        guard let named = EvaluationProtocol.named(protocolName) else {
            throw GamesRecordError("unknown protocol \"\(protocolName)\" (the protocols are \(EvaluationProtocol.names))")
        }
        return named
    }

    /// Refuses a record whose game, options, number of games or seeds are not `protocol`'s.
    func check(against evaluation: EvaluationProtocol) throws(GamesRecordError) {
        let name = evaluation.name
        guard game.name == evaluation.game.name else {
            throw GamesRecordError("the game is \(game.name); \(name) is a protocol of \(evaluation.game.name)")
        }
        for option in game.options where values[option.name] != evaluation.values[option.name] {
            let recorded = values[option.name] ?? option.defaultValue, required = evaluation.values[option.name] ?? option.defaultValue
            throw GamesRecordError("the config is not \(name)'s: \(option.name) is \(recorded), the protocol's is \(required)")
        }
        guard games.count == evaluation.games else {
            throw GamesRecordError("the record holds \(games.count) games; \(name) has \(evaluation.games)")
        }
        for (index, (game, seed)) in zip(games, evaluation.seeds).enumerated() where game.seed != seed {
            throw GamesRecordError(game: index, seed: game.seed, "the seed is not the protocol's (\(name)'s game \(index) has seed \(seed))")
        }
    }

    /// The first member a game line claims that its replay does not give, in words.
    static func difference(claimed: GameOutcome, replayed: GameOutcome) -> String? {
        func says(_ member: String, _ recorded: String, _ replay: String) -> String {
            "the record says \(member) \(recorded), the replay gives \(replay)"
        }
        if claimed.score != replayed.score {
            return says("score", "\(claimed.scoreJSON.serialized)", "\(replayed.scoreJSON.serialized)")
        }
        if claimed.outcome != replayed.outcome { return says("outcome", claimed.outcome.rawValue, replayed.outcome.rawValue) }
        for (recorded, replay) in zip(claimed.end, replayed.end) where recorded.value != replay.value {
            return says("end.\(recorded.name)", "\(recorded.value)", "\(replay.value)")
        }
        return nil
    }
}

/// A games record whose every game replayed as it says, with the statistics a ranking shows.
package struct VerifiedGames: Sendable {
    /// The record.
    package let record: GamesRecord
    /// Its protocol, if it names one.
    package let evaluationProtocol: EvaluationProtocol?

    init(record: GamesRecord, protocol: EvaluationProtocol?) { (self.record, evaluationProtocol) = (record, `protocol`) }

    /// Every game's score.
    package var scores: [Double] { record.games.map(\.result.score) }
    /// The steps of every game together.
    package var steps: Int { record.games.reduce(0) { $0 + $1.result.steps } }

    /// The mean score.
    package var mean: Double { scores.isEmpty ? 0 : scores.reduce(0, +) / Double(scores.count) }
    /// The standard error of the mean: the sample standard deviation over √n.
    package var standardError: Double {
        guard scores.count > 1 else { return 0 }
        let mean = mean
        let variance = scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(scores.count - 1)
        return (variance / Double(scores.count)).squareRoot()
    }
    /// The median score.
    package var median: Double {
        let sorted = scores.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
    /// Each milestone the game declares, with the share of games that reached it.
    package var reachRates: [(milestone: Int, rate: Double)] {
        let measure = record.game.ranking
        guard let column = measure.milestoneColumn else { return [] }
        let reached = record.games.map { game in game.result.end.first { $0.name == column }?.value ?? 0 }
        return measure.milestones.map { milestone in (milestone, Double(reached.count { $0 >= milestone }) / Double(max(1, reached.count))) }
    }

    /// The verification as one JSON object: the record's header, the statistics (`summary`: mean, standard
    /// error, 95 % confidence interval by the normal approximation, median, min, max, `reach` rates), and every
    /// game's replayed result with its actions (`results`), for a ranking to store.
    package var json: String {
        let record = record, scores = scores
        let (mean, error) = (mean, standardError)
        let number = { (value: Double) -> JSONValue in
            record.game.ranking.scoreColumn != nil && value == value.rounded() ? .integer(Int128(value)) : .double(value)
        }
        let summary: [(String, JSONValue)] = [
            ("mean", .double(mean)), ("standard_error", .double(error)),
            ("ci95", .array([.double(mean - 1.96 * error), .double(mean + 1.96 * error)])), ("median", .double(median)),
            ("min", number(scores.min() ?? 0)), ("max", number(scores.max() ?? 0)),
            ("reach", .object(reachRates.map { ("\($0.milestone)", .double($0.rate)) })),
        ]
        let results = record.games.enumerated().map { index, game in
            JSONValue.object([
                ("index", .integer(Int128(index))), ("seed", .integer(Int128(game.seed))), ("score", game.result.scoreJSON),
                ("steps", .integer(Int128(game.result.steps))), ("outcome", .string(game.result.outcome.rawValue)),
                ("actions", .string(ActionText.text(game.actions))),
            ])
        }
        return JSONValue.object([
            ("game", .string(record.game.name)), ("protocol", record.protocolName.map(JSONValue.string) ?? .null),
            ("config", record.configJSON),
            ("player", .string(record.player)), ("games", .integer(Int128(record.games.count))), ("steps", .integer(Int128(steps))),
            ("summary", .object(summary)), ("results", .array(results)),
        ]).serialized
    }
}
