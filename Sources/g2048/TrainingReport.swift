import Game2048Network
import Game2048Training
import Synchronization
import GymSystem

/// What `g2048 train` keeps while it runs: the learning curve, its CSV file and the progress summary.
///
/// Called once per game from the training loop (never concurrently).
final class TrainingReport: Sendable {
    let state: Mutex<TrainingMetrics>
    let file: MetricsCSVWriter?
    let failure = Mutex<MetricsOutputError?>(nil)
    let start = SystemClock.monotonicSeconds()
    let secondsBefore: Double

    init(interval: Int, gamesBefore: Int, movesBefore: Int, secondsBefore: Double, file: MetricsCSVWriter?) {
        state = Mutex(TrainingMetrics(interval: interval, gamesBefore: gamesBefore, movesBefore: movesBefore, secondsBefore: secondsBefore))
        self.file = file
        self.secondsBefore = secondsBefore
    }

    var elapsed: Double { SystemClock.monotonicSeconds() - start }

    /// Records a game; returns the progress detail (moves/s, mean score and the reach rates of the
    /// two largest tiles over the last 1 000 games).
    func record(_ result: GameResult) -> String {
        let seconds = elapsed
        let (row, window, rate) = state.withLock { metrics in
            let row = metrics.record(result, elapsedSeconds: seconds)
            return (row, metrics.window, metrics.movesPerSecond(elapsedSeconds: seconds))
        }
        if let row, let file {
            do { try file.write(row) } catch { failure.withLock { $0 = $0 ?? error } }
        }
        return TrainingReport.summary(window, movesPerSecond: rate)
    }

    /// "1.83 M moves/s, last 1000: mean score 2345, 128 in 41.0 %, 256 in 0.3 %".
    static func summary(_ window: WindowStatistics, movesPerSecond: Double) -> String {
        "\(formatFixed(movesPerSecond / 1e6, digits: 2)) M moves/s, last \(window.games): mean score "
            + "\(formatFixed(window.meanScore, digits: 0))"
            + window.reachRates.map { ", \($0.tile) in \(formatFixed(100 * $0.rate, digits: 1)) %" }.joined()
    }

    /// The summary of the most recent games with the run's average speed, for the final line (the
    /// progress lines' speed is that of their last few seconds, and saving a large network takes some).
    func finalSummary(movesPerSecond: Double) -> String {
        state.withLock { TrainingReport.summary($0.window, movesPerSecond: movesPerSecond) }
    }

    /// The mean score of the most recent games (the summary's window).
    var recentMeanScore: Double { state.withLock { $0.window.meanScore } }

    /// Every learning-curve row so far.
    var allRows: [MetricsRow] { state.withLock { $0.rows } }

    /// The metadata to save: `base` with the counters of this run added and, with `suggestingDowngrade`, the
    /// search's downgrading tile chosen from the last games (`TileDowngrade.suggestedLimit`), once they fill
    /// the window; until then a resumed run keeps the file's.
    func metadata(base: TrainingMetadata, suggestingDowngrade: Bool = false) -> TrainingMetadata {
        var metadata = base
        state.withLock { metrics in
            metadata.games = metrics.games
            metadata.moves = metrics.moves
            let window = metrics.window
            if !suggestingDowngrade {
                metadata.downgradeLimit = nil
            } else if window.games >= metrics.windowSize {
                metadata.downgradeLimit = TileDowngrade.suggestedLimit(
                    initialValue: base.initialValue, window: window, windowSize: metrics.windowSize)
            }
        }
        metadata.elapsedSeconds = secondsBefore + elapsed
        return metadata
    }

    /// Reports a CSV write that failed during the run.
    func finish() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
