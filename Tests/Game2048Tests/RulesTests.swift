import Testing
@testable import Game2048

struct RulesTests {
    @Test func defaultsAreTheOriginalGame() throws {
        let classic = Rules()
        #expect(classic.rows == 4)
        #expect(classic.cols == 4)
        #expect(classic.spawnFourProbability == 0.1)
        #expect(classic.initialTiles == 2)
        #expect(classic.winTile == nil)
        #expect(classic.maxSteps == nil)
        #expect(classic.invalidAction == .noop)
        #expect(Rules() == classic)
        #expect(classic.cellCount == 16)
        #expect(classic.sizeLabel == "4x4")
        #expect(classic.winExponent == nil)
    }

    @Test func derivedValues() throws {
        let rules = try Rules(rows: 3, cols: 5, winTile: 2048)
        #expect(rules.cellCount == 15)
        #expect(rules.sizeLabel == "3x5")
        #expect(rules.winExponent == 11)
    }

    /// Arguments for `Rules.init`, so that invalid combinations can be listed in a table.
    struct Arguments: Sendable {
        var rows = 4, cols = 4, spawnFourProbability = 0.1, initialTiles = 2
        var winTile: Int? = nil, maxSteps: Int? = nil, invalidAction = InvalidActionPolicy.noop

        func make() throws(RulesError) -> Rules {
            try Rules(
                rows: rows, cols: cols, spawnFourProbability: spawnFourProbability, initialTiles: initialTiles,
                winTile: winTile, maxSteps: maxSteps, invalidAction: invalidAction)
        }
    }

    static let invalid: [(Arguments, RulesError)] = [
        (Arguments(rows: 1), .rows(1)),
        (Arguments(rows: 9), .rows(9)),
        (Arguments(cols: 0), .cols(0)),
        (Arguments(cols: -3), .cols(-3)),
        (Arguments(spawnFourProbability: -0.1), .spawnFourProbability(-0.1)),
        (Arguments(spawnFourProbability: 1.5), .spawnFourProbability(1.5)),
        (Arguments(initialTiles: 0), .initialTiles(0, cells: 16)),
        (Arguments(rows: 2, cols: 3, initialTiles: 7), .initialTiles(7, cells: 6)),
        (Arguments(winTile: 2), .winTile(2)),
        (Arguments(winTile: 6), .winTile(6)),
        (Arguments(winTile: 0), .winTile(0)),
        (Arguments(winTile: 1 << 62), .winTile(1 << 62)),
        (Arguments(winTile: 1 << 51), .winTile(1 << 51)),
        (Arguments(winTile: Int.min), .winTile(Int.min)),
        (Arguments(maxSteps: 0), .maxSteps(0)),
        (Arguments(invalidAction: .terminate(penalty: -1)), .penalty(-1)),
    ]

    @Test(arguments: invalid)
    func outOfRangeValuesThrowTheirCase(arguments: Arguments, error: RulesError) {
        #expect(throws: error) { try arguments.make() }
    }

    @Test func rowsAreCheckedBeforeColumns() {
        #expect(throws: RulesError.rows(0)) { try Rules(rows: 0, cols: 0) }
    }

    @Test func nanProbabilityIsRejected() {
        do {
            _ = try Rules(spawnFourProbability: .nan)
            Issue.record("NaN accepted")
        } catch {
            guard case .spawnFourProbability(let p) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(p.isNaN)
        }
    }

    @Test func boundaryValuesAreAccepted() throws {
        #expect(try Rules(rows: 2, cols: 8).cellCount == 16)
        #expect(try Rules(rows: 8, cols: 2).sizeLabel == "8x2")
        #expect(try Rules(spawnFourProbability: 0).spawnFourProbability == 0)
        #expect(try Rules(spawnFourProbability: 1).spawnFourProbability == 1)
        #expect(try Rules(rows: 2, cols: 2, initialTiles: 4).initialTiles == 4)
        #expect(try Rules(initialTiles: 1).initialTiles == 1)
        #expect(try Rules(winTile: 4).winExponent == 2)
        #expect(try Rules(winTile: 1 << 50).winExponent == 50)
        #expect(try Rules(maxSteps: 1).maxSteps == 1)
        #expect(try Rules(invalidAction: .terminate(penalty: 0)).invalidAction == .terminate(penalty: 0))
    }

    @Test func policyNames() {
        #expect(InvalidActionPolicy.noop.name == "noop")
        #expect(InvalidActionPolicy.terminate(penalty: 5).name == "terminate")
        #expect(InvalidActionPolicy.reject.name == "reject")
    }

    /// `RulesOption.assign` takes a value of the option's kind within its range (or, for the settings' own check,
    /// outside it); anything else leaves the settings as they were.
    @Test func optionsAssignOnlyValuesOfTheirKind() throws {
        var settings = RulesSettings(Rules())
        #expect(RulesOption.winTile.assign(.integer(2048), to: &settings) && settings.winTile == 2048)
        #expect(RulesOption.winTile.assign(.null, to: &settings) && settings.winTile == nil)
        #expect(!RulesOption.rows.assign(.string("4"), to: &settings) && settings.rows == 4)
        #expect(!RulesOption.rows.assign(.integer(9), to: &settings) && settings.rows == 4)
        #expect(RulesOption.rows.assign(.integer(9), to: &settings, checkingRange: false) && settings.rows == 9)
        #expect(throws: RulesError.rows(9)) { try settings.rules() }
        #expect(!RulesOption.spawnFourProbability.assign(.integer(1), to: &settings))
        #expect(RulesOption.invalidAction.assign(.string("reject"), to: &settings) && settings.invalidAction == .reject)
        #expect(!RulesOption.invalidAction.assign(.string("explode"), to: &settings))
        // Every option reads back what it wrote.
        let rules = try Rules(
            rows: 3, cols: 5, spawnFourProbability: 0.25, initialTiles: 3, winTile: 64, maxSteps: 9,
            invalidAction: .terminate(penalty: 4))
        var copy = RulesSettings(Rules())
        for (name, value) in RulesOption.members(of: rules) {
            #expect(try #require(RulesOption.named(name)).assign(value, to: &copy))
        }
        #expect(try copy.rules() == rules)
    }
}
