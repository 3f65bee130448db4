import Game2048
import GymCore
import GymJSON
import Testing

@testable import g2048

/// A boolean option is a switch at every door of the command line: a game's flags and 2048's rules flags
/// (``GameFlags``) and `serve`'s flags (``ServeCommand``), so that a new boolean option of any table reads alike.
struct SwitchFlagTests {
    static let declaration = OptionDeclaration(
        name: "no_fours", flag: "no-fours", valueName: "bool", help: "Every spawned tile is a 2.", constraint: .boolean,
        defaultValue: .boolean(false))
    static let environmentOption = EnvironmentOption(
        "no_fours", valueName: "bool", help: "Every spawned tile is a 2.", constraint: .boolean, store: { _, _ in true },
        load: { _ in .boolean(false) })

    @Test func aBooleanOptionIsASwitchEverywhere() throws {
        let game = GameFlags.flag(Self.declaration)
        let serve = ServeCommand.flag(Self.environmentOption)
        #expect(game.spec.valueName == nil && serve.spec.valueName == nil)
        let spec = CommandSpec(name: "demo", abstract: "A demo.", options: [game.spec])
        #expect(try parseArguments(["--no-fours"], spec: spec)[game] == .boolean(true))
        #expect(try parseArguments([], spec: spec)[game] == nil)
        let served = CommandSpec(name: "serve", abstract: "A demo.", options: [serve.spec])
        #expect(try parseArguments(["--no-fours"], spec: served)[serve] == .bool(true))
        #expect(throws: UsageError.self) { try parseArguments(["--no-fours", "true"], spec: spec) }
    }
}
