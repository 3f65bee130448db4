import GymSystem
import Synchronization

/// When a training run must end early: a request (a signal, a caller) or a deadline, seen both
/// by the loop that starts games and, every ``TDLearner/stopCheckInterval`` moves, by the games
/// in progress, so even a game of millions of moves (8×8) ends within a fraction of a second.
///
///     let learner = TDLearner(network: network, rules: rules)
///     signalHandler = { learner.stop.request() }      // e.g. from a DispatchSource on SIGINT
///     TrainingLoop(learner: learner, gamesBefore: 0).run(plan) { _, _ in true }
///
/// A request is final: once made, every later game of the learner stops at its first check.
/// A game cut short this way is truncated (its last afterstate is not updated toward 0, as for
/// the rules' step limit) and still reported to the loop.
public final class TrainingStop: Sendable {
    let requested = Atomic<Bool>(false)
    /// `CLOCK_MONOTONIC` nanoseconds; `UInt64.max` for none.
    let deadline = Atomic<UInt64>(.max)

    /// Creates a stop that is not requested and has no deadline.
    public init() {}

    /// Asks every game in progress and the loop to stop; safe from any thread.
    public func request() { requested.store(true, ordering: .relaxed) }

    /// Whether ``request()`` was called.
    public var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Sets the deadline `seconds` from now, or removes it when `nil`.
    public func setDeadline(secondsFromNow seconds: Double?) {
        guard let seconds else { return deadline.store(.max, ordering: .relaxed) }
        // Clamped, so no duration converts past UInt64.
        let nanoseconds = UInt64(min(max(0, seconds), 1e12) * 1e9)
        deadline.store(TrainingStop.now() &+ nanoseconds, ordering: .relaxed)
    }

    /// Whether training must stop now: requested, or past the deadline.
    public var isDue: Bool {
        if isRequested { return true }
        let deadline = deadline.load(ordering: .relaxed)
        return deadline != .max && TrainingStop.now() >= deadline
    }

    static func now() -> UInt64 { SystemClock.monotonicNanoseconds() }
}
