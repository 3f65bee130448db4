#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Game2048Server

/// The framing, over real pipes.
struct StdioTransportTests {
    /// A transport reading everything `input` holds from a pipe.
    static func lines(_ input: [UInt8], maxLineBytes: Int) -> [StdioTransport.Input] {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        let writer = fds[1]
        let data = input
        let thread = Thread { _ = data.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }; close(writer) }
        var transport = StdioTransport(input: fds[0], output: -1, maxLineBytes: maxLineBytes)
        var result: [StdioTransport.Input] = []
        while let line = transport.next() { result.append(line) }
        thread.join()
        close(fds[0])
        return result
    }

    @Test func splitsLinesAndKeepsAnUnterminatedLastLine() {
        #expect(Self.lines(Array("a\nbc\r\n\nd".utf8), maxLineBytes: 100)
                == [.line(Array("a".utf8)), .line(Array("bc".utf8)), .line([]), .line(Array("d".utf8))])
    }

    @Test func overlongLinesAreSkippedAndReported() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)
        let result = Self.lines(long + [0x0A] + Array("ok\n".utf8) + long, maxLineBytes: 1_000)
        #expect(result == [.tooLong(300_000), .line(Array("ok".utf8)), .tooLong(300_000)])
    }
}

/// A minimal joinable thread for feeding a pipe while the test reads it.
final class Thread: @unchecked Sendable {
    var handle = pthread_t()
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { context in
            let thread = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
            thread.body()
            return nil
        }, context)
    }

    func join() { pthread_join(handle, nil) }
}
