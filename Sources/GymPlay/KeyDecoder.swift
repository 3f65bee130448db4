import Game2048

/// Turns the bytes a terminal in raw mode sends into ``Key`` events.
///
///     var decoder = KeyDecoder()
///     decoder.decode([0x1B, 0x5B])   // []: an arrow key has started
///     decoder.decode([0x41])         // [.move(.up)]: ESC [ A, split across two reads
///     decoder.decode(Array("wq".utf8))   // [.move(.up), .quit]
///
/// Recognized input:
/// - Arrow keys in both forms terminals send: CSI `ESC [ A`…`D` (with optional
///   parameters such as `ESC [ 1 ; 2 A`) and SS3 `ESC O A`…`D` (application
///   cursor mode). A=up, B=down, C=right, D=left.
/// - `w a s d` and vi's `h j k l` (either case), `r` restarts, `q` or Ctrl-C
///   (0x03, when the terminal delivers it as a byte) quits, Enter or space confirms.
///
/// Everything else is ignored: other escape sequences (function keys, mouse
/// reports, Alt+key) are consumed whole, so none of their bytes is read as a
/// letter. A sequence may arrive split across any number of reads; the decoder
/// keeps the partial sequence until the rest comes. A lone Escape cannot be told
/// from the start of a sequence, so the caller calls ``flush()`` after a short
/// quiet period (``isPending`` says when one is due), which drops it.
///
/// - Complexity: O(n) in the bytes given; the pending state is at most one
///   sequence, bounded by ``maxSequenceLength``.
package struct KeyDecoder: Sendable {
    /// Where the decoder is inside an escape sequence.
    enum State: Hashable, Sendable {
        case ground
        /// After ESC.
        case escape
        /// After `ESC [`, with the number of parameter and intermediate bytes seen so far.
        case csi(length: Int)
        /// After `ESC O`.
        case ss3
    }

    /// The longest CSI sequence accepted; a longer one is dropped as garbage.
    package static let maxSequenceLength = 32

    var state: State = .ground

    /// Creates a decoder with nothing pending.
    package init() {}

    /// Whether a partial escape sequence is waiting for more bytes.
    package var isPending: Bool { state != .ground }

    /// Decodes the next bytes read from the terminal.
    ///
    /// - Returns: the keys completed by these bytes, in order.
    package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            if let key = consume(byte) { keys.append(key) }
        }
        return keys
    }

    /// Drops a partial escape sequence (a lone Escape press, or a sequence cut off).
    package mutating func flush() {
        state = .ground
    }

    mutating func consume(_ byte: UInt8) -> Key? {
        switch state {
        case .ground:
            if byte == 0x1B {
                state = .escape
                return nil
            }
            return KeyDecoder.plainKey(byte)
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .csi(length: 0)
            case UInt8(ascii: "O"): state = .ss3
            case 0x1B: state = .escape  // a lone Escape followed by another sequence
            default: state = .ground  // Alt+key: ignored whole
            }
            return nil
        case .csi(let length):
            // ECMA-48: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, final byte 0x40–0x7E.
            switch byte {
            case 0x20...0x3F:
                state = length + 1 >= KeyDecoder.maxSequenceLength ? .ground : .csi(length: length + 1)
                return nil
            case 0x40...0x7E:
                state = .ground
                return KeyDecoder.arrow(byte)
            case 0x1B:
                state = .escape
                return nil
            default:
                // Not a valid CSI byte: abandon the sequence and drop the byte.
                state = .ground
                return nil
            }
        case .ss3:
            state = byte == 0x1B ? .escape : .ground
            return byte == 0x1B ? nil : KeyDecoder.arrow(byte)
        }
    }

    /// The arrow key of a CSI or SS3 final byte, or `nil` for any other key.
    static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .move(.up)
        case UInt8(ascii: "B"): .move(.down)
        case UInt8(ascii: "C"): .move(.right)
        case UInt8(ascii: "D"): .move(.left)
        default: nil
        }
    }

    /// The key of a byte outside any escape sequence.
    static func plainKey(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x03: .quit  // Ctrl-C without ISIG
        case 0x0D, 0x0A, UInt8(ascii: " "): .confirm
        default:
            byte < 0x80 ? Key(name: String(UnicodeScalar(byte))) : nil
        }
    }
}
