#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Newline-delimited framing over file descriptors: one JSON-RPC message per line
/// in, one response per line out, flushed as it is written (the stdio transport of
/// the Model Context Protocol).
///
/// Lines longer than `maxLineBytes` are skipped without being held in memory:
/// the reader keeps at most `maxLineBytes` plus one read buffer, whatever arrives.
public struct StdioTransport: Sendable {
    /// One unit of input.
    public enum Input: Equatable, Sendable {
        /// A complete line, without its newline (a final line without one counts too).
        case line([UInt8])
        /// A line over the limit, discarded; its length so far.
        case tooLong(Int)
    }

    /// The input descriptor (stdin).
    public let input: Int32
    /// The output descriptor (stdout).
    public let output: Int32
    /// The longest line accepted, in bytes.
    public let maxLineBytes: Int

    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var start = 0
    var discarding = 0
    var atEnd = false

    /// Creates a transport on two descriptors.
    public init(input: Int32 = 0, output: Int32 = 1, maxLineBytes: Int = 1 << 20) {
        self.input = input
        self.output = output
        self.maxLineBytes = maxLineBytes
    }

    /// The next line, or `nil` at end of input.
    public mutating func next() -> Input? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                if discarding > 0 {
                    let length = discarding + (newline - start)
                    discarding = 0
                    return .tooLong(length)
                }
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                return .line(Array(buffer[start..<end]))
            }
            // No newline in what we hold: drop what is consumed, and anything past the limit.
            buffer.removeSubrange(0..<start)
            start = 0
            if discarding > 0 || buffer.count > maxLineBytes {
                discarding += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            if atEnd {
                if discarding > 0 {
                    let length = discarding
                    discarding = 0
                    return .tooLong(length)
                }
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return .line(buffer)
            }
            readChunk()
        }
    }

    mutating func readChunk() {
        while true {
            // `chunk` is allocated once: one request per read is the common case,
            // and a fresh zeroed 64 KiB per read would cost more than the request.
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                atEnd = true
                return
            }
            buffer.append(contentsOf: chunk[0..<count])
            return
        }
    }

    /// Writes `bytes` and a newline; returns false when the reader has gone away.
    public func write(line bytes: [UInt8]) -> Bool {
        var data = bytes
        data.append(0x0A)
        return StdioTransport.writeAll(data, to: output)
    }

    /// Writes all of `bytes` to a descriptor, retrying short writes and interrupts;
    /// returns false when the descriptor is closed or fails.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Serves `dispatcher` until end of input, `close`, or a closed output; returns when done.
    public mutating func serve(_ dispatcher: inout Dispatcher) {
        // A vanished client must end the loop, not kill the process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        while let input = next() {
            let response: [UInt8]?
            switch input {
            case .line(let line): response = dispatcher.handle(line: line)
            case .tooLong: response = Dispatcher.lineTooLong(limit: maxLineBytes)
            }
            if let response, !write(line: response) { return }
            if dispatcher.isClosed { return }
        }
    }
}
