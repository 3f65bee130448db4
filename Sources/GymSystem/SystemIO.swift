#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The package's system calls on descriptors: reading and writing whole
// buffers, retried on short counts and interrupts. The rest of SystemIO
// (paths, waiting) is in the files beside this one.

/// System calls with Swift arrays and strings, for every module but the rules.
package enum SystemIO {
    /// The standard input's descriptor.
    package static let standardInput: Int32 = 0
    /// The standard output's descriptor.
    package static let standardOutput: Int32 = 1
    /// The standard error's descriptor.
    package static let standardError: Int32 = 2

    /// Writes all of `bytes`, retrying short writes and interrupted calls.
    ///
    /// - Returns: `nil`, or the `errno` of the write that failed.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        // A standard descriptor closed at start is /dev/null now (so that no file takes its number): what is
        // written there is lost, so it fails as a closed descriptor would.
        if descriptor <= standardError && closedStandardDescriptors.contains(descriptor) {
            if descriptor == standardOutput && standardOutputFailure == nil { standardOutputFailure = EBADF }
            return EBADF
        }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            // Nothing written for a non-empty buffer: a device that takes no more.
            let failure = written < 0 ? errno : written == 0 ? EIO : nil
            if let failure {
                if descriptor == standardOutput && standardOutputFailure == nil { standardOutputFailure = failure }
                return failure
            }
            offset += written
        }
        return nil
    }

    /// Which of the standard descriptors (0, 1, 2) were closed when the process started; each is
    /// now `/dev/null` (see ``reserveStandardDescriptors()``).
    nonisolated(unsafe) package static var closedStandardDescriptors: Set<Int32> = []

    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, and records which.
    ///
    /// Started with one closed (`g2048 play <&-`), the process's first `pipe()` or `open()` would
    /// take its number, and reads meant for the user would come from the program's own pipe.
    package static func reserveStandardDescriptors() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != descriptor {
                _ = dup2(null, descriptor)
                close(null)
            }
            closedStandardDescriptors.insert(descriptor)
        }
    }

    /// The first write to standard output that failed in this process (its `errno`), if any.
    ///
    /// Results go to standard output; a command that printed them to a full disk or a closed
    /// pipe has lost them, and its exit status must say so (the CLI checks this at its end).
    nonisolated(unsafe) package static var standardOutputFailure: Int32?

    /// Writes all of `bytes` (see ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)``).
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { writeAll(descriptor, $0) }
    }

    /// Writes all of a string's UTF-8 bytes.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ text: String) -> Int32? { writeAll(descriptor, Array(text.utf8)) }

    /// The result of one `read`.
    package enum ReadResult: Hashable {
        case bytes([UInt8])
        case end
        case failed(Int32)
    }

    /// One `read` of up to `max` bytes, retried when interrupted.
    package static func read(_ descriptor: Int32, max: Int = 4096) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: max)
        let count = read(descriptor, into: &buffer)
        if count > 0 { return .bytes(Array(buffer[0..<count])) }
        return count == 0 ? .end : .failed(errno)
    }

    /// One `read` into `buffer` (from its start, up to its size), retried when interrupted.
    ///
    /// - Returns: the bytes read, 0 at the end of the input, or -1 with `errno` set.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Fills `buffer` from `descriptor`, the file `path`.
    ///
    /// - Throws: ``FileError`` "cannot read `path`: …", also when the file ends first
    ///   (it was shortened while it was read).
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileError) {
        var done = 0
        while done < buffer.count {
            let count = systemRead(descriptor, buffer.baseAddress!.advanced(by: done), buffer.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("read", path)
            }
            if count == 0 { throw FileError("read", path, reason: "the file became shorter while it was read") }
            done += count
        }
    }

    /// Reads `count` bytes from `descriptor`, the file `path` (see ``read(_:into:path:)``).
    package static func read(_ descriptor: Int32, count: Int, path: String) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let failure: FileError? = bytes.withUnsafeMutableBytes { buffer in
            do throws(FileError) { try read(descriptor, into: buffer, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return bytes
    }

    /// The whole of a regular file (opened by ``openRegularFile(_:)``, so a FIFO cannot hang it).
    ///
    /// - Throws: ``FileError`` "cannot open `path`: …" or "cannot read `path`: …"
    ///   (with "File too large" past `limit` bytes).
    package static func readFile(_ path: String, limit: Int = 1 << 30) throws(FileError) -> [UInt8] {
        let descriptor = try openRegularFile(path).descriptor
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, into: &chunk)
            if count < 0 { throw FileError("read", path) }
            if count == 0 { return contents }
            contents += chunk[0..<count]
            if contents.count > limit { throw FileError("read", path, code: EFBIG) }
        }
    }

    /// Calls `body` with each line of a regular file in order (without its newline; `isCutOff` for
    /// a last line the file ends inside), reading 64 KiB at a time: a file of any size is read in
    /// the memory of its longest line.
    ///
    /// - Throws: ``FileError`` when the file cannot be opened or read, or a line is longer than
    ///   `maxLine` bytes ("cannot read `path`: line 7 is longer than 1048576 bytes"); what `body` throws.
    package static func forEachLine<Failure: Error>(
        of path: String, maxLine: Int = 1 << 20,
        _ body: (_ line: ArraySlice<UInt8>, _ number: Int, _ isCutOff: Bool) throws(Failure) -> Void
    ) throws(LineReadFailure<Failure>) {
        let descriptor: Int32
        do throws(FileError) { descriptor = try openRegularFile(path).descriptor } catch { throw .file(error) }
        defer { close(descriptor) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var number = 0
        while true {
            let count = read(descriptor, into: &chunk)
            if count < 0 { throw .file(FileError("read", path)) }
            if count == 0 { break }
            buffer += chunk[0..<count]
            var start = buffer.startIndex
            while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                do { try body(buffer[start..<newline], number, false) } catch { throw .body(error) }
                start = newline + 1
            }
            buffer.removeSubrange(..<start)
            if buffer.count > maxLine {
                throw .file(FileError("read", path, reason: "line \(number + 1) is longer than \(maxLine) bytes"))
            }
        }
        if !buffer.isEmpty {
            do { try body(buffer[...], number + 1, true) } catch { throw .body(error) }
        }
    }

    /// Why ``forEachLine(of:maxLine:_:)`` stopped: the file, or the caller's body.
    package enum LineReadFailure<Failure: Error>: Error {
        case file(FileError)
        case body(Failure)
    }

    /// The whole of a regular file, or `nil` when nothing is at `path` (see ``readFile(_:limit:)``).
    package static func readFileIfPresent(_ path: String, limit: Int = 1 << 30) throws(FileError) -> [UInt8]? {
        var link = stat()
        if lstat(path, &link) != 0 && errno == ENOENT { return nil }
        return try readFile(path, limit: limit)
    }

    /// Opens a file for writing from the start (created with mode 0644, truncated if it exists).
    package static func createFile(_ path: String) throws(FileError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError("write", path) }
        return descriptor
    }

    /// Opens a regular file for appending, creating it (mode 0644) if needed, and empties it
    /// first when `truncating`; the returned status is the file's before that.
    ///
    /// The open is non-blocking, so a FIFO cannot hang it; only a regular file is accepted,
    /// and it is emptied only once it is known to be one.
    ///
    /// - Throws: ``FileError`` "cannot open …" (also "not a regular file (it is a FIFO)"
    ///   and the like), or "cannot write …" when emptying fails.
    package static func openForAppending(_ path: String, truncating: Bool) throws(FileError) -> (descriptor: Int32, status: FileStatus) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
        guard descriptor >= 0 else { throw FileError("open", path) }
        func refuse(_ failure: FileError) -> FileError {
            close(descriptor)
            return failure
        }
        guard let status = FileStatus(descriptor: descriptor) else { throw refuse(FileError("open", path)) }
        guard status.isRegularFile else {
            throw refuse(FileError("open", path, reason: "not a regular file (it is \(status.kindDescription))"))
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        if truncating && status.size > 0 && ftruncate(descriptor, 0) != 0 { throw refuse(FileError("write", path)) }
        return (descriptor, status)
    }

    /// Closes a descriptor.
    package static func closeFile(_ descriptor: Int32) { close(descriptor) }

    /// Writes a static string with one `write` call: safe inside a signal handler (no allocation).
    package static func writeStatic(_ descriptor: Int32, _ text: StaticString) {
        _ = systemWrite(descriptor, text.utf8Start, text.utf8CodeUnitCount)
    }

    /// Writes one byte with one `write` call: safe inside a signal handler.
    package static func writeByte(_ descriptor: Int32, _ byte: UInt8) {
        var value = byte
        _ = systemWrite(descriptor, &value, 1)
    }

    /// Whether a descriptor is a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The value of an environment variable.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

// At file scope `read` and `write` are the system calls, not SystemIO's methods of those names.

/// `read(2)`, named apart from the methods called `read`.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }

/// `write(2)`, named apart from the methods called `write`.
func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, buffer, count) }
