import Game2048

/// One screen of `g2048 play` or `g2048 replay`: what to show, independent of how it is drawn.
///
///     let frame = session.frame
///     frame.render(style: .plain)      // for a pipe: no escapes at all
///     frame.render(style: .terminal)   // coloured tiles, highlighted menu, key help
///
/// A plain rendering of a game looks like this:
///
///     g2048 · 4x4 · seed 42
///     score 16 · best 2316
///
///     2 . . .
///     . 4 . .
///     . . 8 2
///     . . . .
///
///     hint: left
package struct Frame: Hashable, Sendable {
    /// How to draw a frame.
    package enum Style: Hashable, Sendable {
        /// Text only: no ANSI escapes, no key help; for pipes and files.
        case plain
        /// Coloured tiles (`Board.tilePalette`), a highlighted menu line and the key help.
        case terminal
    }

    /// The first line: program, board size, seed.
    package var title: String
    /// Score and best score, or the replay position.
    package var status: String?
    /// The board, or `nil` on the start screen.
    package var board: Board?
    /// Another game's position, drawn as text where a board would be (any game but 2048: its `text`).
    package var text: String?
    /// The start screen's choices, one per line.
    package var menu: [String]
    /// The selected menu line.
    package var selected: Int?
    /// The suggested move.
    package var hint: String?
    /// A message: refused move, win, game over.
    package var message: String?
    /// The keys, shown in the terminal style only.
    package var help: String?

    /// Creates a frame.
    package init(
        title: String, status: String? = nil, board: Board? = nil, text: String? = nil, menu: [String] = [],
        selected: Int? = nil, hint: String? = nil, message: String? = nil, help: String? = nil
    ) {
        (self.title, self.status, self.board, self.text, self.menu) = (title, status, board, text, menu)
        (self.selected, self.hint, self.message, self.help) = (selected, hint, message, help)
    }

    /// The frame as text, lines separated by `"\n"`, without a trailing newline.
    package func render(style: Style) -> String {
        let terminal = style == .terminal
        var lines = [title]
        if let status { lines.append(status) }
        if let board {
            lines.append("")
            let indent = terminal ? "  " : ""
            lines += board.render(colored: terminal).split(separator: "\n", omittingEmptySubsequences: false).map { indent + $0 }
        }
        if let text { lines += [""] + text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        if !menu.isEmpty {
            lines.append("")
            for (index, item) in menu.enumerated() {
                let isSelected = index == selected
                let text = (isSelected ? "> " : "  ") + item
                lines.append(terminal && isSelected ? "\u{1B}[7m" + text + "\u{1B}[0m" : text)
            }
        }
        var footer: [String] = []
        if let hint { footer.append("hint: " + hint) }
        if let message { footer.append(message) }
        if terminal, let help { footer.append(help) }
        if !footer.isEmpty { lines += [""] + footer }
        return lines.joined(separator: "\n")
    }
}
