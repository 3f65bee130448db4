extension MemorizeEnvironment {
    /// The cards as a person reads them, a row a line: a face-down card shows its position, a face-up one its
    /// content as a letter in brackets, a seen one (`reveal_seen`) its letter in parentheses, a matched one `·`.
    ///
    ///     [B]   1   2   3
    ///       ·   ·   6 (A)
    ///
    /// What `g2048 play --game memorize` shows and the protocol's `render` answers.
    public var text: String {
        let width = String(rules.cardCount - 1).count
        var lines: [String] = []
        for row in 0..<rules.rows {
            var cells: [String] = []
            for col in 0..<rules.cols {
                let card = row * rules.cols + col
                let text: String =
                    switch view(of: card) {
                    case .faceDown: String(card)
                    case .matched: "·"
                    case .faceUp(let content): "[\(Self.letter(content))]"
                    case .seen(let content): "(\(Self.letter(content)))"
                    }
                cells.append(String(repeating: " ", count: max(0, width + 2 - text.count)) + text)
            }
            lines.append(cells.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// Content `c` as a letter: A to Z, then a to f (32 pairs at most).
    public static func letter(_ content: Int) -> String {
        let scalar = content < 26 ? 65 + content : 97 + content - 26
        return String(UnicodeScalar(UInt8(scalar)))
    }
}
