import Testing
@testable import Game2048

struct BoardDescriptionsTests {
    @Test func descriptionIsAGridOfRightAlignedValues() {
        let b = board(2, 3, [2, 0, 128, 0, 16, 4])
        #expect(b.description == "  2   . 128\n  .  16   4")
        #expect(b.render(colored: false) == b.description)
    }

    @Test func emptyBoardRendersDots() throws {
        #expect(try Board(rows: 2, cols: 2).description == ". .\n. .")
    }

    @Test func coloredRenderingWrapsTilesInANSIEscapes() {
        let b = board(2, 2, [2, 0, 0, 4])
        let text = b.render(colored: true)
        #expect(text == "\u{1B}[48;5;255;38;5;238m 2 \u{1B}[0m . \n . \u{1B}[48;5;230;38;5;238m 4 \u{1B}[0m")
        #expect(!text.hasSuffix("\n"))
    }

    @Test func tilesPastThePaletteUseItsLastEntry() throws {
        let b = try Board(rows: 2, cols: 2, exponents: [16, 20, 15, 0])
        let text = b.render(colored: true)
        #expect(text.contains("\u{1B}[48;5;88;38;5;231m   65536 \u{1B}[0m"))
        #expect(text.contains("\u{1B}[48;5;88;38;5;231m 1048576 \u{1B}[0m"))
        #expect(text.contains("\u{1B}[48;5;160;38;5;231m   32768 \u{1B}[0m"))
        #expect(Board.tilePalette.count == 17)
    }
}
