#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's clocks: a monotonic one for durations and deadlines, the
/// process's CPU time for benchmarks, and the wall clock for seeds only.
package enum SystemClock {
    /// Nanoseconds of the monotonic clock (`CLOCK_MONOTONIC`): it never jumps when the date is set.
    package static func monotonicNanoseconds() -> UInt64 {
        nanoseconds(CLOCK_MONOTONIC)
    }

    /// Milliseconds of the monotonic clock.
    package static func monotonicMilliseconds() -> Int {
        Int(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000)
    }

    /// Seconds of the monotonic clock, for elapsed times.
    package static func monotonicSeconds() -> Double {
        Double(monotonicNanoseconds()) / 1e9
    }

    /// Seconds of CPU time this process has used, all threads together.
    package static func processCPUSeconds() -> Double {
        Double(nanoseconds(CLOCK_PROCESS_CPUTIME_ID)) / 1e9
    }

    /// Milliseconds since 1970 on the wall clock: a seed (13 digits, exact in any JSON reader), never a duration.
    package static func wallClockMilliseconds() -> UInt64 {
        nanoseconds(CLOCK_REALTIME) / 1_000_000
    }

    static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(truncatingIfNeeded: spec.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: spec.tv_nsec)
    }
}
