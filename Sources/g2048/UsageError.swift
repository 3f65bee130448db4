import Game2048
import GymJSON

/// A problem with the command line, reported before any work starts.
///
/// Printed to stderr as
///
///     error: --rows must be an integer from 2 to 8, got 99
///     usage: g2048 bench [--rows <n>] [--cols <n>] …
///     see 'g2048 bench --help'
///
/// and the process exits with 64 (`EX_USAGE`), as swift-argument-parser does.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// The one-line reason, without the `error: ` prefix.
    var message: String

    init(_ message: String) { self.message = message }

    var description: String { message }

    /// The reason for a `RulesError` about the option `flag`, using the library's own rule text.
    init(flag: String, _ error: RulesError) {
        message = "\(flag) \(error.rule)"
    }

    /// The reason for a `RulesError`, naming the flag of the option it is about (`--win-tile`).
    init(_ error: RulesError) {
        self.init(flag: "--" + (RulesOption.option(of: error.field)?.flag ?? error.field.rawValue), error)
    }
}

/// Process exit codes, following swift-argument-parser and sysexits.h.
enum ExitCode {
    /// Success.
    static let success: Int32 = 0
    /// A runtime failure (unreadable file, failed write, …).
    static let failure: Int32 = 1
    /// A usage problem: unknown option, value out of range (`EX_USAGE`).
    static let usage: Int32 = 64
}

/// A failure a command reports once its arguments were accepted, from what it read or did (a bad line of an input
/// file, a run that failed): `error: …` and exit 1, with no usage line.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
