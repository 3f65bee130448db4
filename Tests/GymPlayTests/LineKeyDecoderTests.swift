import Game2048
import GymPlay
import Testing

struct LineKeyDecoderTests {
    @Test func eachLineNamesOneKey() {
        var decoder = LineKeyDecoder()
        let events = decoder.decode(Array("left\nw\r\nk\n\nQ\n".utf8))
        #expect(events == [.key(.move(.left)), .key(.move(.up)), .key(.move(.up)), .key(.quit)])
    }

    @Test func linesSplitAcrossReadsAreJoined() {
        var decoder = LineKeyDecoder()
        #expect(decoder.decode(Array("ri".utf8)) == [])
        #expect(decoder.decode(Array("ght\ndo".utf8)) == [.key(.move(.right))])
        #expect(decoder.decode(Array("wn\n".utf8)) == [.key(.move(.down))])
    }

    @Test func unknownLinesAreReportedWithTheirNumber() {
        var decoder = LineKeyDecoder()
        let events = decoder.decode(Array("up\nnorth\n\nfly away\n".utf8))
        #expect(events == [.key(.move(.up)), .unknown(line: 2, text: "north"), .unknown(line: 4, text: "fly away")])
    }

    @Test func lastLineWithoutNewlineIsDecodedAtTheEnd() {
        var decoder = LineKeyDecoder()
        #expect(decoder.decode(Array("up\nr".utf8)) == [.key(.move(.up))])
        #expect(decoder.finish() == [.key(.restart)])
        #expect(decoder.finish() == [])
    }

    @Test func overlongLineIsCutAndReported() {
        var decoder = LineKeyDecoder()
        let events = decoder.decode(Array((String(repeating: "u", count: 10_000) + "\nup\n").utf8))
        #expect(events.count == 2)
        guard case .unknown(line: 1, let text) = events[0] else { Issue.record("expected an unknown line"); return }
        #expect(text.count <= 40)
        #expect(events[1] == .key(.move(.up)))
    }
}
