import Game2048
import Game2048Network
import Game2048Solver
import Game2048Training
import Synchronization
import GymSystem

/// What `g2048 train` keeps while it runs: the learning curve, its CSV file and the progress summary; and what it
/// says of the run.
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

    /// The metadata to save: `base` with the counters of this run added
    /// (`TrainingMetrics.metadata(base:downgradeCeiling:elapsedSeconds:)`).
    func metadata(base: TrainingMetadata, downgradeCeiling: UInt8?) -> TrainingMetadata {
        let seconds = secondsBefore + elapsed
        return state.withLock { $0.metadata(base: base, downgradeCeiling: downgradeCeiling, elapsedSeconds: seconds) }
    }

    /// Reports a CSV write that failed during the run.
    func finish() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// What `g2048 train` says of its run: the lines on stderr as it goes, and the result on stdout.
extension TrainingReport {
    /// The line that opens a run: what it trains, how, and where it saves.
    static func announcement(of setup: TrainingSetup) -> String {
        let (network, base, request) = (setup.network, setup.base, setup.request)
        let stagesText =
            network.stageCount == 1
            ? ""
            : " in \(network.stageCount) stages from \(TrainingSetup.tilesText(network.stageThresholds))"
                + (network.stageBoards == .downgraded ? " (their boards downgraded)" : "")
        let shape =
            "\(network.patterns.count) patterns × \(network.symmetryCount) symmetries\(stagesText), "
            + "\(network.weights.count) weights (\((network.weights.count * 4) >> 20) MiB)"
        let method =
            switch base.learning {
            case .td: "TD, α = \(base.alpha)"
            case .tc: "TC, β = \(base.coherenceAlpha)"
            case .otdThenTC:
                "OTD+TC, α = \(base.alpha), β = \(base.coherenceAlpha), "
                    + (base.coherenceStarted ? "in TC" : "TC from \(formatFixed(base.coherenceFrom * 100, digits: 0)) % of the run")
            }
        // Only what applies: a resumed network's starting value is long gone.
        let start =
            request.resume.map { "resuming \($0) (\(base.games) games, \(base.moves) moves so far): \(setup.rules.sizeLabel), \(shape)" }
            ?? "training \(setup.rules.sizeLabel): \(shape), optimistic \(formatFixed(request.optimism, digits: 0))"
        let (threads, lanes, share) = (request.threads, setup.lanes, formatFixed(100 * setup.schedule.tableShare, digits: 0))
        let restarts =
            setup.learner.restartChance == 0
            ? ""
            : ", \(formatFixed(setup.learner.restartChance * 100, digits: 0)) % of ended games restarted from their largest tile "
                + "(from \(setup.learner.restartTile))"
        return start
            + ", \(method)\(restarts), \(request.schedule.rawValue) updates, \(threads) thread\(threads == 1 ? "" : "s") × \(lanes) lane\(lanes == 1 ? "" : "s"), "
            + "seed \(base.seed); saving to \(request.out)"
            + (network.afterstates == nil
                ? ""
                : setup.sweeps
                    ? "; then every afterstate of the table is valued exactly, within \(share) % of the run"
                    : "; the afterstate table learns \(share) % of the run from games, on one thread"
                        + (setup.gamesInsteadOfSweep.map { " (\($0))" } ?? ""))
    }

    /// The line that says the table's part begins with games, from game `game`, by `learner`.
    static func tableGamesStarting(from game: Int, learner: AfterstateLearner) -> String {
        "learning the afterstate table from game \(game) (\(learner.table.count) afterstates so far; one thread, "
            + "the network's weights no longer change)"
    }

    /// Says on stderr what the sweep of `rules`'s board about to begin will do, and returns its progress display.
    static func announceSweep(rules: Rules, threads: Int) -> LayeredProgress {
        let estimate = OptimalSolver.estimatedAfterstates(rules: rules)
        Console.error(
            "valuing every afterstate of \(rules.sizeLabel) exactly: one backward sweep of dynamic programming on \(threads) "
                + "thread\(threads == 1 ? "" : "s"), about \(formatEstimate(estimate)) afterstates and "
                + "\(byteSize(AfterstateSweep.estimatedBytes(rules: rules))) "
                + "with the table (estimated); the network's weights no longer change")
        return LayeredProgress.solving(estimate: estimate)
    }

    /// Says on stderr what a sweep of `seconds` did, and how to finish a cut one (resuming `out`).
    static func reportSweep(_ outcome: AfterstateSweep.Outcome, seconds: Double, out: String) {
        let took = formatFixed(seconds, digits: 1)
        if outcome.complete {
            Console.error("valued \(outcome.afterstates) afterstates exactly in \(took) s; nothing is left to learn, so the run ends here")
        } else if let shortfall = outcome.shortfall {
            Console.error(
                "the sweep valued every afterstate in \(took) s, but its table could not be made room for: \(shortfall); the "
                    + "table keeps what it held, and 'g2048 train --resume \(out)' with more memory sweeps again")
        } else if outcome.afterstates == 0 {
            Console.error(
                "the sweep stopped after \(took) s, before any afterstate was valued; the table keeps what it held, and "
                    + "'g2048 train --resume \(out)' sweeps again")
        } else {
            Console.error(
                "the sweep stopped after \(took) s with the \(outcome.afterstates) afterstates of the oldest boards valued exactly; "
                    + "younger boards take the network's values, and 'g2048 train --resume \(out)' sweeps again")
        }
    }

    /// Says what a finished run of `setup` wrote (`metadata`, after `runSeconds` of this run) and what its weights
    /// now do: on stdout the result, on stderr a table that stopped growing.
    func conclude(_ setup: TrainingSetup, outcome: TrainingRun.Outcome, metadata: TrainingMetadata, runSeconds: Double) {
        let (out, network, optimal) = (setup.request.out, setup.network, setup.optimalScore)
        var recent = finalSummary(movesPerSecond: Double(metadata.moves - setup.base.moves) / max(runSeconds, 1e-9))
        // The games were the network's; the table swept after them makes another player.
        if outcome.swept != nil { recent += ", the network's games before the sweep" }
        if let optimal {
            recent += " (\(formatFixed(100 * recentMeanScore / optimal, digits: 1)) % of optimal play's \(formatFixed(optimal, digits: 2)))"
        }
        Console.output(
            "wrote \(out): \(metadata.games) games, \(metadata.moves) moves, \(formatFixed(metadata.elapsedSeconds, digits: 0)) s of training"
                + (network.afterstates.map { ", a table of \($0.count) afterstates (\(byteSize($0.fileBytes)))" } ?? "") + "; \(recent)")
        if let table = network.afterstates, let refused = table.growthRefused {
            Console.error(
                "note: the afterstate table stopped growing at \(table.count) afterstates, since doubling it would not fit: "
                    + "\(refused); boards it lacks take the network's value")
        }
        if let swept = outcome.swept, swept.complete {
            Console.output(
                "the table holds the exact value of every afterstate these rules reach: greedy play of \(out) is optimal play"
                    + (optimal.map { ", an expected score of \(formatFixed($0, digits: 2))" } ?? ""))
        }
        if let limit = metadata.downgradeLimit {
            Console.output(
                "eval and play search these weights downgrading from the \(Board.value(ofExponent: limit)) tile, the largest a third of the last games "
                    + "reached (--downgrade overrides)")
        }
    }
}
