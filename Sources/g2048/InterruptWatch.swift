import Dispatch
import GymSystem
import Synchronization

/// SIGINT and SIGTERM during a long run: the first asks the run to stop, so it can save its work
/// and exit with 128 + the signal (130, 143); a second exits at once with that code.
///
///     let watch = InterruptWatch { learner.stop.request() }
///     defer { watch.cancel() }
///     …                                  // the run; then save
///     return watch.signal.map { 128 + $0 } ?? ExitCode.success
///
/// The signals are taken from the default action (which would kill the process without a
/// save) and delivered to a dispatch source, so the handler may do anything, not only what is
/// async-signal-safe. Files written atomically stay whole when the second signal cuts a save.
final class InterruptWatch {
    /// The signals watched.
    static let signals = [SystemProcess.interrupt, SystemProcess.terminate]

    let sources: [any DispatchSourceSignal]
    let received = FirstSignal()

    /// The first signal seen, shared with the handlers.
    final class FirstSignal: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    /// What a run that saves its work says at the first signal, after the signal's name.
    static let saving = "stopping at once and saving; send it again to quit without saving (the last saved file stays whole)"

    /// Starts watching; at the first signal, says `stopping` on stderr (after the signal's name) and runs
    /// `onFirst`, once, on a dispatch queue; at the second, runs `onSecond` (the command's lock files removed:
    /// ``OutputClaim/lockRemoval``) and exits.
    init(
        stopping: String = InterruptWatch.saving, onSecond: @escaping @Sendable () -> Void = {}, onFirst: @escaping @Sendable () -> Void
    ) {
        let received = self.received
        let queue = DispatchQueue(label: "g2048.interrupts")
        sources = InterruptWatch.signals.map { number in
            SystemProcess.ignore(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let first = received.number.withLock { seen -> Bool in
                    guard seen == nil else { return false }
                    seen = number
                    return true
                }
                guard first else {
                    onSecond()
                    SystemProcess.exitImmediately(128 + number)
                }
                Console.error("\n\(InterruptWatch.name(number)): \(stopping)")
                onFirst()
            }
            source.resume()
            return source
        }
        SystemProcess.unblock(InterruptWatch.signals)
    }

    /// The first signal received, or `nil`.
    var signal: Int32? { received.number.withLock { $0 } }

    /// Stops watching and gives the signals their default action back; or, once a first signal has come, keeps
    /// watching until the process exits. The command is then on its way out (saved, about to exit with 128 + the
    /// signal), and a second signal must still quit as it says, lock files removed: given back, the default action
    /// killed the process and left them (a solve stopped and saved within the 30 ms between two signals).
    func cancel() {
        guard signal == nil else {
            InterruptWatch.kept.append(contentsOf: sources)
            return
        }
        for source in sources { source.cancel() }
        for number in InterruptWatch.signals { SystemProcess.restoreDefault(number) }
    }

    /// The sources of a watch cancelled after a first signal: live until the process exits. (Written only by
    /// `cancel`, on the command's own thread, once a run.)
    nonisolated(unsafe) static var kept: [any DispatchSourceSignal] = []

    /// `SIGINT`, `SIGTERM`, or `signal N`.
    static func name(_ number: Int32) -> String {
        switch number {
        case SystemProcess.interrupt: "SIGINT"
        case SystemProcess.terminate: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
