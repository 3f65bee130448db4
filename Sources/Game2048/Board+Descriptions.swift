// Text renderings of a board: plain for logs and tests, ANSI-coloured for terminals.

extension Board: CustomStringConvertible {
    /// The board as a grid of tile values, `.` for empty cells, right-aligned columns.
    ///
    ///     try Board(rows: 2, cols: 3, values: [2, 0, 128, 0, 16, 4]).description
    ///     //   2   . 128
    ///     //   .  16   4
    public var description: String { render(colored: false) }

    /// Renders the board as text.
    ///
    /// - Parameter colored: wrap each tile in ANSI 256-colour escapes from ``tilePalette``,
    ///   chosen by the tile's exponent (log2 of its value), as the original game's
    ///   colours darken with each doubling.
    /// - Returns: one line per row, separated by `"\n"`, without a trailing newline.
    public func render(colored: Bool) -> String {
        let width = max(1, (0..<cellCount).map { String(Board.value(ofExponent: storage[$0])).count }.max() ?? 1)
        var lines: [String] = []
        for row in 0..<rows {
            var cells: [String] = []
            for col in 0..<cols {
                let exponent = storage[row * cols + col]
                let text = exponent == 0 ? "." : String(Board.value(ofExponent: exponent))
                let padded = String(repeating: " ", count: width - text.count) + text
                if colored && exponent > 0 {
                    let (background, foreground) = Board.tilePalette[min(Int(exponent), Board.tilePalette.count - 1)]
                    cells.append("\u{1B}[48;5;\(background);38;5;\(foreground)m \(padded) \u{1B}[0m")
                } else {
                    cells.append(colored ? " \(padded) " : padded)
                }
            }
            lines.append(cells.joined(separator: colored ? "" : " "))
        }
        return lines.joined(separator: "\n")
    }

    /// ANSI 256-colour `(background, foreground)` pairs indexed by exponent:
    /// cream to orange to red to gold as the tile doubles, the original game's
    /// progression; exponents past the end use the last entry.
    public static let tilePalette: [(background: Int, foreground: Int)] = [
        (0, 7),  // empty (unused)
        (255, 238),  // 2
        (230, 238),  // 4
        (216, 231),  // 8
        (209, 231),  // 16
        (203, 231),  // 32
        (196, 231),  // 64
        (229, 238),  // 128
        (228, 238),  // 256
        (227, 238),  // 512
        (226, 238),  // 1024
        (220, 238),  // 2048
        (214, 231),  // 4096
        (208, 231),  // 8192
        (202, 231),  // 16384
        (160, 231),  // 32768
        (88, 231),  // 65536 and up
    ]
}
