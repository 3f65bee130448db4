import Synchronization
import GymSystem

/// Progress on stderr: a line redrawn in place on a terminal (at most every 0.2 s), a plain
/// line every 10 seconds otherwise (so logs and CI output stay readable).
///
/// The environment variable `G2048_PROGRESS` overrides the pace: `off` shows nothing, a number
/// of seconds (`0` = every update) sets the interval, on a terminal or not.
final class Progress: Sendable {
    let total: Int?
    /// The time limit of the work, in seconds, if it has one (`train --seconds`): it gives an ETA too.
    let seconds: Double?
    let unit: String
    let isTerminal: Bool
    /// Seconds between two lines; `nil` shows nothing.
    let interval: Double?
    let state = Mutex<(last: Double, shown: Bool)>((-Double.infinity, false))
    let start = SystemClock.monotonicSeconds()

    /// The name of the environment variable that sets the pace.
    static let variable = "G2048_PROGRESS"

    init(
        total: Int?, seconds: Double? = nil, unit: String, isTerminal: Bool = SystemIO.isTerminal(SystemIO.standardError),
        setting: String? = SystemIO.environment(Progress.variable)
    ) {
        self.total = total
        self.seconds = seconds
        self.unit = unit
        self.isTerminal = isTerminal
        interval = Progress.interval(setting: setting, isTerminal: isTerminal)
    }

    /// The interval a `G2048_PROGRESS` value asks for; an unset or unreadable value gives the default.
    static func interval(setting: String?, isTerminal: Bool) -> Double? {
        if setting == "off" { return nil }
        if let setting, let seconds = Double(setting), seconds.isFinite, seconds >= 0 { return seconds }
        return isTerminal ? 0.2 : 10
    }

    /// Reports `done` units, with an optional detail; rate-limited. The first update is shown at once.
    func update(_ done: Int, detail: @autoclosure () -> String = "") {
        guard let interval else { return }
        let now = SystemClock.monotonicSeconds()
        let due = state.withLock { s -> Bool in
            guard now - s.last >= interval || (total != nil && done == total) else { return false }
            s.last = now
            s.shown = true
            return true
        }
        guard due else { return }
        let text = line(done, detail: detail(), elapsed: now - start)
        Console.write(isTerminal ? "\r\u{1B}[K" + text : text + "\n", to: SystemIO.standardError)
    }

    /// The text of one progress line.
    func line(_ done: Int, detail: String, elapsed: Double) -> String {
        var text = total.map { "\(done)/\($0) \(unit)" } ?? "\(done) \(unit)"
        if !detail.isEmpty { text += ", " + detail }
        text += ", \(Progress.duration(elapsed)) elapsed"
        // The work ends at the total or at the time limit, whichever comes first.
        var remaining: [Double] = []
        if let total, done > 0, done < total {
            // Doubles, so a total near Int.max gives a huge ETA rather than an overflow.
            remaining.append(elapsed / Double(done) * (Double(total) - Double(done)))
        }
        if let seconds, total.map({ done < $0 }) ?? true { remaining.append(max(0, seconds - elapsed)) }
        if let eta = remaining.min() { text += ", ETA \(Progress.duration(eta))" }
        return text
    }

    /// Ends the in-place line; once, however often it is called.
    func finish() {
        let shown = state.withLock { s in
            defer { s.shown = false }
            return s.shown
        }
        if isTerminal && shown { Console.write("\n", to: SystemIO.standardError) }
    }

    /// The longest duration written in hours and minutes; longer ones read "over 100000h".
    static let longestShown = 100_000.0 * 3600

    /// `42s`, `3m07s`, `2h05m`; never traps, whatever the value (infinite, NaN, huge).
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        guard seconds < longestShown else { return "over 100000h" }
        let s = Int(max(0, seconds).rounded())
        return s >= 3600 ? "\(s / 3600)h\(String(format2: s / 60 % 60))m" : s >= 60 ? "\(s / 60)m\(String(format2: s % 60))s" : "\(s)s"
    }
}

extension String {
    /// A two-digit zero-padded number.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : String(value) }
}
