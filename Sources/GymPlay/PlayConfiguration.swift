import Game2048
import GymSystem

/// What a ``PlaySession`` plays: the board size (or a start screen to choose one), the win message's tile, the seed.
///
///     var configuration = PlayConfiguration(seed: 42)      // start screen, 2048 shows the win message
///     configuration.rows = 3; configuration.cols = 5        // or a fixed size
package struct PlayConfiguration: Hashable, Sendable {
    /// Board rows, or `nil` to choose the size on a start screen.
    package var rows: Int?
    /// Board columns, or `nil` to choose the size on a start screen.
    package var cols: Int?
    /// The tile whose first appearance shows the win message (default 2048); `nil` for none. Play goes on after it.
    package var targetTile: Int?
    /// The first game's seed; each restart adds 1.
    package var seed: UInt64
    /// Who plays, as recorded in episode headers: `human` or an agent's name.
    package var player: String
    /// The square sizes the start screen offers.
    package var sizeChoices: [Int]
    /// The rules options but the size (``rows`` and ``cols``, or the start screen's): the classic game's unless
    /// flags changed them, checked on every size the game may be played on.
    package var rules: RulesSettings

    /// Creates a configuration.
    package init(
        rows: Int? = nil, cols: Int? = nil, targetTile: Int? = 2048, seed: UInt64,
        player: String = "human", sizeChoices: [Int] = PlayConfiguration.squareSizes, rules: RulesSettings = RulesSettings(Rules())
    ) {
        self.rules = rules
        self.rows = rows
        self.cols = cols
        self.targetTile = targetTile
        self.seed = seed
        self.player = player
        self.sizeChoices = sizeChoices
    }

    /// The square sizes a start screen offers.
    package static let squareSizes = Array(2...6)

    /// The first size the game may be played on (`rows` × `cols` when given, else each of `sizeChoices`) on which
    /// `rules` make no game, with why; `nil` when they make one on every such size.
    package static func refusedSize(
        of rules: RulesSettings, rows: Int?, cols: Int?, sizeChoices: [Int] = squareSizes
    ) -> (rows: Int, cols: Int, error: RulesError)? {
        for (sizeRows, sizeCols) in rows.map({ [($0, cols ?? $0)] }) ?? sizeChoices.map({ ($0, $0) }) {
            var settings = rules
            (settings.rows, settings.cols) = (sizeRows, sizeCols)
            do throws(RulesError) { _ = try settings.rules() } catch { return (sizeRows, sizeCols, error) }
        }
        return nil
    }

    /// A seed from the wall clock, for a game without `--seed`: milliseconds since 1970,
    /// 13 digits, short enough to type and exact in any JSON reader.
    package static func clockSeed() -> UInt64 { SystemClock.wallClockMilliseconds() }
}
