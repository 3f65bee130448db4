/// Why an episode record cannot be read: the 1-based line and the reason.
///
///     do { _ = try EpisodeRecord.parse(text) } catch { print(error) }
///     // line 7: "reward" must be an integer, got "4"
///
/// A record cut off in the middle of a line (the program was killed while
/// writing it) is reported as truncated rather than as bad JSON.
package struct RecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line at fault (1-based), or 0 for the file as a whole.
    package var line: Int
    /// The reason, without the line number.
    package var reason: String
    /// The file, when the record was read from one.
    package var file: String?

    /// Creates an error.
    package init(line: Int, _ reason: String, file: String? = nil) {
        self.line = line
        self.reason = reason
        self.file = file
    }

    /// `file: line N: reason`; the file and the line appear when known.
    package var description: String {
        (file.map { $0 + ": " } ?? "") + (line > 0 ? "line \(line): \(reason)" : reason)
    }
}
