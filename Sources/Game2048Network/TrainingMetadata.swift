import Game2048

/// How the weights in a file were trained: what `g2048 train` needs to resume,
/// and what `g2048 eval` reports.
///
///     let metadata = TrainingMetadata(games: 100_000, moves: 90_000_000, seed: 1, alpha: 0.1,
///                                     elapsedSeconds: 3_600, spawnFourProbability: rules.spawnFourProbability)
///
/// The values are stored as given; the file format fixes their widths
/// (`games`, `moves` and `seed` 64 bits, `rulesVersion` 32 bits, the rest Float64).
public struct TrainingMetadata: Hashable, Sendable {
    /// Games trained, in total over every run.
    public var games: Int
    /// Moves played in those games.
    public var moves: Int
    /// The seed of the training run.
    public var seed: UInt64
    /// The learning rate (before it is split over the features).
    public var alpha: Double
    /// The value every weight started at (optimistic initialization when above 0).
    public var initialValue: Double
    /// Wall-clock seconds spent training, in total over every run.
    public var elapsedSeconds: Double
    /// `Rules.version` of the rules the games were played under.
    public var rulesVersion: Int
    /// The spawn probability of a 4 in those games.
    public var spawnFourProbability: Double
    /// How the weights learn (format version 2; a version 1 file is ``LearningMethod/td``).
    public var learning: LearningMethod = .td
    /// TC's meta learning rate β (for ``LearningMethod/tc`` and ``LearningMethod/otdThenTC``).
    public var coherenceAlpha: Double = 1
    /// For ``LearningMethod/otdThenTC``: the fraction of the run (its games, else its seconds) after which TC takes over.
    public var coherenceFrom: Double = 0.5
    /// For ``LearningMethod/otdThenTC``: whether TC has taken over (a resumed run continues in TC).
    public var coherenceStarted: Bool = false
    /// The exponent of the tile from which a search of these weights downgrades boards (see
    /// ``TileDowngrade``), as `g2048 train` chose it from its last games when it saved them; `nil` when
    /// none was recorded (format version 3; searches then downgrade from ``TileDowngrade/defaultLimit``).
    public var downgradeLimit: UInt8? = nil
    /// Every rule the games were played under (format version 4), or `nil` when the file says only its board size
    /// and ``spawnFourProbability`` (the other rules then are the defaults): see ``rules(rows:cols:)``.
    public var trainedRules: Rules? = nil

    /// The rules the games were played under, for a network of `rows × cols`: ``trainedRules``, or the default
    /// rules of that size with ``spawnFourProbability``.
    ///
    /// - Precondition: `rows` and `cols` are 2 to 8 and the probability is valid (a loaded file's are).
    public func rules(rows: Int, cols: Int) -> Rules {
        if let trainedRules { return trainedRules }
        // Cannot fail for a loaded or validated file's values.
        return try! Rules(rows: rows, cols: cols, spawnFourProbability: spawnFourProbability)
    }

    /// Whether formats 1 to 3 can say these rules: no ``trainedRules``, or ones that differ from the defaults of
    /// their size only in ``spawnFourProbability``, which those formats keep.
    func rulesAreImplied(rows: Int, cols: Int) -> Bool {
        guard let trainedRules else { return true }
        return (try? Rules(rows: rows, cols: cols, spawnFourProbability: trainedRules.spawnFourProbability)) == trainedRules
    }

    /// Creates metadata; every parameter has the value of a fresh, untrained network.
    public init(
        games: Int = 0, moves: Int = 0, seed: UInt64 = 0, alpha: Double = 0.1, initialValue: Double = 0,
        elapsedSeconds: Double = 0, rulesVersion: Int = Rules.version, spawnFourProbability: Double = 0.1
    ) {
        self.games = games
        self.moves = moves
        self.seed = seed
        self.alpha = alpha
        self.initialValue = initialValue
        self.elapsedSeconds = elapsedSeconds
        self.rulesVersion = rulesVersion
        self.spawnFourProbability = spawnFourProbability
    }

    /// The most games or moves a file may count: 2^53. Far beyond any run, and
    /// far enough from `Int.max` that a resumed run cannot overflow its counters;
    /// exact as a `Double` too.
    public static let maxCount = 1 << 53

    /// The most training seconds a file may count: 10^12 (some 31 700 years).
    public static let maxElapsedSeconds = 1e12

    /// What a load would refuse in these values, in words, or `nil` when all are usable:
    /// counts from 0 to ``maxCount``, seconds from 0 to ``maxElapsedSeconds``, a finite
    /// learning rate of 0 or more, a finite initial value, a known rules version and a
    /// probability from 0 to 1.
    public func problem() -> String? {
        let countRange = 0...TrainingMetadata.maxCount
        guard countRange.contains(games) else { return "trained games is \(games); it must be 0 to 2^53 (\(TrainingMetadata.maxCount))" }
        guard countRange.contains(moves) else { return "trained moves is \(moves); it must be 0 to 2^53 (\(TrainingMetadata.maxCount))" }
        guard (0...TrainingMetadata.maxElapsedSeconds).contains(elapsedSeconds) else {
            return "training time is \(elapsedSeconds) seconds; it must be 0 to \(TrainingMetadata.maxElapsedSeconds)"
        }
        guard alpha.isFinite && alpha >= 0 else { return "the learning rate is \(alpha); it must be a finite number, 0 or more" }
        guard initialValue.isFinite else { return "the initial value is \(initialValue); it must be a finite number" }
        guard (1...Rules.version).contains(rulesVersion) else {
            return "rules version \(rulesVersion) is unknown; this build knows rules version\(Rules.version == 1 ? "" : "s 1 to") \(Rules.version)"
        }
        guard (0...1).contains(spawnFourProbability) else {
            return "the probability of a 4 is \(spawnFourProbability); it must be 0 to 1"
        }
        guard coherenceAlpha.isFinite && coherenceAlpha >= 0 else {
            return "the TC learning rate is \(coherenceAlpha); it must be a finite number, 0 or more"
        }
        guard (0...1).contains(coherenceFrom) else { return "the TC switch point is \(coherenceFrom); it must be 0 to 1" }
        guard !coherenceStarted || learning == .otdThenTC else {
            return "TC is marked started, but the learning method is \(learning.rawValue); only otd+tc switches to TC"
        }
        if let limit = downgradeLimit, !TileDowngrade.limitRange.contains(limit) {
            return "the search's downgrading tile is 2^\(limit); it must be 8 to 32768 (2^3 to 2^15)"
        }
        return nil
    }
}
