#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SystemIO {
    /// The directory part of a path (`.` when there is none).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates a directory and any missing parents (`mkdir -p`).
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(FileError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode_t(mode)) != 0 && errno != EEXIST { throw FileError("create directory", prefix) }
            prefix += "/"
        }
        guard let status = FileStatus(path: path) else { throw FileError("create directory", path) }
        guard status.isDirectory else { throw FileError("create directory", path, code: ENOTDIR) }
    }

    /// Takes an exclusive `flock` on `path` (created if needed, never through a symbolic link),
    /// waiting at most `seconds` for another holder to let go.
    ///
    /// - Returns: the descriptor (the lock lasts until it is closed), or `nil` when the lock was
    ///   still held by another process after `seconds`.
    package static func lockExclusively(_ path: String, waitingAtMost seconds: Double) throws(FileError) -> Int32? {
        let deadline = SystemClock.monotonicSeconds() + seconds
        while true {
            if let descriptor = try lockWithoutWaiting(path) { return descriptor }
            if SystemClock.monotonicSeconds() >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Renames `path` to `target`, replacing it.
    package static func rename(_ path: String, to target: String) throws(FileError) {
        #if canImport(Glibc)
        let result = Glibc.rename(path, target)
        #else
        let result = Darwin.rename(path, target)
        #endif
        guard result == 0 else { throw FileError("rename", path) }
    }

    /// Moves `path` to `target` unless `target` exists: `false`, and nothing moved, when it does.
    ///
    /// A hard link, then the old name's removal: a rename would replace `target`.
    package static func moveWithoutReplacing(_ path: String, to target: String) throws(FileError) -> Bool {
        guard link(path, target) == 0 else {
            if errno == EEXIST { return false }
            throw FileError("move", path)
        }
        guard unlink(path) == 0 else { throw FileError("move", path) }
        return true
    }

    /// Whether `path` itself is a symbolic link (not followed).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var link = stat()
        return lstat(path, &link) == 0 && UInt32(link.st_mode) & UInt32(S_IFMT) == UInt32(S_IFLNK)
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    package static func entryExists(_ path: String) -> Bool {
        var link = stat()
        return lstat(path, &link) == 0
    }

    /// The absolute path with every symbolic link resolved, or `nil` (with `errno` set) when
    /// it names nothing.
    package static func resolvedPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// Removes a directory entry; a failure is ignored (the caller has nothing better to do).
    package static func remove(_ path: String) { _ = unlink(path) }

    /// Up to `limit` bytes from the start of a file, opened without blocking (a FIFO gives
    /// nothing rather than a hang); `nil` if it cannot be read.
    package static func readPrefix(of path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = read(descriptor, into: &bytes)
        return count >= 0 ? Array(bytes[0..<count]) : nil
    }

    /// Takes an exclusive `flock` on `path` (created if needed, never through a symbolic link)
    /// without waiting; the lock lasts until the returned descriptor is closed.
    ///
    /// - Returns: the descriptor, or `nil` when another process holds the lock.
    /// - Throws: ``FileError`` "cannot create the lock file …" or "cannot lock …".
    package static func lockWithoutWaiting(_ path: String) throws(FileError) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else { throw FileError("create the lock file", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw FileError("lock", path, code: code)
        }
        return descriptor
    }

    /// Replaces what an open file holds with `bytes` (truncate, then write at the start);
    /// failures are ignored, for notes that only help a person.
    package static func overwrite(_ descriptor: Int32, with bytes: [UInt8]) {
        _ = ftruncate(descriptor, 0)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, 0) }
    }
}
