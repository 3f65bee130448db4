#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Progress on stderr: a line redrawn in place on a terminal, a plain line every
/// few seconds otherwise (so logs and CI output stay readable).
final class Progress: Sendable {
    let total: Int?
    let unit: String
    let isTerminal = isatty(STDERR_FILENO) == 1
    let state = Mutex<(last: Double, shown: Bool)>((0, false))
    let start = Stopwatch.now(CLOCK_MONOTONIC)

    init(total: Int?, unit: String) {
        self.total = total
        self.unit = unit
    }

    /// Reports `done` units, with an optional detail; rate-limited.
    func update(_ done: Int, detail: String = "") {
        let now = Stopwatch.now(CLOCK_MONOTONIC)
        let interval = isTerminal ? 0.2 : 10.0
        let due = state.withLock { s -> Bool in
            guard now - s.last >= interval || (total != nil && done == total) else { return false }
            s.last = now
            s.shown = true
            return true
        }
        guard due else { return }
        let elapsed = now - start
        var text = total.map { "\(done)/\($0) \(unit)" } ?? "\(done) \(unit)"
        if !detail.isEmpty { text += ", " + detail }
        text += ", \(Progress.duration(elapsed)) elapsed"
        if let total, done > 0, done < total {
            text += ", ETA \(Progress.duration(elapsed / Double(done) * Double(total - done)))"
        }
        Console.write(isTerminal ? "\r\u{1B}[K" + text : text + "\n", to: STDERR_FILENO)
    }

    /// Ends the in-place line.
    func finish() {
        if isTerminal && state.withLock({ $0.shown }) { Console.write("\n", to: STDERR_FILENO) }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(String(format2: s / 60 % 60))m" : s >= 60 ? "\(s / 60)m\(String(format2: s % 60))s" : "\(s)s"
    }
}

extension String {
    /// A two-digit zero-padded number.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : String(value) }
}

/// Facts about the machine.
enum Machine {
    /// Online processors.
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
