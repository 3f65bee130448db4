#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import GymServer

/// The framing, over real pipes.
struct StdioTransportTests {
    /// A transport reading everything `input` holds from a pipe.
    static func lines(_ input: [UInt8], maxLineBytes: Int) -> [StdioTransport.Input] {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        let writer = fds[1]
        let data = input
        let thread = Thread {
            _ = data.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }; close(writer)
        }
        var transport = StdioTransport(input: fds[0], output: -1, maxLineBytes: maxLineBytes)
        var result: [StdioTransport.Input] = []
        while let line = transport.next() { result.append(line) }
        thread.join()
        close(fds[0])
        return result
    }

    /// A transport reading from a pipe that a thread fills `piece` bytes per write.
    static func transport(_ input: [UInt8], piece: Int, maxLineBytes: Int, body: (inout StdioTransport) -> Void) {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        let writer = fds[1]
        let thread = Thread {
            var offset = 0
            while offset < input.count {
                let count = min(piece, input.count - offset)
                _ = input.withUnsafeBytes { write(writer, $0.baseAddress! + offset, count) }
                offset += count
            }
            close(writer)
        }
        var transport = StdioTransport(input: fds[0], output: -1, maxLineBytes: maxLineBytes)
        body(&transport)
        thread.join()
        close(fds[0])
    }

    @Test func splitsLinesAndKeepsAnUnterminatedLastLine() {
        #expect(
            Self.lines(Array("a\nbc\r\n\nd".utf8), maxLineBytes: 100)
                == [.line(Array("a".utf8)), .line(Array("bc".utf8)), .line([]), .line(Array("d".utf8))])
    }

    @Test func overlongLinesAreSkippedAndReported() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)
        let result = Self.lines(long + [0x0A] + Array("ok\n".utf8) + long, maxLineBytes: 1_000)
        #expect(result == [.tooLong(300_000), .line(Array("ok".utf8)), .tooLong(300_000)])
    }
}

extension StdioTransportTests {
    /// A line that arrives in one read is held to the limit exactly as one that arrives in pieces.
    @Test(arguments: [1, 7, 1 << 16])
    func theLimitIsExactHoweverTheLineArrives(piece: Int) {
        let lines = [64, 65, 65_000, 0, 63].map { [UInt8](repeating: UInt8(ascii: "a"), count: $0) }
        let input: [UInt8] = lines.flatMap { $0 + [UInt8(0x0A)] }
        var result: [StdioTransport.Input] = []
        Self.transport(input, piece: piece, maxLineBytes: 64) { transport in
            while let line = transport.next() { result.append(line) }
        }
        #expect(result == [.line(lines[0]), .tooLong(65), .tooLong(65_000), .line([]), .line(lines[4])])
    }

    /// Each byte is searched for a newline once, however small the reads: a 400 KB line
    /// written a byte at a time used to be rescanned from its start on every read.
    @Test(arguments: [1, 1000])
    func readingIsLinear(piece: Int) {
        let line = [UInt8](repeating: UInt8(ascii: "b"), count: 400_000)
        let input = line + [0x0A] + Array("ok\n".utf8)
        var result: [StdioTransport.Input] = []
        var scanned = 0
        Self.transport(input, piece: piece, maxLineBytes: 1 << 20) { transport in
            while let line = transport.next() { result.append(line) }
            scanned = transport.bytesScanned
        }
        #expect(result == [.line(line), .line(Array("ok".utf8))])
        #expect(scanned == input.count)
    }

    @Test func aFailedReadIsReported() throws {
        let directory = open("/", O_RDONLY)
        #expect(directory >= 0)
        var transport = StdioTransport(input: directory, output: -1)
        #expect(transport.next() == nil)
        #expect(transport.readFailure == EISDIR)
        close(directory)
        var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
        var again = StdioTransport(input: open("/", O_RDONLY), output: -1)
        #expect(throws: TransportError.cannotRead(EISDIR)) { try again.serve(&dispatcher) }
        close(again.input)
    }

    @Test func aFailedWriteIsReported() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        var dispatcher = Dispatcher(session: GameSession(config: ServerConfig()))
        Self.transport(Array(#"{"jsonrpc":"2.0","id":1,"method":"spec"}"#.utf8) + [0x0A], piece: 1 << 16, maxLineBytes: 1 << 20) { transport in
            var writing = StdioTransport(input: transport.input, output: full)
            #expect(throws: TransportError.cannotWrite(ENOSPC)) { try writing.serve(&dispatcher) }
        }
        #expect(TransportError.cannotWrite(ENOSPC).description == "cannot write responses to stdout: No space left on device")
    }
}

/// A minimal joinable thread for feeding a pipe while the test reads it.
final class Thread: @unchecked Sendable {
    var handle = pthread_t()
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &handle, nil,
            { context in
                let thread = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
                thread.body()
                return nil
            }, context)
    }

    func join() { pthread_join(handle, nil) }
}
