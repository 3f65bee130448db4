import GymSystem

/// Newline-delimited framing over file descriptors: one JSON-RPC message per line
/// in, one response per line out, flushed as it is written (the stdio transport of
/// the Model Context Protocol).
///
/// Lines longer than `maxLineBytes` (not counting the `\n`) are skipped without
/// being held in memory: the reader keeps at most `maxLineBytes` plus one read
/// buffer, whatever arrives. Reading is linear in the input: each byte is scanned
/// for a newline once, however the input is split into reads.
public struct StdioTransport: Sendable {
    /// One unit of input.
    public enum Input: Equatable, Sendable {
        /// A complete line, without its newline (a final line without one counts too).
        case line([UInt8])
        /// A line over the limit, discarded; its length without the newline.
        case tooLong(Int)
    }

    /// The input descriptor (stdin).
    public let input: Int32
    /// The output descriptor (stdout).
    public let output: Int32
    /// The longest line accepted, in bytes, not counting its newline.
    public let maxLineBytes: Int
    /// The `errno` of a failed read, which ended the input; `nil` while reads succeed.
    public private(set) var readFailure: Int32?

    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// Where the current line starts in `buffer`.
    var start = 0
    /// Where the search for the next newline resumes: `buffer[start..<scanned]` holds none.
    var scanned = 0
    /// Bytes of the current line already dropped because it is over the limit (0: none).
    var discarding = 0
    var atEnd = false
    /// Bytes searched for a newline so far: each input byte once (tests check that reading stays linear).
    var bytesScanned = 0

    /// Creates a transport on two descriptors.
    public init(input: Int32 = 0, output: Int32 = 1, maxLineBytes: Int = 1 << 20) {
        self.input = input
        self.output = output
        self.maxLineBytes = maxLineBytes
    }

    /// The next line, or `nil` at end of input (or after a failed read: see ``readFailure``).
    public mutating func next() -> Input? {
        while true {
            let newlineIndex = buffer[scanned...].firstIndex(of: 0x0A)
            bytesScanned += (newlineIndex.map { $0 + 1 } ?? buffer.count) - scanned
            if let newline = newlineIndex {
                let lineStart = start
                start = newline + 1
                scanned = start
                let length = discarding + (newline - lineStart)
                discarding = 0
                if length > maxLineBytes { return .tooLong(length) }
                var end = newline
                if end > lineStart && buffer[end - 1] == 0x0D { end -= 1 }
                return .line(Array(buffer[lineStart..<end]))
            }
            // No newline in what we hold: drop what is consumed, and the line itself once it is over the limit.
            scanned = buffer.count
            if discarding > 0 || buffer.count - start > maxLineBytes {
                discarding += buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                (start, scanned) = (0, 0)
            } else if start > 0 {
                buffer.removeSubrange(0..<start)
                (start, scanned) = (0, buffer.count)
            }
            if atEnd {
                if discarding > 0 {
                    defer { discarding = 0 }
                    return .tooLong(discarding)
                }
                guard !buffer.isEmpty else { return nil }
                defer { (buffer, scanned) = ([], 0) }
                return .line(buffer)
            }
            readChunk()
        }
    }

    mutating func readChunk() {
        // `chunk` is allocated once: one request per read is the common case,
        // and a fresh zeroed 64 KiB per read would cost more than the request.
        let count = SystemIO.read(input, into: &chunk)
        if count < 0 { readFailure = systemErrorCode }
        if count <= 0 {
            atEnd = true
            return
        }
        buffer.append(contentsOf: chunk[0..<count])
    }

    /// Serves `dispatcher` until end of input or `close`.
    ///
    /// - Throws: ``TransportError`` when stdin cannot be read (a directory, say) or a
    ///   response cannot be written (a full disk, a closed pipe); the server stops there.
    public mutating func serve(_ dispatcher: inout Dispatcher) throws(TransportError) {
        // A vanished client must end the loop with an error, not kill the process with SIGPIPE.
        SystemProcess.ignore(SystemProcess.brokenPipe)
        var out = DescriptorOutput(descriptor: output)
        while let input = next() {
            switch input {
            case .line(let line): dispatcher.handle(line: line, to: &out)
            case .tooLong:
                let response = Dispatcher.lineTooLong(limit: maxLineBytes) + [0x0A]
                _ = response.withUnsafeBytes { out.write($0) }
            }
            out.flush()
            if let code = out.failure { throw .cannotWrite(code) }
            if dispatcher.isClosed { return }
        }
        if let code = readFailure { throw .cannotRead(code) }
    }
}

/// Why ``StdioTransport/serve(_:)`` stopped before the end of its input.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Reading requests failed with this `errno`.
    case cannotRead(Int32)
    /// Writing a response failed with this `errno`.
    case cannotWrite(Int32)

    /// One line, e.g. "cannot write responses to stdout: No space left on device".
    public var description: String {
        switch self {
        case .cannotRead(let code): FileError("read requests from", "stdin", code: code).description
        case .cannotWrite(let code): FileError("write responses to", "stdout", code: code).description
        }
    }
}

/// Response bytes on their way to a descriptor: small pieces are gathered so that a
/// typical response leaves in one `write`, and large ones go out directly, so that
/// no more than 64 KiB is ever held here.
struct DescriptorOutput: ResponseOutput {
    let descriptor: Int32
    var pending: [UInt8] = []
    /// The `errno` of the first failed write.
    private(set) var failure: Int32?
    static let capacity = 1 << 16

    init(descriptor: Int32) {
        self.descriptor = descriptor
        pending.reserveCapacity(DescriptorOutput.capacity)
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        if pending.count + bytes.count > DescriptorOutput.capacity {
            flush()
            if bytes.count >= DescriptorOutput.capacity {
                if failure == nil { failure = SystemIO.writeAll(descriptor, bytes) }
                return failure == nil
            }
        }
        pending.append(contentsOf: bytes)
        return failure == nil
    }

    /// Writes what is gathered.
    mutating func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        failure = SystemIO.writeAll(descriptor, pending)
        pending.removeAll(keepingCapacity: true)
    }
}
