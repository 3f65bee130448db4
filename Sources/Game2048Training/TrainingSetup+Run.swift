import Game2048
import Game2048Network
import GymSystem

extension TrainingSetup {
    /// Runs the setup's ``TrainingRun``: the network's games, then the table's part; the network's weights are
    /// saved to the request's `out` before a sweep begins, so that its games are kept whatever becomes of the sweep
    /// (a signal's second stop, a failure).
    ///
    /// - Parameters:
    ///   - hooks: what the caller is told as the run goes; its `metadata` gives the counters so far (this setup
    ///     adds the learner's state), its `sweepStarting` is called before the network's weights are saved.
    ///   - networkSaved: called once they are, as the sweep begins.
    /// - Returns: what the run did; ``save(after:counted:)`` then saves it.
    /// - Throws: a ``TrainingError`` when the network's weights cannot be saved before the sweep.
    public func run(_ hooks: TrainingRun.Hooks, networkSaved: @escaping () -> Void) throws -> TrainingRun.Outcome {
        var hooks = hooks
        let counted = hooks.metadata, sweepStarting = hooks.sweepStarting
        hooks.metadata = { self.metadata(counted: counted()) }
        hooks.sweepStarting = {
            try sweepStarting()
            try self.save(self.metadata(counted: counted()), to: self.request.out)
            networkSaved()
        }
        return try trainingRun.run(hooks)
    }

    /// The run this setup starts: its learner by its schedule, with the request's threads, lanes and checkpoints.
    public var trainingRun: TrainingRun {
        TrainingRun(
            learner: learner, schedule: schedule, tableLearning: tableLearning, threads: request.threads, lanes: lanes, seed: base.seed,
            checkpoint: request.checkpointEvery.map { TrainingRun.Checkpoint(every: $0, path: request.out) })
    }

    /// The metadata to save: `counted`, the base with this run's counters, with OTD+TC's switch as the learner has it.
    public func metadata(counted: TrainingMetadata) -> TrainingMetadata {
        var metadata = counted
        metadata.coherenceStarted = base.learning == .otdThenTC && learner.learnsByCoherence
        return metadata
    }

    /// Saves the weights after a run that did `outcome`, with the counters `counted` gives, and returns the metadata
    /// saved.
    ///
    /// - Throws: ``TrainingError/failure(_:)`` when the weights diverged (they are not saved: they would replace good
    ///   ones with garbage), when a checkpoint failed (the weights are saved once more first), or when the save
    ///   failed (``save(_:to:)``).
    public func save(after outcome: TrainingRun.Outcome, counted: () -> TrainingMetadata) throws(TrainingError) -> TrainingMetadata {
        let out = request.out
        switch outcome.halt {
        case .diverged(let game):
            let kept =
                request.checkpointEvery.map { "the last checkpoint (every \($0) games) in \(out) is kept" }
                ?? (request.resume.map { "\($0) is left as it was" } ?? "nothing was saved")
            throw .diverged(at: game, kept)
        case .checkpointFailed(let error):
            // The run stopped on a failed checkpoint: its weights are saved where they can be (else a rescue file).
            try save(metadata(counted: counted()), to: out)
            throw .failure("checkpoint failed: \(error); the weights were saved to \(out) on a second try")
        case nil: break
        }
        let metadata = metadata(counted: counted())
        try save(metadata, to: out)
        return metadata
    }

    /// Saves the network's weights to `out`; when that fails (a disk filled during the run), to a rescue file in the
    /// temporary folder or the home folder, so that the run's work is never lost without a word.
    ///
    /// - Throws: ``TrainingError/failure(_:)`` saying where the weights went instead, or that they are lost.
    public func save(_ metadata: TrainingMetadata, to out: String) throws(TrainingError) {
        let failure: WeightsFileError
        do {
            return try WeightsFile.save(network, metadata: metadata, to: out)
        } catch {
            failure = error
        }
        var tried: [String] = []
        let name = "g2048-rescued-weights-\(SystemProcess.id).bin"
        for folder in [SystemIO.environment("TMPDIR"), "/tmp", SystemIO.environment("HOME")].compactMap({ $0 }) where !folder.isEmpty {
            let rescue = (folder.hasSuffix("/") ? folder : folder + "/") + name
            do {
                try WeightsFile.save(network, metadata: metadata, to: rescue)
            } catch {
                tried.append("\(rescue) (\(error))")
                continue
            }
            throw .failure(
                "\(failure); the weights were saved to \(rescue) instead: move them where they belong, or "
                    + "continue with 'g2048 train --resume \(rescue) --out \(out)'")
        }
        throw .failure("\(failure); saving them elsewhere failed too: \(tried.joined(separator: "; ")); the weights are lost")
    }

    /// Draws the learning curve of a run that did `outcome` to `path`: the rows of the earlier runs' metrics file
    /// `metrics` (a resumed run's curve starts where they left off), then this run's `rows`; OTD+TC's switch and
    /// the table's start marked, optimal play's expected score drawn when known.
    package func writePlot(rows: [MetricsRow], metrics: String?, outcome: TrainingRun.Outcome, to path: String) throws(MetricsOutputError) {
        let earlier = request.resume != nil ? metrics.flatMap { try? TrainingMetrics.rows(fromCSVFile: $0) } ?? [] : []
        let title = "g2048 train \(rules.sizeLabel), α = \(base.alpha), optimistic \(formatFixed(base.initialValue, digits: 0))"
        let markers =
            (outcome.coherenceStartedAt.map { [(games: $0, label: "TC from here")] } ?? [])
            + (outcome.learnedTable && outcome.tableFrom > base.games
                ? [(games: outcome.tableFrom, label: outcome.swept == nil ? "table from here" : "table swept here")] : [])
        try LearningCurvePlot.writeSVG(
            rows: earlier.filter { $0.games <= base.games } + rows, title: title, markers: markers,
            reference: optimalScore.map { ($0, "optimal play") }, to: path)
    }
}
