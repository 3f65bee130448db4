import GymPlay
import GymSystem

// What `play` and `replay` share: the pace of the screen and how the program's end becomes an exit code.
extension PlayOutcome {
    /// `delay` when given; else 150 ms between frames on a terminal, and none when the output is not one.
    static func pace(_ delay: Int?) -> Int { delay ?? (Terminal.isTerminal(SystemIO.standardOutput) ? 150 : 0) }

    /// The exit code: 0, 128 + the signal, or 1 after the failure's line on stderr.
    func exitCode() -> Int32 {
        switch self {
        case .finished: return ExitCode.success
        case .interrupted(let signal): return 128 + signal
        case .failed(let message):
            Console.error("error: " + message)
            return ExitCode.failure
        }
    }
}
