import Game2048
import GymPlay
import Testing

struct KeyDecoderTests {
    static func decode(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8))
    }

    @Test(arguments: [
        ("\u{1B}[A", Key.move(.up)), ("\u{1B}[B", .move(.down)), ("\u{1B}[C", .move(.right)), ("\u{1B}[D", .move(.left)),
        ("\u{1B}OA", .move(.up)), ("\u{1B}OB", .move(.down)), ("\u{1B}OC", .move(.right)), ("\u{1B}OD", .move(.left)),
    ])
    func arrowSequencesInBothFormsDecode(sequence: String, key: Key) {
        #expect(Self.decode(sequence) == [key])
    }

    @Test func arrowsWithModifierParametersStillDecode() {
        #expect(Self.decode("\u{1B}[1;2A\u{1B}[1;5D") == [.move(.up), .move(.left)])
    }

    @Test func lettersDecodeInEitherCase() {
        #expect(
            Self.decode("wasdhjklWASD") == [
                .move(.up), .move(.left), .move(.down), .move(.right),
                .move(.left), .move(.down), .move(.up), .move(.right),
                .move(.up), .move(.left), .move(.down), .move(.right),
            ])
        #expect(Self.decode("rRqQ") == [.restart, .restart, .quit, .quit])
    }

    @Test func enterSpaceAndControlCDecode() {
        #expect(Self.decode("\r\n ") == [.confirm, .confirm, .confirm])
        #expect(Self.decode("\u{03}") == [.quit])
    }

    @Test func sequenceSplitAcrossReadsDecodesOnceComplete() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.isPending)
        #expect(decoder.decode(Array("[".utf8)) == [])
        #expect(decoder.decode(Array("1;".utf8)) == [])
        #expect(decoder.decode(Array("5".utf8)) == [])
        #expect(decoder.decode(Array("C".utf8)) == [.move(.right)])
        #expect(!decoder.isPending)
        #expect(decoder.decode([0x1B, UInt8(ascii: "O")]) == [])
        #expect(decoder.decode(Array("Dw".utf8)) == [.move(.left), .move(.up)])
    }

    @Test func everySplitOfAStreamGivesTheSameKeys() {
        let stream = Array("\u{1B}[A w\u{1B}OB\u{1B}[15~q\u{1B}[1;2D".utf8)
        let whole = Self.decode(String(decoding: stream, as: UTF8.self))
        #expect(whole == [.move(.up), .confirm, .move(.up), .move(.down), .quit, .move(.left)])
        for cut in 0...stream.count {
            var decoder = KeyDecoder()
            let keys = decoder.decode(stream[..<cut]) + decoder.decode(stream[cut...])
            #expect(keys == whole, "split at \(cut)")
        }
        var decoder = KeyDecoder()
        #expect(stream.flatMap { decoder.decode([$0]) } == whole)
    }

    @Test func unknownSequencesAreIgnoredWholeWithoutLeakingLetters() {
        // F5 (CSI 15 ~), Home (CSI H), F1 (SS3 P), Alt+d (ESC d), a mouse report (CSI M… as parameters).
        #expect(Self.decode("\u{1B}[15~\u{1B}[H\u{1B}OP\u{1B}d") == [])
        #expect(Self.decode("\u{1B}[<0;12;5Mw") == [.move(.up)])
        // Bytes outside ASCII and other control characters are not keys.
        #expect(Self.decode("é\u{7F}\u{01}x") == [])
    }

    @Test func overlongSequenceIsDroppedAndDecodingRecovers() {
        let garbage = "\u{1B}[" + String(repeating: "1;", count: 40)
        // The sequence is abandoned after 32 bytes; its remaining digits and semicolons are not keys.
        #expect(Self.decode(garbage + "s") == [.move(.down)])
        var decoder = KeyDecoder()
        _ = decoder.decode(Array(garbage.utf8))
        #expect(!decoder.isPending)
    }

    @Test func flushDropsALoneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        decoder.flush()
        #expect(!decoder.isPending)
        #expect(decoder.decode(Array("[B".utf8)) == [])  // '[' and 'B' alone are not keys
        #expect(decoder.decode(Array("q".utf8)) == [.quit])
    }

    @Test func escapeAfterEscapeRestartsTheSequence() {
        #expect(Self.decode("\u{1B}\u{1B}[B") == [.move(.down)])
        #expect(Self.decode("\u{1B}[\u{1B}[C") == [.move(.right)])
    }
}
