import Game2048Network
/// Which tile a search of freshly trained weights should downgrade from.
extension TileDowngrade {
    /// The limit that suits weights trained with optimistic initialization (OTD, OTD+TC) until
    /// now: the largest tile that at least a third of the last games reached.
    ///
    /// Optimistic initialization leaves every weight a game has rarely visited near its high starting
    /// value, so such a network overrates boards past what its games usually reach; downgrading
    /// them to the smaller boards it knows corrects that. Weights that started at 0 have no such
    /// bias, and downgrading them earlier than ``defaultLimit`` only loses information.
    ///
    /// Measured greedily (1 000 to 4 000 games each) on eight 4×4 networks, by downgrading tile:
    /// the OTD and OTD+TC runs of 1, 2, 5, 5, 60 and 60 minutes gained 8 %, 14 %, 5 %, 6 %, 20 % and
    /// 20 % over the default with the tile this picks, and did no better with the tile below it
    /// where that was measured; two plain TD(0) runs lost 5 % and 6 % with it, so they get none.
    ///
    /// - Parameters:
    ///   - initialValue: the weights' optimistic initial value (0 for plain TD(0) and TC).
    ///   - window: the last games of training; fewer than `windowSize` are too few to go by.
    ///   - windowSize: the number of games a full window holds.
    ///   - ceiling: the exponent the tile must lie below: ``defaultLimit`` (the default already), or a lower
    ///     one for a network that reads its later stages downgraded (`TrainingSetup.downgradeSuggestionCeiling`).
    /// - Returns: the exponent of the tile, or `nil` for none: plain TD(0), a window not yet full,
    ///   no tile reached by a third of its games, or a tile outside ``limitRange`` or at `ceiling` and above.
    package static func suggestedLimit(
        initialValue: Double, window: WindowStatistics, windowSize: Int, below ceiling: UInt8 = defaultLimit
    ) -> UInt8? {
        guard initialValue > 0, window.games >= windowSize, let tile = window.reachRates.last(where: { 3 * $0.rate >= 1 })?.tile
        else { return nil }
        let exponent = UInt8(TrainingMetrics.exponent(of: tile))
        return limitRange.contains(exponent) && exponent < min(ceiling, defaultLimit) ? exponent : nil
    }
}
