import Game2048

/// A command from the player: what a key press or an input line means to `g2048 play`.
///
///     Key(name: "left")   // .move(.left)
///     Key(name: "k")      // .move(.up), vi's key
///     Key(name: "q")      // .quit
///
/// Keys come from ``KeyDecoder`` (raw terminal bytes: arrows, WASD, hjkl) or
/// from ``LineKeyDecoder`` (one name per line when the input is a pipe).
package enum Key: Hashable, Sendable {
    /// Slide the tiles; on the start screen, move the selection.
    case move(Direction)
    /// Start a new game (`r`).
    case restart
    /// Leave the program (`q`, or Ctrl-C when the terminal sends it as a byte).
    case quit
    /// Accept the selection on the start screen (Enter or space).
    case confirm

    /// The key an input line names, or `nil` when it names none.
    ///
    ///     Key(name: "up")      // .move(.up)
    ///     Key(name: " W ")     // .move(.up): case and surrounding blanks don't matter
    ///     Key(name: "north")   // nil
    ///
    /// Accepted: `up`, `down`, `left`, `right`; `w`, `a`, `s`, `d`; `h` (left),
    /// `j` (down), `k` (up), `l` (right); `r` or `restart`; `q` or `quit`;
    /// `enter`.
    ///
    /// - Parameter name: one line of input, without its newline.
    package init?(name: some StringProtocol) {
        switch name.trimmingBlanks().lowercased() {
        case "up", "w", "k": self = .move(.up)
        case "down", "s", "j": self = .move(.down)
        case "left", "a", "h": self = .move(.left)
        case "right", "d", "l": self = .move(.right)
        case "r", "restart": self = .restart
        case "q", "quit": self = .quit
        case "enter": self = .confirm
        default: return nil
        }
    }

    /// The names ``init(name:)`` accepts, for error messages.
    package static let acceptedNames = "up, down, left, right, w, a, s, d, h, j, k, l, r or q"
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and carriage returns.
    func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        let view = Substring(self)
        guard let first = view.firstIndex(where: { !blank($0) }), let last = view.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return view[first...last]
    }
}
