import Testing
@testable import g2048

struct ProgressTests {
    /// `train --games 9223372036854775807` once trapped in the ETA: a total near Int.max, a huge elapsed time.
    @Test(arguments: [
        (Int.max, 1, 15.0),
        (Int.max, Int.max - 1, 1e300),
        (10, 1, Double.infinity),
        (10, 5, Double.nan),
    ])
    func lineNeverTrapsOnHugeNumbers(total: Int, done: Int, elapsed: Double) {
        let progress = Progress(total: total, unit: "games", isTerminal: false, setting: nil)
        let text = progress.line(done, detail: "", elapsed: elapsed)
        #expect(text.hasPrefix("\(done)/\(total) games, "))
    }

    @Test(arguments: [
        (0.4, "0s"), (59.6, "1m00s"), (187.0, "3m07s"), (7500.0, "2h05m"),
        (-3.0, "0s"), (1e30, "over 100000h"), (Double.infinity, "?"), (Double.nan, "?"),
    ])
    func durationIsReadableForEveryValue(seconds: Double, text: String) {
        #expect(Progress.duration(seconds) == text)
    }

    @Test func etaOfAnEnormousTotalSaysSoInsteadOfOverflowing() {
        let progress = Progress(total: Int.max, unit: "games", isTerminal: false, setting: nil)
        #expect(progress.line(3, detail: "x", elapsed: 15) == "3/\(Int.max) games, x, 15s elapsed, ETA over 100000h")
    }

    /// A run limited by time shows an ETA too, the sooner of the two limits when it has both.
    @Test(arguments: [
        (nil as Int?, 600.0, 10, 150.0, "10 games, x, 2m30s elapsed, ETA 7m30s"),
        (100, 600.0, 50, 60.0, "50/100 games, x, 1m00s elapsed, ETA 1m00s"),
        (100, 60.0, 10, 30.0, "10/100 games, x, 30s elapsed, ETA 30s"),
        (nil, 10.0, 3, 12.0, "3 games, x, 12s elapsed, ETA 0s"),
    ])
    func etaComesFromTheTimeLimitToo(total: Int?, seconds: Double, done: Int, elapsed: Double, line: String) {
        let progress = Progress(total: total, seconds: seconds, unit: "games", isTerminal: false, setting: nil)
        #expect(progress.line(done, detail: "x", elapsed: elapsed) == line)
    }

    @Test(
        arguments: [
            (nil, true, 0.2), (nil, false, 10.0), ("off", true, nil), ("0", false, 0.0), ("2.5", true, 2.5),
            ("soon", false, 10.0), ("-1", true, 0.2), ("inf", false, 10.0),
        ] as [(String?, Bool, Double?)])
    func paceComesFromTheEnvironmentVariable(setting: String?, isTerminal: Bool, interval: Double?) {
        #expect(Progress.interval(setting: setting, isTerminal: isTerminal) == interval)
    }
}
