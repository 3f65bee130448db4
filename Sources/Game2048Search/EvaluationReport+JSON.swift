import GymJSON

extension EvaluationReport {
    /// The report as one JSON object: `g2048 eval --json`'s, and what other languages' evaluations return (the
    /// C ABI's `g2048_evaluation_report`), so that every agent is reported the same way.
    ///
    /// - Parameter board: the board's size label, `"4x4"`.
    public func json(board: String) -> String {
        let rates = milestones.map { "\"\($0)\": \(reachRate($0))" }.joined(separator: ", ")
        return "{\"player\": \(JSONValue.string(player).serialized), \"board\": \(JSONValue.string(board).serialized), "
            + "\"games\": \(games.count), \"mean_score\": \(meanScore), \"standard_error\": \(standardError), "
            + "\"median_score\": \(medianScore), \"max_score\": \(maxScore), "
            + "\"reach_rate\": {\(rates)}, \"moves\": \(moves), \"moves_per_second\": \(movesPerSecond), \"seconds\": \(seconds)}"
    }
}
