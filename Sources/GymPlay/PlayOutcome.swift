/// How a terminal program of this module ended, for the command to turn into an exit code.
package enum PlayOutcome: Hashable, Sendable {
    /// Quit, game over, or end of input: exit 0.
    case finished
    /// Stopped by a signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE): exit 128 + the signal.
    case interrupted(signal: Int32)
    /// A failure, such as a record file that cannot be written: one line for stderr, exit 1.
    case failed(String)
}
