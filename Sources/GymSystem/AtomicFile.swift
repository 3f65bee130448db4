#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file atomically: write a temporary file beside it, sync, rename, sync the directory.
///
///     try AtomicFile.write(to: "best-scores.json") { (file: inout AtomicFile.Sink) throws(FileError) in
///         try file.write(Array(text.utf8))
///     }
///
/// A reader sees the old file or the complete new one, never a mix, even after
/// a crash; on any failure the temporary file is removed and the target is as
/// it was. Temporary files of killed saves are removed by the next save, and
/// only regular files are replaced (see ``target(of:)``).
///
/// The temporary file is always a new file (`O_CREAT | O_EXCL | O_NOFOLLOW`): a
/// name someone else holds (a symbolic link planted to redirect the save, a
/// file, a directory) is never opened, written or removed; the save takes the
/// next free name instead.
package enum AtomicFile {
    /// Where ``write(to:_:)``'s body writes.
    package struct Sink {
        let descriptor: Int32
        /// The path the caller asked to write, for errors.
        let path: String

        /// Writes all of `bytes`, in as few system calls as the kernel allows.
        package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
            if let code = SystemIO.writeAll(descriptor, bytes) { throw FileError("write", path, code: code) }
        }

        /// Writes all of `bytes`.
        package func write(_ bytes: [UInt8]) throws(FileError) {
            if let code = SystemIO.writeAll(descriptor, bytes) { throw FileError("write", path, code: code) }
        }

        /// A failure of the caller's own, reported like the system's: "cannot write PATH: reason".
        package func failure(_ reason: String) -> FileError { FileError("write", path, reason: reason) }
    }

    /// The first temporary name tried while `path` is written: `<path>.tmp-<pid>`; when that is
    /// taken, `<path>.tmp-<pid>-1`, `-2`, and so on.
    package static func temporaryPath(for path: String, attempt: Int = 0) -> String {
        attempt == 0 ? "\(path).tmp-\(getpid())" : "\(path).tmp-\(getpid())-\(attempt)"
    }

    /// How many temporary names a save tries before it gives up.
    static let temporaryAttempts = 64

    /// Creates a new temporary file for `path`, never opening one that exists.
    ///
    /// - Throws: ``FileError`` "cannot write `requestedPath`: reason", or when every name tried is taken.
    static func createTemporary(for path: String, requestedPath: String) throws(FileError) -> (descriptor: Int32, path: String) {
        for attempt in 0..<temporaryAttempts {
            let temporary = temporaryPath(for: path, attempt: attempt)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return (descriptor, temporary) }
            guard errno == EEXIST else { throw FileError("write", requestedPath) }
        }
        throw FileError(
            "write", requestedPath,
            reason: "\(temporaryAttempts) temporary names beside it (\(temporaryPath(for: path)) and on) are taken")
    }

    /// Removes `<path>.tmp-<pid>` files left by processes that no longer exist.
    ///
    /// A process killed during a save (`kill -9`, a power cut) cannot remove its
    /// temporary file, and a weights file's is hundreds of megabytes; the target
    /// itself was never touched. Files of a living process (another save in
    /// progress) are left alone.
    static func removeAbandonedTemporaries(of path: String) {
        let prefix = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "") + ".tmp-"
        let directory = SystemIO.parentDirectory(of: path)
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // `<pid>` or `<pid>-<attempt>`.
            let owner = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard name.hasPrefix(prefix), let pid = Int32(owner), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                _ = unlink(directory == "." && !path.hasPrefix("./") ? name : directory + "/" + name)
            }
        }
    }

    /// The file a save to `path` replaces: `path` itself, or the file its symbolic link points to.
    ///
    /// A rename replaces whatever has the name, so anything but a regular file
    /// (a directory, a device such as `/dev/full`, a FIFO, a socket) is refused
    /// here, before anything is written. A symbolic link is followed, so that
    /// `latest.bin -> runs/7.bin` updates `runs/7.bin` and the link stays; a
    /// link to nothing is refused, since what it was meant to name is unknown.
    static func target(of path: String) throws(FileError) -> String {
        guard SystemIO.entryExists(path) else { return path }  // nothing there: the save creates it
        var resolved = path
        if SystemIO.isSymbolicLink(path) {
            guard let real = SystemIO.resolvedPath(path) else {
                throw FileError("write", path, reason: "it is a symbolic link to a missing file (\(systemReason(errno)))")
            }
            resolved = real
        }
        if let status = FileStatus(path: resolved), !status.isRegularFile {
            throw FileError("write", path, reason: "it is \(status.kindDescription), not a regular file; a save only replaces regular files")
        }
        return resolved
    }

    /// Calls `body` to write the new contents of `requestedPath`, then puts them in place.
    ///
    /// On any failure, in `body` or after, the temporary file is removed and
    /// the file is as it was. See ``target(of:)`` for what `requestedPath` may name.
    ///
    /// - Throws: ``FileError`` "cannot write `requestedPath`: reason" (or the body's own error).
    ///   One exception to "as it was": if only the final sync of the directory fails, the
    ///   new file is already in place, and the error is still reported because the rename
    ///   might not survive a crash.
    package static func write(to requestedPath: String, _ body: (inout Sink) throws(FileError) -> Void) throws(FileError) {
        let path = try target(of: requestedPath)
        removeAbandonedTemporaries(of: path)
        let (descriptor, temporary) = try createTemporary(for: path, requestedPath: requestedPath)
        var isOpen = true
        do throws(FileError) {
            var sink = Sink(descriptor: descriptor, path: requestedPath)
            try body(&sink)
            guard fsync(descriptor) == 0 else { throw FileError("write", requestedPath) }
            isOpen = false
            guard close(descriptor) == 0 else { throw FileError("write", requestedPath) }
            guard rename(temporary, path) == 0 else { throw FileError("write", requestedPath) }
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
        // The rename is only durable once the directory entry is on disk. Some
        // file systems cannot sync a directory (EINVAL); the file is in place anyway.
        let directoryDescriptor = open(SystemIO.parentDirectory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            let synced = fsync(directoryDescriptor) == 0 || errno == EINVAL
            let code = errno
            close(directoryDescriptor)
            if !synced { throw FileError("write", requestedPath, code: code) }
        }
    }

    /// Replaces `path` with `bytes` (see ``write(to:_:)``).
    package static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        try write(to: path) { (file: inout Sink) throws(FileError) in try file.write(bytes) }
    }
}
