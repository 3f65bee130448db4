/// The configuration of a game: board size, spawn distribution and episode limits.
///
///     let classic = Rules()                                    // 4×4, the original game
///     let wide = try Rules(rows: 3, cols: 5, spawnFourProbability: 0.2)
///     let short = try Rules(winTile: 2048, maxSteps: 1_000, invalidAction: .terminate(penalty: 100))
///
/// The defaults are the original game's (Gabriele Cirulli's `game_manager.js`):
/// a 4×4 board, two starting tiles, and after every move that changes the board
/// one new tile, a 2 with probability 0.9 or a 4 with probability 0.1, on a
/// uniformly random empty cell. The original game has no step limit and lets a
/// player keep going after 2048, so `winTile` and `maxSteps` are off by default.
///
/// Every stored value has been validated: a `Rules` value always describes a
/// playable game.
public struct Rules: Hashable, Sendable {
    /// The behaviour version of the rules. It changes whenever the same rules,
    /// seed and actions would give a different trajectory, and stays the same
    /// across refactors and speed-ups.
    public static let version = 1

    /// The smallest and largest number of rows or columns.
    public static let sizeRange = 2...8
    /// The chances a spawned tile may have of being a 4.
    public static let spawnFourProbabilityRange = 0.0...1.0
    /// The step limits an episode may have (``maxSteps``): every game's.
    public static let maxStepsRange = EpisodeLimits.maxStepsRange
    /// The penalties `InvalidActionPolicy/terminate(penalty:)` may give: every game's.
    public static let penaltyRange = EpisodeLimits.penaltyRange
    /// The win tiles there may be: powers of two in this range (4 to 2^50).
    public static var winTileRange: ClosedRange<Int> { 4...(1 << Int(maxExponent)) }

    /// Whether `tile` may be a win tile: a power of two in ``winTileRange`` (any tile a merge can make).
    @inlinable
    public static func isWinTile(_ tile: Int) -> Bool { winTileRange.contains(tile) && tile.nonzeroBitCount == 1 }

    /// The largest exponent a board given to the library may hold (tile 2^50,
    /// about 10^15), and the largest win tile.
    ///
    /// Why 50: a board of at most 64 such tiles holds a tile sum below 2^57, and
    /// a score counts each unit of that sum at most once per doubling (under 64
    /// times), so no episode from a valid board can push a reward, a score or a
    /// tile value past a signed 64-bit integer before it has spawned some 2^56
    /// tiles. Real play never comes near: the largest tile a 4×4 game can make is 2^17.
    public static let maxExponent: UInt8 = 50

    /// Number of rows, 2 to 8.
    public let rows: Int
    /// Number of columns, 2 to 8.
    public let cols: Int
    /// Probability that a spawned tile is a 4 rather than a 2, 0 to 1 (default 0.1).
    public let spawnFourProbability: Double
    /// Number of tiles placed at the start of an episode, 1 to rows × cols (default 2).
    public let initialTiles: Int
    /// When set, the episode terminates (with `won = true`) as soon as a tile of
    /// this value appears; a power of two from 4 to 2^50. Default `nil`: keep playing.
    public let winTile: Int?
    /// When set, the episode is truncated after this many steps, 1 or more. Default `nil`.
    public let maxSteps: Int?
    /// What a step with an illegal action does (default `InvalidActionPolicy/noop`).
    public let invalidAction: InvalidActionPolicy

    /// Creates validated rules.
    ///
    /// - Throws: ``RulesError`` naming the first parameter out of range, for
    ///   example "rows must be an integer from 2 to 8, got 99".
    public init(
        rows: Int = 4,
        cols: Int = 4,
        spawnFourProbability: Double = 0.1,
        initialTiles: Int = 2,
        winTile: Int? = nil,
        maxSteps: Int? = nil,
        invalidAction: InvalidActionPolicy = .noop
    ) throws(RulesError) {
        guard Rules.sizeRange.contains(rows) else { throw .rows(rows) }
        guard Rules.sizeRange.contains(cols) else { throw .cols(cols) }
        guard Rules.spawnFourProbabilityRange.contains(spawnFourProbability) else {
            throw .spawnFourProbability(spawnFourProbability)
        }
        guard (1...(rows * cols)).contains(initialTiles) else {
            throw .initialTiles(initialTiles, cells: rows * cols)
        }
        if let winTile {
            guard Rules.isWinTile(winTile) else {
                throw .winTile(winTile)
            }
        }
        if let maxSteps, !Rules.maxStepsRange.contains(maxSteps) { throw .maxSteps(maxSteps) }
        if case .terminate(let penalty) = invalidAction, !Rules.penaltyRange.contains(penalty) { throw .penalty(penalty) }
        self.rows = rows
        self.cols = cols
        self.spawnFourProbability = spawnFourProbability
        self.initialTiles = initialTiles
        self.winTile = winTile
        self.maxSteps = maxSteps
        self.invalidAction = invalidAction
    }

    /// The classic game: 4×4 and every other option at its default (the one initialiser above states them).
    public init() {
        // Cannot fail: the defaults are valid (RulesTests checks `Rules()` against them).
        try! self.init(rows: 4, cols: 4)
    }

    /// Number of cells, `rows * cols`.
    @inlinable
    public var cellCount: Int { rows * cols }

    /// The exponent of the largest tile an episode under these rules can hold:
    /// `rows * cols + 1`, at most ``maxExponent`` (17, the tile 131 072, on 4×4).
    ///
    /// Natural play cannot go further: building a tile 2^k takes k − 1 cells at
    /// once when every spawn is at most a 4, so `n` cells make at most 2^(n+1),
    /// and never two of them. Custom boards could break that bound, so the
    /// environment keeps it for them:
    /// - ``Environment/reset(seed:board:)`` refuses a board holding a larger tile;
    /// - a move that would merge two tiles at this ceiling is illegal: it is left
    ///   out of the action mask, and stepping it follows ``invalidAction``.
    ///
    /// So every observation lies within `0...largestExponent`, the `high` bound of
    /// the observation space, and play from every board that natural play can reach
    /// is the original game's. On 7×8 and 8×8 the ceiling is 2^50 instead of
    /// 2^57 and 2^65, which natural play would need some 2^49 moves to approach.
    @inlinable
    public var largestExponent: UInt8 { UInt8(min(cellCount + 1, Int(Rules.maxExponent))) }

    /// The exponent of ``winTile`` (11 for 2048), or `nil`.
    @inlinable
    public var winExponent: UInt8? { winTile.map { UInt8($0.trailingZeroBitCount) } }

    /// How an episode starts, spawns and ends under these rules: what every player of the game reads.
    @inlinable
    public var episodeRules: EpisodeRules { EpisodeRules(self) }

    /// A short label such as `"4x4"`, used to key results by board configuration.
    public var sizeLabel: String { "\(rows)x\(cols)" }
}
