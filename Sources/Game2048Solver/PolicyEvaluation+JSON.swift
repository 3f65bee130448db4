import GymJSON

extension PolicyEvaluation {
    /// The evaluation as one JSON object: `g2048 eval --exact --json`'s, and what other languages' exact
    /// evaluations return (the C ABI's `g2048_exact_result`), so that every policy is reported the same way.
    ///
    /// - Parameters:
    ///   - player: the policy's name.
    ///   - board: the board's size label, `"3x3"`.
    ///   - objective: what the scores are (the solution's objective).
    public func json(player: String, board: String, objective: OptimalSolver.Objective) -> String {
        "{\"player\": \(JSONValue.string(player).serialized), \"board\": \(JSONValue.string(board).serialized), "
            + "\"exact\": true, \"objective\": \"\(objective.rawValue)\", "
            + "\"expected_score\": \(expectedScore), \"optimal_score\": \(optimalScore), "
            + "\"fraction_of_optimal\": \(fractionOfOptimal), \"expected_moves\": \(expectedMoves), "
            + "\"suboptimal_share\": \(suboptimalShare), \"reachable_states\": \(reachableStates), "
            + "\"suboptimal_states\": \(suboptimalStates), \"suboptimal_state_share\": \(suboptimalStateShare)}"
    }
}
