import Testing
@testable import Game2048Network
@testable import Game2048Training

/// The tile `train` records for a network's search to downgrade from.
struct TileDowngradeSuggestionTests {
    static func window(games: Int = 1000, _ rates: (Int, Double)...) -> WindowStatistics {
        WindowStatistics(games: games, meanScore: 0, reachRates: rates.map { TileReachRate(tile: $0.0, rate: $0.1) })
    }

    @Test(
        "OTD weights: the largest tile a third of the last games reached",
        arguments: [
            // The measured networks: 60 s (4096 in 59 %), 2 min (4096 in 82 %, 8192 in 19 %), 5 min (8192 in
            // 39 %), 5 min OTD+TC (8192 in 45 %) and the hour's (8192 in 85 %, 16384 in 13 %).
            (window((4096, 0.591), (8192, 0.007)), 12),
            (window((4096, 0.817), (8192, 0.192)), 12),
            (window((4096, 0.862), (8192, 0.385)), 13),
            (window((8192, 0.448), (16384, 0.002)), 13),
            (window((8192, 0.851), (16384, 0.128)), 13),
            // Exactly a third counts; just under does not.
            (window((2048, 0.9), (4096, 1.0 / 3)), 12),
            (window((2048, 0.9), (4096, 0.333)), 11),
            // Neither tile common enough: the tile below is not known, so none.
            (window((8192, 0.30), (16384, 0.01)), nil),
            // 32768 and above is the default already; below 8 the search has nothing to downgrade.
            (window((16384, 0.9), (32768, 0.6)), nil),
            (window((16384, 0.9), (32768, 0.2)), 14),
            (window((2, 1.0), (4, 1.0)), nil),
            // A window not yet full is too few games to go by.
            (window(games: 999, (8192, 0.9), (16384, 0.2)), nil),
            (window(games: 0), nil),
        ] as [(WindowStatistics, UInt8?)])
    func optimisticWeights(window: WindowStatistics, limit: UInt8?) {
        #expect(TileDowngrade.suggestedLimit(initialValue: 80_000, window: window, windowSize: 1000) == limit)
    }

    /// A network that reads its later stages downgraded from 16384 gets a tile below it only: the boards from there on
    /// are read as its stages learned them.
    @Test func aCeilingKeepsTheTileBelowIt() {
        let reached = Self.window((8192, 0.885), (16384, 0.46))
        #expect(TileDowngrade.suggestedLimit(initialValue: 80_000, window: reached, windowSize: 1000) == 14)
        #expect(TileDowngrade.suggestedLimit(initialValue: 80_000, window: reached, windowSize: 1000, below: 14) == nil)
        #expect(TileDowngrade.suggestedLimit(initialValue: 80_000, window: reached, windowSize: 1000, below: 15) == 14)
        let early = Self.window((2048, 0.9), (4096, 0.5))
        #expect(TileDowngrade.suggestedLimit(initialValue: 80_000, window: early, windowSize: 1000, below: 14) == 12)
    }

    /// Weights that started at 0 lost by downgrading early (plain TD(0): 4096 in 71 % and 2048 in 64 % of
    /// the last games, 6 % and 5 % lower), so they get no tile.
    @Test(arguments: [0.0, -1.0])
    func weightsFromZeroGetNone(initialValue: Double) {
        #expect(TileDowngrade.suggestedLimit(initialValue: initialValue, window: Self.window((4096, 0.709), (8192, 0.212)), windowSize: 1000) == nil)
        #expect(TileDowngrade.suggestedLimit(initialValue: initialValue, window: Self.window((2048, 0.642), (4096, 0.085)), windowSize: 1000) == nil)
    }
}
