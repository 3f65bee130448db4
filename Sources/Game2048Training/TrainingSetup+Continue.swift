import Game2048Network

extension TrainingSetup {
    /// The setup of a further run of `setup`'s learner, from `counted` (the metadata after the runs so far): `games`
    /// more games, or `seconds`, on `threads` threads. It is the setup `--resume` of the file those runs would have
    /// saved makes, without the file: the same schedule, so a learner trained in steps plays the games one run plays.
    ///
    /// - Throws: ``TrainingError`` as ``init(_:)`` does for the table's learning.
    public init(continuing setup: TrainingSetup, from counted: TrainingMetadata, games: Int?, seconds: Double?, threads: Int) throws(TrainingError) {
        var request = setup.request
        (request.games, request.seconds, request.threads) = (
            games.map { counted.games.addingReportingOverflow($0).overflow ? .max : counted.games + $0 }, seconds, threads
        )
        self.request = request
        (rules, learner, lanes, optimalScore) = (setup.rules, setup.learner, setup.lanes, setup.optimalScore)
        base = setup.metadata(counted: counted)
        schedule = Self.schedule(request, base: base, network: setup.network, rules: rules)
        (tableLearning, gamesInsteadOfSweep) = try Self.tableLearning(request, schedule: schedule, network: setup.network, rules: rules)
    }
}
