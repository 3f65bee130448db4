#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The module's system calls: files, descriptors and polling. This is the one
// file of Game2048Play that touches Unsafe*Pointer; everything else calls
// these functions with Swift arrays and strings.

/// A failed system call on a file, described in one line ("cannot write /x/y: Permission denied").
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done: "read", "write", "create", …
    public var operation: String
    /// The file or directory.
    public var path: String
    /// The `errno` value.
    public var code: Int32

    /// Creates an error from the current `errno`.
    init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// For example "cannot write /home/me/.local/share/gym2048/best-scores.json: No space left on device".
    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }
}

enum SystemIO {
    /// Whether a descriptor is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The whole contents of a file, or `nil` when it does not exist.
    static func readFile(_ path: String, limit: Int = 1 << 30) throws(SystemError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("read", path)
        }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        while true {
            switch read(descriptor, max: 1 << 16) {
            case .bytes(let chunk):
                contents += chunk
                if contents.count > limit { throw SystemError("read", path, code: EFBIG) }
            case .end: return contents
            case .failed(let code): throw SystemError("read", path, code: code)
            }
        }
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same
    /// directory is written, flushed to disk (`fsync`), then renamed over the
    /// target, and the directory is flushed too. A reader sees the old file or
    /// the new one, never a mix, and a crash leaves no partial file behind.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SystemError) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError("create", temporary) }
        var failure: SystemError? = nil
        if !writeAll(descriptor, bytes) {
            failure = SystemError("write", temporary)
        } else if fsync(descriptor) != 0 {
            failure = SystemError("flush", temporary)
        }
        if close(descriptor) != 0 && failure == nil { failure = SystemError("close", temporary) }
        if failure == nil, (try? SystemIO.rename(temporary, to: path)) == nil { failure = SystemError("replace", path) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directory = parentDirectory(of: path)
        let directoryDescriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            // Makes the rename itself durable; some file systems refuse, which is harmless.
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// The directory part of a path (`.` when there is none).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates a directory and any missing parents (`mkdir -p`).
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw SystemError("create directory", prefix) }
            prefix += "/"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError("create directory", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError("create directory", path, code: ENOTDIR) }
    }

    /// Opens a file for writing from the start (created with mode 0644, truncated if it exists).
    static func createFile(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError("write", path) }
        return descriptor
    }

    /// Opens (creating it if needed) `path` and takes an exclusive `flock` on it, waiting for
    /// other holders; the lock lasts until the returned descriptor is closed.
    static func lockExclusively(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError("create lock file", path) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let failure = SystemError("lock", path)
            close(descriptor)
            throw failure
        }
        return descriptor
    }

    /// Renames `path` to `target`, replacing it.
    static func rename(_ path: String, to target: String) throws(SystemError) {
        #if canImport(Glibc)
        let result = Glibc.rename(path, target)
        #else
        let result = Darwin.rename(path, target)
        #endif
        guard result == 0 else { throw SystemError("rename", path) }
    }

    /// Closes a descriptor this module opened.
    static func closeFile(_ descriptor: Int32) { close(descriptor) }

    /// Whether a path exists.
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Writes all of `bytes`, retrying short writes and interrupted calls.
    ///
    /// - Returns: `false` when a write failed (`errno` says why).
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes all of a string's UTF-8 bytes.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ text: String) -> Bool { writeAll(descriptor, Array(text.utf8)) }

    /// The result of one `read`.
    enum ReadResult: Hashable {
        case bytes([UInt8])
        case end
        case failed(Int32)
    }

    /// One `read` of up to `max` bytes, retried when interrupted.
    static func read(_ descriptor: Int32, max: Int = 4096) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: max)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Glibc)
                Glibc.read(descriptor, raw.baseAddress!, raw.count)
                #else
                Darwin.read(descriptor, raw.baseAddress!, raw.count)
                #endif
            }
            if count > 0 { return .bytes(Array(buffer[0..<count])) }
            if count == 0 { return .end }
            if errno == EINTR { continue }
            return .failed(errno)
        }
    }

    /// Waits until one of `descriptors` is readable (or at its end), or `timeout` milliseconds pass.
    ///
    /// - Parameters:
    ///   - descriptors: the file descriptors to watch.
    ///   - timeout: milliseconds; negative waits forever.
    /// - Returns: for each descriptor, whether it is ready to read (readable, at end of file, or in error).
    static func waitReadable(_ descriptors: [Int32], timeout: Int) -> [Bool] {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), Int32(clamping: timeout))
        }
        guard result > 0 else { return descriptors.map { _ in false } }
        return fds.map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 }
    }

    /// A pipe's read and write ends, both close-on-exec and non-blocking.
    static func makePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        let result = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        guard result == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }

    /// Sleeps for `milliseconds`.
    static func sleep(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// Milliseconds of a monotonic clock.
    static func monotonicMilliseconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1000 + spec.tv_nsec / 1_000_000
    }

    /// A seed from the wall clock: milliseconds since 1970 (13 digits, exact in any JSON reader).
    static func clockSeed() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(spec.tv_sec) &* 1000 &+ UInt64(spec.tv_nsec / 1_000_000)
    }

    /// The value of an environment variable.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

extension SystemIO {
    /// Writes a static string with one `write` call: safe inside a signal handler (no allocation).
    static func writeStatic(_ descriptor: Int32, _ text: StaticString) {
        _ = write(descriptor, text.utf8Start, text.utf8CodeUnitCount)
    }

    /// Writes one byte with one `write` call: safe inside a signal handler.
    static func writeByte(_ descriptor: Int32, _ byte: UInt8) {
        var value = byte
        _ = write(descriptor, &value, 1)
    }

    /// Sets one entry of a termios control-character array (`VMIN`, `VTIME`, …).
    static func setControlCharacter(_ attributes: inout termios, _ index: Int32, _ value: UInt8) {
        withUnsafeMutableBytes(of: &attributes.c_cc) { bytes in
            if Int(index) < bytes.count { bytes[Int(index)] = value }
        }
    }
}
