import GymSystem
import Game2048Network

/// The learning curve of a training run: one row every `interval` games, and a
/// sliding window for progress lines.
///
///     var metrics = TrainingMetrics(interval: 1_000)
///     let writer = try MetricsCSVWriter(path: "curve.csv")
///     loop.run(plan) { result, _ in
///         if let row = metrics.record(result, elapsedSeconds: secondsSinceStart()) { try? writer.write(row) }
///         return true
///     }
///     print(metrics.window.meanScore)     // over the last 1 000 games
///
/// A row sums up the `interval` games recorded since the previous row: their
/// mean score, the share that reached each tile of ``MetricsRow/tiles``, and
/// the moves per second while they were played. Its `games`, `moves` and
/// `elapsedSeconds` are totals over the whole run, resumed runs included (see
/// ``init(interval:windowSize:gamesBefore:movesBefore:secondsBefore:)``), so
/// the rows of a resumed run continue the curve of the first.
///
/// The metrics read no clock: the caller passes the elapsed time with each
/// game, which keeps them deterministic and testable.
package struct TrainingMetrics: Sendable {
    /// Games per row.
    package let interval: Int
    /// Games in the sliding ``window``.
    package let windowSize: Int
    /// Games recorded, counting `gamesBefore`.
    package private(set) var games: Int
    /// Moves in those games, counting `movesBefore`.
    package private(set) var moves: Int
    /// Every row so far, oldest first.
    package private(set) var rows: [MetricsRow] = []

    let secondsBefore: Double
    // The games since the last row.
    var pendingGames = 0
    var pendingScore: Int64 = 0
    var pendingReached = [Int](repeating: 0, count: MetricsRow.tiles.count)
    var lastRowMoves: Int
    var lastRowSeconds: Double = 0
    // Where the last row's games started: the speed is measured from there.
    var speedFromMoves: Int
    var speedFromSeconds: Double = 0
    // The window: a ring of the last `windowSize` games.
    var recent: [GameResult] = []
    var recentNext = 0
    var windowScore: Int64 = 0
    /// Games of the window by the exponent of their largest tile.
    var windowLargestTiles = [Int](repeating: 0, count: 64)

    /// Creates empty metrics.
    ///
    ///     var metrics = TrainingMetrics(interval: 1_000, gamesBefore: metadata.games,
    ///                                   movesBefore: metadata.moves, secondsBefore: metadata.elapsedSeconds)
    ///
    /// - Parameters:
    ///   - interval: games per row (default 1 000).
    ///   - windowSize: games in the sliding window (default 1 000).
    ///   - gamesBefore: games trained before this run, when resuming.
    ///   - movesBefore: moves played before this run.
    ///   - secondsBefore: training seconds before this run.
    /// - Precondition: `interval` and `windowSize` are at least 1; the counts are 0 or more.
    package init(interval: Int = 1_000, windowSize: Int = 1_000, gamesBefore: Int = 0, movesBefore: Int = 0, secondsBefore: Double = 0) {
        precondition(interval >= 1, "interval must be at least 1, got \(interval)")
        precondition(windowSize >= 1, "windowSize must be at least 1, got \(windowSize)")
        precondition(gamesBefore >= 0 && movesBefore >= 0, "games and moves before must be 0 or more")
        self.interval = interval
        self.windowSize = windowSize
        games = gamesBefore
        moves = movesBefore
        lastRowMoves = movesBefore
        speedFromMoves = movesBefore
        self.secondsBefore = secondsBefore
        recent.reserveCapacity(windowSize)
    }

    /// Records a finished game; returns the new row when it completes one.
    ///
    ///     if let row = metrics.record(result, elapsedSeconds: 12.5) { print(TrainingMetrics.csvLine(row)) }
    ///
    /// - Parameters:
    ///   - result: the game.
    ///   - elapsedSeconds: seconds since this run started, as the caller's clock says.
    /// - Returns: the row, every `interval` games; `nil` otherwise.
    /// - Complexity: O(1).
    @discardableResult
    package mutating func record(_ result: GameResult, elapsedSeconds: Double) -> MetricsRow? {
        games += 1
        moves += result.moves
        // A restarted game is a stretch of another, scored from where it restarted: it trains, but its score and
        // tiles are not a game's from the start, and would flatter the curve.
        if result.restarted { return nil }
        pendingGames += 1
        pendingScore += result.score
        for (index, tile) in MetricsRow.tiles.enumerated() where result.maxTile >= tile {
            pendingReached[index] += 1
        }
        remember(result)
        guard pendingGames == interval else { return nil }

        let seconds = elapsedSeconds - lastRowSeconds
        let count = Double(pendingGames)
        let row = MetricsRow(
            games: games,
            moves: moves,
            elapsedSeconds: secondsBefore + elapsedSeconds,
            movesPerSecond: seconds > 0 ? Double(moves - lastRowMoves) / seconds : 0,
            meanScore: Double(pendingScore) / count,
            reachRates: pendingReached.map { Double($0) / count })
        rows.append(row)
        (speedFromMoves, speedFromSeconds) = (lastRowMoves, lastRowSeconds)
        lastRowMoves = moves
        lastRowSeconds = elapsedSeconds
        pendingGames = 0
        pendingScore = 0
        for index in pendingReached.indices { pendingReached[index] = 0 }
        return row
    }

    /// Counts `games` games of `moves` moves in all that this record does not see one by one (a learner in another
    /// process reported their totals and only its last games): they add to the counters, not to the window or the
    /// curve.
    package mutating func count(games: Int, moves: Int) {
        self.games += games
        self.moves += moves
    }

    mutating func remember(_ result: GameResult) {
        if recent.count < windowSize {
            recent.append(result)
        } else {
            let old = recent[recentNext]
            windowScore -= old.score
            windowLargestTiles[TrainingMetrics.exponent(of: old.maxTile)] -= 1
            recent[recentNext] = result
            recentNext = (recentNext + 1) % windowSize
        }
        windowScore += result.score
        windowLargestTiles[TrainingMetrics.exponent(of: result.maxTile)] += 1
    }

    /// The exponent of a tile value (11 for 2048), 0 for anything that is not a tile.
    static func exponent(of tile: Int) -> Int {
        tile > 0 ? min(63, Int.bitWidth - 1 - tile.leadingZeroBitCount) : 0
    }

    /// The last `windowSize` games (fewer at the start), for progress lines.
    ///
    ///     let w = metrics.window
    ///     print("games \(metrics.games)  mean \(Int(w.meanScore))", w.reachRates.map { "\($0.tile): \($0.rate)" })
    ///
    /// Its reach rates are those of the two largest tiles any game of the window reached (one when
    /// the largest is a 2), smaller first: the tiles that matter on the board being trained, 64 and
    /// 128 on 3×3, 8192 and 16384 late in a 4×4 run.
    ///
    /// - Complexity: O(1).
    package var window: WindowStatistics {
        let count = recent.count
        var rates: [TileReachRate] = []
        if let largest = windowLargestTiles.lastIndex(where: { $0 > 0 }) {
            for exponent in max(1, largest - 1)...max(1, largest) {
                let reached = windowLargestTiles[exponent...].reduce(0, +)
                rates.append(TileReachRate(tile: 1 << exponent, rate: Double(reached) / Double(count)))
            }
        }
        return WindowStatistics(games: count, meanScore: count == 0 ? 0 : Double(windowScore) / Double(count), reachRates: rates)
    }

    /// Moves per second now: over the games of the last row and those since (over the whole run
    /// until the first row), so it is right from the first game on, however few games a run has.
    ///
    /// - Parameter elapsedSeconds: seconds since this run started, as the caller's clock says.
    /// - Returns: 0 when no time has passed.
    package func movesPerSecond(elapsedSeconds: Double) -> Double {
        let seconds = elapsedSeconds - speedFromSeconds
        return seconds > 0 ? Double(moves - speedFromMoves) / seconds : 0
    }
}

/// One point of the learning curve: `interval` games summed up.
///
///     let row = MetricsRow(games: 1_000, moves: 700_000, elapsedSeconds: 2, movesPerSecond: 350_000,
///                          meanScore: 12_000, reachRates: [0.05, 0, 0, 0, 0])
///     row.reachRate(of: 2048)   // 0.05
package struct MetricsRow: Hashable, Sendable {
    /// The tiles whose reach rates a row records: 2048 to 32 768.
    package static let tiles = [2048, 4096, 8192, 16384, 32768]

    /// Games trained, in total, when the row was made.
    package var games: Int
    /// Moves played, in total.
    package var moves: Int
    /// Training seconds, in total.
    package var elapsedSeconds: Double
    /// Moves per second over the row's games (0 if no time passed).
    package var movesPerSecond: Double
    /// The mean score of the row's games.
    package var meanScore: Double
    /// For each tile of ``tiles``, the fraction (0 to 1) of the row's games whose largest tile reached it.
    package var reachRates: [Double]

    /// Creates a row.
    ///
    /// - Precondition: `reachRates` has one rate per tile of ``tiles``.
    package init(games: Int, moves: Int, elapsedSeconds: Double, movesPerSecond: Double, meanScore: Double, reachRates: [Double]) {
        precondition(reachRates.count == MetricsRow.tiles.count, "a row needs \(MetricsRow.tiles.count) reach rates, got \(reachRates.count)")
        self.games = games
        self.moves = moves
        self.elapsedSeconds = elapsedSeconds
        self.movesPerSecond = movesPerSecond
        self.meanScore = meanScore
        self.reachRates = reachRates
    }

    /// The fraction of the row's games that reached `tile`, or `nil` for a tile not in ``tiles``.
    package func reachRate(of tile: Int) -> Double? {
        MetricsRow.tiles.firstIndex(of: tile).map { reachRates[$0] }
    }
}

/// Statistics of the last games, for progress lines.
package struct WindowStatistics: Hashable, Sendable {
    /// Games in the window (up to its size).
    package var games: Int
    /// Their mean score (0 with no games).
    package var meanScore: Double
    /// The reach rates of the two largest tiles reached in the window, smaller tile first (empty with no games).
    package var reachRates: [TileReachRate]

    /// Creates statistics.
    package init(games: Int, meanScore: Double, reachRates: [TileReachRate]) {
        (self.games, self.meanScore, self.reachRates) = (games, meanScore, reachRates)
    }
}

/// The fraction of games whose largest tile reached `tile`.
package struct TileReachRate: Hashable, Sendable {
    /// The tile's value, e.g. 2048.
    package var tile: Int
    /// The fraction, 0 to 1.
    package var rate: Double

    /// Creates a rate.
    package init(tile: Int, rate: Double) {
        (self.tile, self.rate) = (tile, rate)
    }
}

// MARK: - CSV

extension TrainingMetrics {
    /// The first line of a metrics CSV file, without a newline.
    ///
    ///     games,moves,elapsed_seconds,moves_per_second,mean_score,reach_2048,reach_4096,reach_8192,reach_16384,reach_32768
    package static let csvHeader =
        (["games", "moves", "elapsed_seconds", "moves_per_second", "mean_score"] + MetricsRow.tiles.map { "reach_\($0)" })
        .joined(separator: ",")

    /// One row as a CSV line, without a newline, in ``csvHeader``'s columns.
    ///
    ///     TrainingMetrics.csvLine(row)   // "1000,700000,2.000,350000.0,12000.00,0.0500,0.0000,0.0000,0.0000,0.0000"
    ///
    /// Seconds have 3 decimals, moves per second 1, the mean score 2 and the
    /// rates 4 (the rates are exact for intervals of up to 10 000 games).
    package static func csvLine(_ row: MetricsRow) -> String {
        ([
            String(row.games), String(row.moves), formatFixed(row.elapsedSeconds, digits: 3), formatFixed(row.movesPerSecond, digits: 1),
            formatFixed(row.meanScore, digits: 2),
        ]
            + row.reachRates.map { formatFixed($0, digits: 4) })
            .joined(separator: ",")
    }

    /// Parses a line written by ``csvLine(_:)``; `nil` for the header or any other line.
    ///
    ///     let rows = text.split(separator: "\n").compactMap { TrainingMetrics.row(fromCSVLine: String($0)) }
    package static func row(fromCSVLine line: String) -> MetricsRow? {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 5 + MetricsRow.tiles.count,
            let games = Int(fields[0]), let moves = Int(fields[1]),
            let seconds = Double(fields[2]), let speed = Double(fields[3]), let mean = Double(fields[4])
        else { return nil }
        var rates: [Double] = []
        for field in fields[5...] {
            guard let rate = Double(field) else { return nil }
            rates.append(rate)
        }
        return MetricsRow(games: games, moves: moves, elapsedSeconds: seconds, movesPerSecond: speed, meanScore: mean, reachRates: rates)
    }

    /// The rows of a metrics CSV file, skipping its header and any line that is not a row.
    ///
    ///     // On resume, plot the whole curve: the earlier runs' rows, then this run's.
    ///     let earlier = try TrainingMetrics.rows(fromCSVFile: "curve.csv")
    ///     try LearningCurvePlot.writeSVG(rows: earlier + metrics.rows, title: "training", to: "curve.svg")
    ///
    /// - Throws: ``MetricsOutputError/cannotOpen(file:reason:)`` or
    ///   ``MetricsOutputError/cannotRead(file:reason:)`` with the system's reason.
    /// - Complexity: O(file size).
    package static func rows(fromCSVFile path: String) throws(MetricsOutputError) -> [MetricsRow] {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try SystemIO.readFile(path) } catch { throw MetricsOutputError(error) }
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap { line in
            row(fromCSVLine: String(decoding: line, as: UTF8.self))
        }
    }
}

// MARK: - Files

/// Why a metrics or plot file could not be written or read.
///
///     do { _ = try MetricsCSVWriter(path: "/no/such/curve.csv") } catch { print(error) }
///     // cannot open /no/such/curve.csv: No such file or directory
package enum MetricsOutputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be opened or created.
    case cannotOpen(file: String, reason: String)
    /// Reading an opened file failed.
    case cannotRead(file: String, reason: String)
    /// Writing (or, for a plot, syncing or renaming) failed.
    case cannotWrite(file: String, reason: String)

    /// The problem in one line, naming the file.
    package var description: String {
        switch self {
        case .cannotOpen(let file, let reason): FileError.describe("open", file, reason)
        case .cannotRead(let file, let reason): FileError.describe("read", file, reason)
        case .cannotWrite(let file, let reason): FileError.describe("write", file, reason)
        }
    }
}

extension MetricsOutputError: FileErrorCases {}

/// Appends metrics rows to a CSV file, one `write(2)` per row, so that a run
/// stopped at any moment leaves only whole lines.
///
///     let writer = try MetricsCSVWriter(path: "curve.csv")
///     try writer.write(row)
///
/// A new or empty file gets ``TrainingMetrics/csvHeader`` first; a file with
/// lines in it is appended to, so a resumed run continues it. The file is
/// closed when the writer goes away. Rows from several threads each land
/// whole, in some order.
package final class MetricsCSVWriter: Sendable {
    /// The file written.
    package let path: String
    let descriptor: Int32

    /// Opens `path` for appending, creating it (with the header) if needed.
    ///
    /// - Parameters:
    ///   - path: the CSV file.
    ///   - truncating: start the file afresh instead of appending (default `false`).
    /// - Throws: ``MetricsOutputError`` if the file cannot be opened or the header cannot be written.
    package init(path: String, truncating: Bool = false) throws(MetricsOutputError) {
        self.path = path
        let creates = !SystemIO.entryExists(path)
        let opened: (descriptor: Int32, status: FileStatus)
        do throws(FileError) { opened = try SystemIO.openForAppending(path, truncating: truncating) } catch {
            throw MetricsOutputError(error)
        }
        descriptor = opened.descriptor
        let status = opened.status
        guard truncating || status.size == 0 else { return }
        do { try writeLine(TrainingMetrics.csvHeader) } catch {
            // A full disk: an empty file of ours would block the next run (it exists) and holds nothing.
            if creates { SystemIO.remove(path) }
            throw error
        }
    }

    deinit { SystemIO.closeFile(descriptor) }

    /// Appends `row` as one line.
    ///
    /// - Throws: ``MetricsOutputError/cannotWrite(file:reason:)`` with the system's reason.
    package func write(_ row: MetricsRow) throws(MetricsOutputError) {
        try writeLine(TrainingMetrics.csvLine(row))
    }

    func writeLine(_ line: String) throws(MetricsOutputError) {
        if let code = SystemIO.writeAll(descriptor, line + "\n") { throw .cannotWrite(file: path, reason: systemReason(code)) }
    }

}
