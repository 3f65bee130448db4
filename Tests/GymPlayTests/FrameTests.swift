import Game2048
import GymPlay
import Testing

struct FrameTests {
    static let board = try! Board(rows: 2, cols: 3, values: [2, 0, 128, 0, 16, 4])

    @Test func plainRenderingHasNoEscapesAndNoHelp() {
        let frame = Frame(
            title: "g2048 · 2x3 · seed 1", status: "score 4 · best 8", board: Self.board,
            hint: "left", message: "Game over", help: "q quit")
        #expect(
            frame.render(style: .plain) == """
                g2048 · 2x3 · seed 1
                score 4 · best 8

                  2   . 128
                  .  16   4

                hint: left
                Game over
                """)
    }

    @Test func terminalRenderingColoursTilesWithThePaletteAndShowsHelp() {
        let frame = Frame(title: "t", board: Self.board, help: "q quit")
        let text = frame.render(style: .terminal)
        let (background, foreground) = Board.tilePalette[7]  // 128 = 2^7
        #expect(text.contains("\u{1B}[48;5;\(background);38;5;\(foreground)m 128 \u{1B}[0m"))
        #expect(text.hasSuffix("\nq quit"))
    }

    @Test func menuMarksTheSelectionInBothStyles() {
        let frame = Frame(title: "choose", menu: ["2x2", "3x3"], selected: 1)
        #expect(frame.render(style: .plain) == "choose\n\n  2x2\n> 3x3")
        #expect(frame.render(style: .terminal).contains("\u{1B}[7m> 3x3\u{1B}[0m"))
    }
}
