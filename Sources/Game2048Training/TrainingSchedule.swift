import Game2048
import Game2048Network

/// How a training run divides its games and seconds, decided before its first game: the network learns first, then,
/// on a board small enough, the afterstate table over it, each within its share of the run; OTD+TC learns by TD and
/// switches to TC at a fraction of the network's part.
///
///     let schedule = TrainingSchedule(gamesBefore: 0, games: 10_000, seconds: nil, tableShare: 0.8, coherenceFrom: 0.5)
///     schedule.networkGames     // 2 000: the network's part ends at the run's 2 000th game
///     schedule.coherenceGame    // 1 000: OTD+TC switches to TC there
///
/// A limit of games counts the games of earlier runs (a resumed file's): the network's part ends at its share of the
/// games still to play, past those. A limit of seconds is this run's, from its start.
public struct TrainingSchedule: Sendable, Hashable {
    /// The games the network had played before this run (a resumed file's).
    public var gamesBefore: Int
    /// The run stops at this many games in total, earlier runs' included, if set.
    public var games: Int?
    /// The run stops after this many seconds, if set.
    public var seconds: Double?
    /// The share of the run (0 to 1) that learns the afterstate table, after the network.
    public var tableShare: Double
    /// OTD+TC: the share of the network's part (0 to 1) after which TC takes over.
    public var coherenceFrom: Double

    /// Creates a schedule.
    public init(gamesBefore: Int, games: Int?, seconds: Double?, tableShare: Double, coherenceFrom: Double) {
        self.gamesBefore = gamesBefore
        self.games = games
        self.seconds = seconds
        self.tableShare = tableShare
        self.coherenceFrom = coherenceFrom
    }

    /// Whether the network learns in this run (a run that only learns a table leaves it as it is).
    public var learnsNetwork: Bool { tableShare < 1 }

    /// Whether an afterstate table learns in this run, after the network.
    public var learnsTable: Bool { tableShare > 0 }

    /// The game count, earlier runs' included, at which the network's part ends, if the run has a limit of games.
    public var networkGames: Int? { games.map { gamesBefore + Self.portion(1 - tableShare, of: max(0, $0 - gamesBefore)) } }

    /// The seconds of the network's part, if the run has a limit of seconds.
    public var networkSeconds: Double? { seconds.map { $0 * (1 - tableShare) } }

    /// The seconds of the table's part, if the run has a limit of seconds.
    public var tableSeconds: Double? { seconds.map { $0 * tableShare } }

    /// OTD+TC's switch to TC, when the run has a limit of games: the game count at which it is due.
    public var coherenceGame: Int? { networkGames.map { Self.portion(coherenceFrom, of: $0, rounding: .up) } }

    /// OTD+TC's switch to TC, when the run has only a limit of seconds: the seconds into the run at which it is due.
    public var coherenceSeconds: Double? { coherenceGame == nil ? networkSeconds.map { $0 * coherenceFrom } : nil }

    /// Whether OTD+TC's switch to TC is due after `game` games in total, `elapsed` seconds into the run (read only
    /// when the switch goes by the clock); never in a run with neither limit.
    public func coherenceIsDue(game: Int, elapsed: () -> Double) -> Bool {
        coherenceGame.map { game >= $0 } ?? coherenceSeconds.map { elapsed() >= $0 } ?? false
    }

    /// `fraction` (0 to 1) of `count` games, rounded by `rule`, within 0...count: a Double of a count near `Int.max`
    /// rounds above it, and converting that back would trap (`--games 9223372036854775807`).
    public static func portion(_ fraction: Double, of count: Int, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        let part = (Double(count) * fraction).rounded(rule)
        return part >= Double(count) ? count : max(0, Int(part))
    }
}

extension TrainingSchedule {
    /// The default share of a run that learns the afterstate table, after the network: on every board that may
    /// have one (`AfterstateTable.fits(rows:cols:)`), measured exactly against the solved 2×4 and 3×3
    /// (docs/SOLVER.md); none elsewhere.
    public static func defaultTableShare(rows: Int, cols: Int) -> Double { AfterstateTable.fits(rows: rows, cols: cols) ? 0.8 : 0 }

    /// The share of a new network's run that learns a table: `asked`, else the board's default where the rules
    /// allow a table.
    public static func tableShare(asked: Double?, rules: Rules) -> Double {
        asked ?? (AfterstateLearner.unsupportedRule(in: rules) == nil ? defaultTableShare(rows: rules.rows, cols: rules.cols) : 0)
    }

    /// The share of `network`'s run that learns its table: none without a table, the whole run once the table holds
    /// afterstates (its network no longer learns under it), else as for a new network.
    public static func tableShare(of network: NTupleNetwork, asked: Double?, rules: Rules) -> Double {
        network.afterstates.map { $0.count > 0 ? 1 : tableShare(asked: asked, rules: rules) } ?? 0
    }

    /// How the table learns in this run, and why a sweep may not: `asked`, else a sweep unless the clock would cut it
    /// before its first value (`TableLearning.default(rules:seconds:)`) or the memory cannot hold it, then the games.
    ///
    /// `threads`: every thread the run starts, as ``AfterstateSweep/memoryShortfall(rules:threads:)`` counts them.
    ///
    /// - Returns: the method, and what a sweep would lack of memory (`nil` when it fits, and when it was not
    ///   considered: no table, or games asked for). A sweep asked for is returned even when it cannot fit: the
    ///   caller refuses it.
    public func tableLearning(asked: TableLearning?, rules: Rules, threads: Int) -> (method: TableLearning, sweepShortfall: String?) {
        let shortfall = learnsTable && asked != .games ? AfterstateSweep.memoryShortfall(rules: rules, threads: threads) : nil
        return (asked ?? (shortfall == nil ? TableLearning.default(rules: rules, seconds: tableSeconds) : .games), shortfall)
    }
}
