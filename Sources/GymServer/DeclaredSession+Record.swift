import GymCore
import GymJSON

/// What a declared game's records hold beyond every record's members, as the protocol gives it: `spec`'s
/// `record` (the layout) and `record_members` (the values), so that a replay outside Swift compares the members
/// `g2048 replay` compares, with the values the game itself gives.
extension DeclaredSession {
    /// The members the game adds to its record lines, as `spec`'s `record`: `{"action", "header", "step", "end"}`,
    /// and `options_before`: the options a record may lack, with the values it was played with.
    var recordLayout: JSONValue {
        let layout = game.recordLayout
        let names = { (names: [String]) in JSONValue.array(names.map { .string($0) }) }
        return .object([
            ("action", .string(layout.action)), ("header", names(layout.header)), ("step", names(layout.step)), ("end", names(layout.end)),
            ("options_before", .object(EpisodeOption.beforeInvalidActionPolicies.map { ($0.name, JSONValue($0.value)) })),
        ])
    }

    /// `record_members`: environment 0's own record members, in the layout's order, as the recorder writes them
    /// and the replayer checks them: `start` (the header's, what the reset dealt), `end` (the end line's, how the
    /// episode stands) and, given the `action` just taken, `step` (the step line's own, without the reward).
    func recordMembers(_ members: [(String, JSONValue)]) throws(RPCError) -> JSONValue {
        guard isReset else { throw RPCError.notReset("call reset before record_members") }
        let recorded = instance.recorded
        var result: [(String, JSONValue)] = [
            ("start", .array((recorded?.startMembers(at: 0) ?? []).map(\.json))),
            ("end", .array((recorded?.endMembers(at: 0) ?? []).map(\.json))),
        ]
        if let value = members.first(where: { $0.0 == "action" })?.1, value != .null {
            let action = Int(try action(value, name: "action"))
            result.append(("step", .array((recorded?.stepMembers(at: 0, after: action) ?? []).map(\.json))))
        }
        return .object(result)
    }
}
