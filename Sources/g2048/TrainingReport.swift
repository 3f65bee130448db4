import Game2048Learning
import Synchronization
import Game2048System

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

    /// The tile a 4×4 network's search should downgrade from (`eval --downgrade`): the largest tile
    /// that at least half of the last 1 000 games reached, or `nil` below a full window, when neither
    /// of the two largest tiles is that common, or when it is 32 768 or more (the default already).
    ///
    /// Why: past that tile the network has seen few boards, and valuing them as the smaller boards
    /// it knows plays better. Greedy over 1 000 or 2 000 games on three networks: a 2-minute run
    /// (4096 in 82 % of its last games) 77 572 by default, 88 789 from 4096, 67 660 from 2048; two
    /// 60-minute runs (8192 in 82 % and 85 %) 142 876 → 171 544 and 164 928 → 193 648 from 8192
    /// (132 132 from 4096).
    static func downgradeAdvice(_ window: WindowStatistics, windowSize: Int) -> Int? {
        guard window.games >= windowSize, let tile = window.reachRates.last(where: { $0.rate >= 0.5 })?.tile else { return nil }
        return (8..<32768).contains(tile) ? tile : nil
    }

    /// The line that suggests ``downgradeAdvice(_:windowSize:)``'s tile for searching with `weights`, if any.
    func downgradeAdvice(weights: String) -> String? {
        state.withLock { TrainingReport.downgradeAdvice($0.window, windowSize: $0.windowSize) }.map { tile in
            "search it with tile-downgrading from \(tile), the largest tile most of the last games reached: "
                + "g2048 eval --weights \(weights) --downgrade \(tile)"
        }
    }

    /// Every learning-curve row so far.
    var allRows: [MetricsRow] { state.withLock { $0.rows } }

    /// The metadata to save: `base` with the counters of this run added.
    func metadata(base: TrainingMetadata) -> TrainingMetadata {
        var metadata = base
        state.withLock { metrics in
            metadata.games = metrics.games
            metadata.moves = metrics.moves
        }
        metadata.elapsedSeconds = secondsBefore + elapsed
        return metadata
    }

    /// Reports a CSV write that failed during the run.
    func finish() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
