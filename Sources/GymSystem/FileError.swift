#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file operation that failed, in one line: "cannot write /x/y: No space left on device".
///
///     do { _ = try SystemIO.readFile("curve.csv") } catch { print("error: \(error)") }
///     // error: cannot open curve.csv: No such file or directory
///
/// Every module reports the system's failures on files with this type; the
/// public libraries carry the same three parts in their own error cases and
/// word them with ``description``, so that every "cannot …" message reads alike.
package struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done: "open", "read", "write", "create directory", …
    package var operation: String
    /// The file or directory, as the caller named it.
    package var path: String
    /// Why: the system's text for the `errno` value, or a sentence of this package's.
    package var reason: String

    /// Creates an error with a reason in words.
    package init(_ operation: String, _ path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    /// Creates an error from an `errno` value (by default the current one).
    package init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.init(operation, path, reason: systemReason(code))
    }

    /// For example "cannot write /home/me/.local/share/gym2048/best-scores.json: No space left on device".
    package var description: String { FileError.describe(operation, path, reason) }

    /// The one wording of a failed file operation, for error types that store its parts apart.
    package static func describe(_ operation: String, _ path: String, _ reason: String) -> String {
        "cannot \(operation) \(path): \(reason)"
    }
}

/// A public error type of the package's libraries with the three cases of a failed file
/// operation, so that it can be made from the system layer's ``FileError``.
package protocol FileErrorCases {
    /// The file could not be opened.
    static func cannotOpen(file: String, reason: String) -> Self
    /// Reading an opened file failed.
    static func cannotRead(file: String, reason: String) -> Self
    /// Creating, writing, syncing or renaming failed.
    static func cannotWrite(file: String, reason: String) -> Self
}

extension FileErrorCases {
    /// The case that `error` is: opening, reading, or else writing.
    package init(_ error: FileError) {
        switch error.operation {
        case "open": self = .cannotOpen(file: error.path, reason: error.reason)
        case "read": self = .cannotRead(file: error.path, reason: error.reason)
        default: self = .cannotWrite(file: error.path, reason: error.reason)
        }
    }
}

/// The system's text for an `errno` value: "No such file or directory".
package func systemReason(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// The current `errno` value (read right after the failed call).
package var systemErrorCode: Int32 { errno }
