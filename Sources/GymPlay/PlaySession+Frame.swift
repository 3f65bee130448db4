import Game2048

extension PlaySession {
    /// The screen for the current state.
    package var frame: Frame {
        if phase == .choosingSize || environment == nil {
            let menu = configuration.sizeChoices.map { size in
                let label = BestScores.key(rows: size, cols: size)
                return label + "   best " + String(bestScores[rows: size, cols: size])
            }
            return Frame(
                title: "g2048 · choose a board size", menu: menu, selected: selectedSize,
                help: "↑/↓ choose · Enter start · q quit")
        }
        let environment = environment!
        let rules = environment.rules
        var title = "g2048 · \(rules.sizeLabel) · seed \(seed)"
        if configuration.player != "human" { title += " · \(configuration.player) playing" }
        let status = "score \(environment.score) · best \(bestScores[rows: rules.rows, cols: rules.cols])"
        let help =
            configuration.player == "human"
            ? "arrows, WASD or hjkl move · r restart · q quit"
            : "r restart · q quit"
        return Frame(
            title: title, status: status, board: environment.board, hint: hint.map(\.name),
            message: message, help: help)
    }
}
