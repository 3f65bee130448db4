import Game2048
import Game2048Network

/// What a training run is asked for (`g2048 train`'s flags), before any file is read: ``TrainingSetup`` turns it
/// into a network, a learner and a schedule, deciding what was left out.
///
///     var request = TrainingRequest(rules: try Rules(rows: 3, cols: 3), out: "w.bin")
///     request.games = 10_000
///     let setup = try TrainingSetup(request)
///
/// A setting that is `nil` takes its default, which may depend on the board or on the `--resume` file (`resume`):
/// a resumed network keeps its file's board, patterns, stages, learning method and rules.
public struct TrainingRequest: Sendable {
    /// The rules of a new network's games (a resumed one plays by its file's).
    public var rules: Rules
    /// The rules options given explicitly: a resumed file refuses those that differ from its own.
    public var rulesGiven: [RulesOption] = []
    /// The board size as given, if given: a resumed file refuses another.
    public var size: (rows: Int, cols: Int)?
    /// The weights file the run writes (and checkpoints).
    public var out: String
    /// Stop at this many games in total, earlier runs' included, if set.
    public var games: Int?
    /// Stop after this many seconds, if set.
    public var seconds: Double?
    /// TD's learning rate: the one asked for, else the board's default (``defaultLearning(rows:cols:)``).
    public var alpha: Double
    /// Whether ``alpha`` was asked for (a resumed file keeps its own otherwise).
    public var alphaGiven: Bool
    /// A new network's value of every board (optimistic initialization).
    public var optimism: Double
    /// A new network's patterns, if not the board's default.
    public var patterns: [TuplePattern]?
    /// Stage thresholds as tile exponents, if set.
    public var stages: [UInt8]?
    /// How the stages past the first read their boards, if set (else `StageBoards.plain`, or the resumed file's).
    public var stageBoards: StageBoards?
    /// The learning method, if set (else the board's default, or the resumed file's).
    public var learning: LearningMethod?
    /// TC's meta learning rate, if set.
    public var coherenceAlpha: Double?
    /// OTD+TC: the fraction of the network's part after which TC takes over, if set.
    public var coherenceFrom: Double?
    /// The share of the run that learns the afterstate table, if set (``TrainingSchedule/tableShare(asked:rules:)``).
    public var tableShare: Double?
    /// How the table learns, if set (else ``TrainingSchedule/tableLearning(asked:rules:threads:)`` decides).
    public var tableLearning: TableLearning?
    /// When the learner updates its weights.
    public var schedule: TDLearner.Schedule = .forward
    /// Self-play threads over the shared weights.
    public var threads = 1
    /// The chance that a game which ended starts again from its restart point (``TDLearner/restartChance``).
    public var restart = 0.0
    /// The smallest tile a restart point holds, if set (``TDLearner/restartTile``).
    public var restartFrom: Int?
    /// Games each thread plays at once, if set (else ``TrainingSetup/lanes`` decides by the board).
    public var lanes: Int?
    /// The seed of the games.
    public var seed: UInt64 = 1
    /// Whether ``seed`` was asked for (a resumed file keeps its own otherwise).
    public var seedGiven = false
    /// Save the weights every this many games, if set.
    public var checkpointEvery: Int?
    /// The weights file to continue, if any.
    public var resume: String?
    /// The board's solution file (`g2048 solve`), whose expected score the run is measured against, if any.
    public var solution: String?

    /// Creates a request for a network under `rules`, written to `out`; `learning`, `alpha` and `optimism` as
    /// asked, the others left to their defaults.
    ///
    /// - Throws: ``TrainingError/settings(_:)`` for a learning rate given to TC, which has none.
    public init(rules: Rules, out: String, learning: LearningMethod? = nil, alpha: Double? = nil, optimism: Double? = nil)
        throws(TrainingError)
    {
        (self.rules, self.out, self.learning) = (rules, out, learning)
        self.alpha = alpha ?? Self.defaultLearning(rows: rules.rows, cols: rules.cols).alpha
        alphaGiven = alpha != nil
        // Pure TC starts from zero weights, as Jaśkowski (2018) does; OTD and OTD+TC from optimistic ones.
        self.optimism = optimism ?? (learning == .tc ? 0 : Self.defaultOptimism(rows: rules.rows, cols: rules.cols))
        if learning == .tc && alphaGiven { throw .settings("--alpha is TD's learning rate; --learning tc uses --tc-alpha") }
    }

    /// The default optimistic initial value for a board size, chosen by measurement (the README's
    /// learner figures): the value should be above what the board's games score, but far above it
    /// slows learning down on small boards (3×3, 40 000 games: greedy 2 152 with 10 000, 1 516 with 80 000).
    public static func defaultOptimism(rows: Int, cols: Int) -> Double {
        switch rows * cols {
        case ..<9: 1_000
        case ..<13: 10_000
        default: 80_000
        }
    }

    /// The default learning rate and method of a new network: on the small boards of the 7-tuple default
    /// (`TuplePattern.smallBoardCells`), a higher rate and OTD then TC, measured exactly against the solved
    /// 3×3 and 2×4 (docs/SOLVER.md: ten minutes reach 84.5 % and 88.7 % of optimal play, against 73.8 % and
    /// 83.6 % with TD at 0.1); elsewhere TD at 0.1, the rate of the 4×4 literature.
    public static func defaultLearning(rows: Int, cols: Int) -> (alpha: Double, method: LearningMethod) {
        TuplePattern.smallBoardCells.contains(rows * cols) ? (0.3, .otdThenTC) : (0.1, .td)
    }

    /// Refuses ``tableShare`` above 0 where a table cannot be learned under `rules`: a board of more than
    /// `AfterstateTable.maxCells` cells, or rules the solver's equations do not model. A new network's rules are
    /// ``rules``; a resumed one's are its file's, checked once it is read.
    public func checkTableShare(rules: Rules) throws(TrainingError) {
        guard let tableShare, tableShare > 0 else { return }
        guard AfterstateTable.fits(rows: rules.rows, cols: rules.cols) else {
            throw .settings(
                "--table-share: an afterstate table is for boards of up to \(AfterstateTable.maxCells) cells (2x4, 3x3 and smaller); "
                    + "a \(rules.sizeLabel) network learns alone")
        }
        if let rule = AfterstateLearner.unsupportedRule(in: rules) { throw .settings("--table-share: \(rule)") }
    }
}
