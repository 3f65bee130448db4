import Game2048
import Game2048Network

extension TrainingRequest {
    /// The request of the learner settings a door was given (`g2048 train`'s flags, `g2048_learner_make`'s
    /// options), read here once for every door, each by its ``LearnerSetting`` declaration; the settings not given
    /// keep the command's defaults. The run's limits, threads and outputs are the door's to set.
    ///
    /// - Parameters:
    ///   - given: the values given.
    ///   - rules: the rules of a board of the given size (both sides `nil` when neither `rows` nor `cols` was
    ///     given; one given stands for both), as the door makes them.
    ///   - out: the weights file to write, from the rules and the `resume` file.
    /// - Throws: the door's refusal of a value, or of what the request decides (``TrainingError``).
    public init<Given: LearnerSettingValues>(
        _ given: Given, rules: (_ size: (rows: Int, cols: Int)?) throws(Given.Failure) -> Rules,
        out: (_ rules: Rules, _ resume: String?) -> String
    ) throws(Given.Failure) {
        let (rows, cols) = (try given.integer(LearnerSetting.rows, as: Int.self), try given.integer(LearnerSetting.cols, as: Int.self))
        let size = (rows ?? cols).map { (rows: rows ?? $0, cols: cols ?? $0) }
        let resume = try given.text(LearnerSetting.resume)
        let rules = try rules(size)
        let alpha = try given.number(LearnerSetting.alpha), optimism = try given.number(LearnerSetting.optimistic)
        let learning = try given.choice(LearnerSetting.learning, of: LearningMethod.self)
        self = try given.refusing { () throws(TrainingError) in
            try TrainingRequest(rules: rules, out: out(rules, resume), learning: learning, alpha: alpha, optimism: optimism)
        }
        (self.size, self.resume) = (size, resume)
        coherenceAlpha = try given.number(LearnerSetting.coherenceAlpha)
        coherenceFrom = try given.number(LearnerSetting.coherenceFrom)
        tableShare = try given.number(LearnerSetting.tableShare)
        tableLearning = try given.choice(LearnerSetting.tableLearning, of: TableLearning.self)
        // A resumed file's board and rules are its own: checked when it is read.
        if resume == nil { try given.refusing { [self] () throws(TrainingError) in try checkTableShare(rules: rules) } }
        if let text = try given.text(LearnerSetting.stages) {
            stages = try given.refusing { () throws(TrainingError) in try Self.stages(parsing: text, rows: rules.rows, cols: rules.cols) }
        }
        stageBoards = try given.choice(LearnerSetting.stageBoards, of: StageBoards.self)
        schedule = try given.choice(LearnerSetting.update, of: TDLearner.Schedule.self) ?? .forward
        restart = try given.number(LearnerSetting.restart) ?? 0
        restartFrom = try given.integer(LearnerSetting.restartFrom, as: Int.self)
        lanes = try given.integer(LearnerSetting.lanes, as: Int.self)
        if let seed = try given.integer(LearnerSetting.seed, as: UInt64.self) { (self.seed, seedGiven) = (seed, true) }
        let (network, patterns) = (try given.text(LearnerSetting.network), try given.text(LearnerSetting.patterns))
        try given.refusing { () throws(TrainingError) in
            try choosePatterns(named: network, cells: patterns, optimismGiven: optimism != nil)
        }
    }
}
