import Testing

@testable import Game2048

/// The one table of options: every door reads it, so its declarations are checked here, in the core.
struct EnvironmentOptionTests {
    @Test func everyOptionTakesBackItsDefaultAndNamesAreUnique() throws {
        #expect(Set(EnvironmentOption.names).count == EnvironmentOption.all.count)
        #expect(EnvironmentOption.all.compactMap(\.rules?.name) == RulesOption.all.map(\.name))
        var settings = Configuration.Settings(Configuration())
        for option in EnvironmentOption.all {
            #expect(option.assign(option.defaultValue, to: &settings), "\(option.name)")
        }
        #expect(try Configuration(settings, changing: Configuration()) == Configuration())
    }

    @Test func valuesOfTheWrongKindOrOutOfRangeAreNotStored() {
        var settings = Configuration.Settings(Configuration())
        let numEnvs = EnvironmentOption.numEnvs
        #expect(!numEnvs.assign(.integer(0), to: &settings) && !numEnvs.assign(.integer(65_537), to: &settings))
        #expect(!numEnvs.assign(.string("4"), to: &settings) && !numEnvs.assign(.number(4), to: &settings))
        #expect(numEnvs.assign(.integer(65_536), to: &settings) && settings.numEnvs == 65_536)
        #expect(!EnvironmentOption.info.assign(.list(["score", "colour"]), to: &settings))
        #expect(EnvironmentOption.info.assign(.list(["score", "action_mask"]), to: &settings))
        // Stored in the declared order, whatever order they came in.
        #expect(settings.info == [.field(.actionMask), .field(.score)])
        #expect(!EnvironmentOption.observation.assign(.string("png"), to: &settings))
    }

    /// The one-hot planes follow a new board size unless they were set.
    @Test func onehotChannelsFollowTheBoardUnlessSet() throws {
        var settings = Configuration.Settings(Configuration())
        EnvironmentOption.named("rows")!.assign(.integer(8), to: &settings)
        EnvironmentOption.named("cols")!.assign(.integer(8), to: &settings)
        #expect(try Configuration(settings, changing: Configuration()).onehotChannels == 51)
        EnvironmentOption.onehotChannels.assign(.integer(20), to: &settings)
        #expect(try Configuration(settings, changing: Configuration()).onehotChannels == 20)
        // The declared range (1...64) is checked on assignment; what depends on other options, by `Rules`.
        #expect(!EnvironmentOption.named("initial_tiles")!.assign(.integer(65), to: &settings))
        EnvironmentOption.named("rows")!.assign(.integer(2), to: &settings)
        EnvironmentOption.named("cols")!.assign(.integer(2), to: &settings)
        EnvironmentOption.named("initial_tiles")!.assign(.integer(5), to: &settings)
        #expect(throws: RulesError.initialTiles(5, cells: 4)) { try Configuration(settings, changing: Configuration()) }
    }
}
