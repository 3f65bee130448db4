import Testing

@testable import Game2048

/// What each rules option declares of itself, beyond its `GameOption`.
struct RulesOptionTests {
    /// Only the invalid-action policy and its penalty leave the games of a player of legal moves unchanged, and
    /// that is declared per option, not read from the errors that name it: a switch no error names is still a
    /// rule of legal play (and so a flag of `train`, `eval` and `solve`).
    @Test func legalPlayIsDeclaredPerOption() {
        let outside = RulesOption.all.filter { !$0.concernsLegalPlay }.map(\.name)
        #expect(outside == ["invalid_action", "invalid_action_penalty"])
        let declared = RulesOption(.integer("a_rule", help: "A rule no error names.", in: 1...4, \.initialTiles), field: nil)
        #expect(declared.concernsLegalPlay && declared.field == nil)
    }
}
