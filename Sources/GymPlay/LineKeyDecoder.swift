/// Turns piped input, one key or action name per line, into ``Key`` events.
///
///     var decoder = LineKeyDecoder()
///     decoder.decode(Array("left\nup\nx".utf8))   // [.key(.move(.left)), .key(.move(.up))]
///     decoder.finish()                            // [.unknown(line: 3, text: "x")]
///
/// Lines are split on `\n` (a `\r` before it is ignored), may arrive split
/// across reads, and are named as ``Key/init(name:)`` accepts. Blank lines are
/// skipped; a line that names no key is reported with its number so the caller
/// can say which line it ignored.
package struct LineKeyDecoder: Sendable {
    /// One decoded line.
    package enum Event: Hashable, Sendable {
        /// A line naming a key.
        case key(Key)
        /// A line that names no key: its 1-based number and its text.
        case unknown(line: Int, text: String)
    }

    /// The longest line kept; the rest of a longer line is dropped (and the line reported unknown).
    package static let maxLineLength = 256

    var partial: [UInt8] = []
    var lineNumber = 0

    /// Creates a decoder at line 1.
    package init() {}

    /// Decodes the next bytes of input.
    ///
    /// - Returns: one event per complete non-blank line, in order.
    package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let event = endLine() { events.append(event) }
            } else if partial.count <= LineKeyDecoder.maxLineLength {
                partial.append(byte)
            }
        }
        return events
    }

    /// Decodes a last line that has no newline, at the end of input.
    package mutating func finish() -> [Event] {
        partial.isEmpty ? [] : endLine().map { [$0] } ?? []
    }

    mutating func endLine() -> Event? {
        lineNumber += 1
        defer { partial.removeAll(keepingCapacity: true) }
        let text = String(decoding: partial, as: UTF8.self)
        if text.trimmingBlanks().isEmpty { return nil }
        if let key = Key(name: text) { return .key(key) }
        return .unknown(line: lineNumber, text: String(text.trimmingBlanks().prefix(40)))
    }
}
