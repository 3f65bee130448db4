#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Game2048Network
@testable import Game2048Training
import TestSupport

struct TrainingMetricsTests {
    static func game(_ score: Int64, tile: Int, moves: Int = 100) -> GameResult {
        GameResult(score: score, maxTile: tile, moves: moves)
    }

    @Test func rowIsMadeEveryIntervalGamesAndOnlyThen() {
        var metrics = TrainingMetrics(interval: 4)
        var made: [Int] = []
        for index in 1...10 {
            if let row = metrics.record(Self.game(100, tile: 256), elapsedSeconds: Double(index)) {
                made.append(row.games)
            }
        }
        #expect(made == [4, 8])
        #expect(metrics.rows.map(\.games) == [4, 8])
        #expect(metrics.games == 10)
        #expect(metrics.moves == 1_000)
    }

    @Test func rowSumsUpOnlyTheGamesSinceThePreviousRow() throws {
        var metrics = TrainingMetrics(interval: 4)
        for _ in 0..<4 { metrics.record(Self.game(1_000_000, tile: 32768), elapsedSeconds: 1) }
        let games = [
            Self.game(20_000, tile: 2048), Self.game(60_000, tile: 4096),
            Self.game(4_000, tile: 512), Self.game(400_000, tile: 16384),
        ]
        var row: MetricsRow?
        for game in games { row = metrics.record(game, elapsedSeconds: 2) }
        let second = try #require(row)
        #expect(second.games == 8)
        #expect(second.meanScore == 121_000)
        // 2048 or more: three of four; 4096: two; 8192 and 16384: one; 32768: none.
        #expect(second.reachRates == [0.75, 0.5, 0.25, 0.25, 0])
        #expect(second.reachRate(of: 4096) == 0.5)
        #expect(second.reachRate(of: 1024) == nil)
        #expect(metrics.rows[0].reachRates == [1, 1, 1, 1, 1])
    }

    @Test func movesPerSecondIsThatOfTheRowsOwnGames() {
        var metrics = TrainingMetrics(interval: 2)
        metrics.record(Self.game(0, tile: 4, moves: 300), elapsedSeconds: 1)
        let first = metrics.record(Self.game(0, tile: 4, moves: 700), elapsedSeconds: 2)
        metrics.record(Self.game(0, tile: 4, moves: 100), elapsedSeconds: 2.5)
        let second = metrics.record(Self.game(0, tile: 4, moves: 500), elapsedSeconds: 6)
        #expect(first?.movesPerSecond == 500)
        #expect(first?.elapsedSeconds == 2)
        #expect(second?.movesPerSecond == 150)
        #expect(second?.moves == 1_600)
    }

    @Test func movesPerSecondIsZeroWhenNoTimePassed() {
        var metrics = TrainingMetrics(interval: 1)
        #expect(metrics.record(Self.game(8, tile: 8), elapsedSeconds: 0)?.movesPerSecond == 0)
    }

    @Test func resumedRunContinuesTheTotals() {
        var metrics = TrainingMetrics(interval: 2, gamesBefore: 1_000, movesBefore: 50_000, secondsBefore: 100)
        metrics.record(Self.game(10, tile: 8, moves: 10), elapsedSeconds: 1)
        let row = metrics.record(Self.game(30, tile: 8, moves: 30), elapsedSeconds: 4)
        #expect(row?.games == 1_002)
        #expect(row?.moves == 50_040)
        #expect(row?.elapsedSeconds == 104)
        #expect(row?.movesPerSecond == 10)
        #expect(row?.meanScore == 20)
    }

    static func rates(_ pairs: (Int, Double)...) -> [TileReachRate] { pairs.map { TileReachRate(tile: $0.0, rate: $0.1) } }

    /// The window reports the two largest tiles its games reached, whatever the board: not always 2048.
    @Test func windowCoversOnlyTheLastGamesAndItsTwoLargestTiles() {
        var metrics = TrainingMetrics(interval: 100, windowSize: 3)
        #expect(metrics.window == WindowStatistics(games: 0, meanScore: 0, reachRates: []))
        metrics.record(Self.game(30_000, tile: 2048), elapsedSeconds: 1)
        #expect(metrics.window == WindowStatistics(games: 1, meanScore: 30_000, reachRates: Self.rates((1024, 1), (2048, 1))))
        for score in [Int64(3_000), 6_000, 9_000] { metrics.record(Self.game(score, tile: 512), elapsedSeconds: 1) }
        #expect(metrics.window == WindowStatistics(games: 3, meanScore: 6_000, reachRates: Self.rates((256, 1), (512, 1))))
        metrics.record(Self.game(60_000, tile: 4096), elapsedSeconds: 1)
        #expect(metrics.window == WindowStatistics(games: 3, meanScore: 25_000, reachRates: Self.rates((2048, 1.0 / 3), (4096, 1.0 / 3))))
        var tiny = TrainingMetrics(windowSize: 2)
        tiny.record(Self.game(0, tile: 2), elapsedSeconds: 1)
        #expect(tiny.window.reachRates == Self.rates((2, 1)))
        tiny.record(Self.game(4, tile: 8), elapsedSeconds: 1)
        #expect(tiny.window.reachRates == Self.rates((4, 0.5), (8, 0.5)))
    }

    @Test func windowDefaultsToTheLastThousandGames() {
        var metrics = TrainingMetrics()
        for index in 0..<2_500 {
            metrics.record(Self.game(index < 1_500 ? 0 : 1_000, tile: index < 1_500 ? 2 : 2048), elapsedSeconds: 1)
        }
        #expect(metrics.window == WindowStatistics(games: 1_000, meanScore: 1_000, reachRates: Self.rates((1024, 1), (2048, 1))))
        #expect(metrics.rows.count == 2)
        #expect(metrics.rows[1].meanScore == 500)
    }

    /// Long games (8×8 runs play millions of moves a game) never complete a row, and the speed
    /// once read 0 until they did; it is now measured from the run's start until the first row.
    @Test func speedIsRightBeforeTheFirstRowAndAfterIt() {
        var metrics = TrainingMetrics(interval: 1_000, movesBefore: 500)
        #expect(metrics.movesPerSecond(elapsedSeconds: 0) == 0)
        metrics.record(Self.game(10, tile: 8, moves: 2_000_000), elapsedSeconds: 4)
        #expect(metrics.movesPerSecond(elapsedSeconds: 4) == 500_000)
        var rows = TrainingMetrics(interval: 2)
        rows.record(Self.game(10, tile: 8, moves: 100), elapsedSeconds: 1)
        rows.record(Self.game(10, tile: 8, moves: 100), elapsedSeconds: 2)  // row 1: 200 moves in 2 s
        rows.record(Self.game(10, tile: 8, moves: 400), elapsedSeconds: 3)
        // From the start of the last row: 600 moves in 3 s.
        #expect(rows.movesPerSecond(elapsedSeconds: 3) == 200)
        rows.record(Self.game(10, tile: 8, moves: 200), elapsedSeconds: 4)  // row 2: 600 moves in 2 s
        rows.record(Self.game(10, tile: 8, moves: 300), elapsedSeconds: 6)
        #expect(rows.movesPerSecond(elapsedSeconds: 6) == 900.0 / 4)
    }

    // MARK: CSV

    @Test func csvHeaderNamesEveryColumn() {
        #expect(
            TrainingMetrics.csvHeader
                == "games,moves,elapsed_seconds,moves_per_second,mean_score,reach_2048,reach_4096,reach_8192,reach_16384,reach_32768")
    }

    static let row = MetricsRow(
        games: 1_000, moves: 700_000, elapsedSeconds: 2, movesPerSecond: 350_000.04, meanScore: 12_000.125,
        reachRates: [0.05, 0.001, 0, 0, 0])

    @Test func csvLineHasFixedDecimalsPerColumn() {
        #expect(TrainingMetrics.csvLine(Self.row) == "1000,700000,2.000,350000.0,12000.13,0.0500,0.0010,0.0000,0.0000,0.0000")
    }

    @Test func csvLineParsesBackIntoTheRow() throws {
        let parsed = try #require(TrainingMetrics.row(fromCSVLine: TrainingMetrics.csvLine(Self.row)))
        #expect(parsed.games == 1_000)
        #expect(parsed.moves == 700_000)
        #expect(parsed.meanScore == 12_000.13)
        #expect(parsed.reachRates == [0.05, 0.001, 0, 0, 0])
        #expect(TrainingMetrics.row(fromCSVLine: TrainingMetrics.csvHeader) == nil)
        #expect(TrainingMetrics.row(fromCSVLine: "1,2,3") == nil)
        #expect(TrainingMetrics.row(fromCSVLine: "") == nil)
    }

    @Test func writerStartsANewFileWithTheHeaderAndAppendsRows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("curve.csv")
        do {
            let writer = try MetricsCSVWriter(path: path)
            try writer.write(Self.row)
            #expect(readText(path) == TrainingMetrics.csvHeader + "\n" + TrainingMetrics.csvLine(Self.row) + "\n")
        }
        // A resumed run appends, without a second header.
        var next = Self.row
        next.games = 2_000
        do {
            let writer = try MetricsCSVWriter(path: path)
            try writer.write(next)
        }
        let lines = try #require(readText(path)).split(separator: "\n").map(String.init)
        #expect(lines == [TrainingMetrics.csvHeader, TrainingMetrics.csvLine(Self.row), TrainingMetrics.csvLine(next)])
        #expect(lines.compactMap(TrainingMetrics.row(fromCSVLine:)).map(\.games) == [1_000, 2_000])
    }

    @Test func rowsAreReadBackFromACSVFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("curve.csv")
        var metrics = TrainingMetrics(interval: 2)
        let writer = try MetricsCSVWriter(path: path)
        for index in 0..<9 {
            if let row = metrics.record(Self.game(Int64(index) * 100, tile: 2048 << (index % 3)), elapsedSeconds: Double(index)) {
                try writer.write(row)
            }
        }
        let rows = try TrainingMetrics.rows(fromCSVFile: path)
        #expect(rows.map(TrainingMetrics.csvLine) == metrics.rows.map(TrainingMetrics.csvLine))
        #expect(rows.count == 4)
        writeText("", to: path)
        #expect(try TrainingMetrics.rows(fromCSVFile: path).isEmpty)
        #expect(throws: MetricsOutputError.cannotOpen(file: directory.file("none.csv"), reason: "No such file or directory")) {
            try TrainingMetrics.rows(fromCSVFile: directory.file("none.csv"))
        }
    }

    @Test func truncatingWriterStartsAfresh() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("curve.csv")
        writeText("old contents\n", to: path)
        let writer = try MetricsCSVWriter(path: path, truncating: true)
        try writer.write(Self.row)
        #expect(readText(path) == TrainingMetrics.csvHeader + "\n" + TrainingMetrics.csvLine(Self.row) + "\n")
    }

    @Test func fifoIsRefusedForReadingAndWritingWithoutBlocking() throws {
        // A blocking open of a FIFO waits for the other end: forever, in a training run.
        let directory = TemporaryDirectory()
        let path = directory.file("curve.csv")
        try #require(mkfifo(path, 0o644) == 0)
        #expect(throws: MetricsOutputError.cannotOpen(file: path, reason: "No such device or address")) {
            try MetricsCSVWriter(path: path, truncating: true)
        }
        #expect(throws: MetricsOutputError.cannotOpen(file: path, reason: "not a regular file (it is a FIFO)")) {
            try TrainingMetrics.rows(fromCSVFile: path)
        }
        #expect(throws: MetricsOutputError.cannotOpen(file: "/dev/null", reason: "not a regular file (it is a character device)")) {
            try MetricsCSVWriter(path: "/dev/null", truncating: true)
        }
    }

    @Test func writerInAMissingDirectoryCannotOpen() {
        let directory = TemporaryDirectory()
        let path = directory.file("missing/curve.csv")
        #expect(throws: MetricsOutputError.cannotOpen(file: path, reason: "No such file or directory")) {
            try MetricsCSVWriter(path: path)
        }
    }

    @Test func outputErrorDescriptionsNameTheFile() {
        #expect(
            MetricsOutputError.cannotOpen(file: "curve.csv", reason: "Permission denied").description
                == "cannot open curve.csv: Permission denied")
        #expect(
            MetricsOutputError.cannotRead(file: "curve.csv", reason: "Input/output error").description
                == "cannot read curve.csv: Input/output error")
        #expect(
            MetricsOutputError.cannotWrite(file: "curve.svg", reason: "No space left on device").description
                == "cannot write curve.svg: No space left on device")
    }
}
