#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is at a path: its type and identity, following symbolic links.
///
///     if let status = FileStatus(path: "w.bin"), !status.isRegularFile {
///         print("w.bin is \(status.kindDescription), not a regular file")   // "a FIFO"
///     }
///
/// The package's reading and writing code asks it before touching a file: a FIFO would block `open`, and replacing a
/// device node or a directory by `rename` would destroy it. Two paths name the
/// same file when their ``identity`` is equal (device and inode), however the
/// paths are spelled.
package struct FileStatus: Hashable, Sendable {
    /// The `S_IFMT` bits of the mode.
    package var type: UInt32
    /// The device and inode: equal for every path to one file.
    package var identity: FileIdentity
    /// The size in bytes.
    package var size: Int
    /// The bytes of disk the file occupies (`st_blocks`, 512-byte units): far below ``size`` for a
    /// sparse file, whose holes read as zeros.
    package var allocatedBytes: Int

    /// The status of what `path` names, following symbolic links; `nil` when nothing is there
    /// (or it cannot be examined, which the later `open` reports with its reason).
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The status of an open descriptor (no race with a rename of its path).
    package init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    init(_ status: stat) {
        type = UInt32(status.st_mode) & UInt32(S_IFMT)
        identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        size = Int(status.st_size)
        allocatedBytes = Int(status.st_blocks) &* 512
    }

    /// Whether it is a regular file (the only kind this package reads or replaces).
    package var isRegularFile: Bool { type == UInt32(S_IFREG) }

    /// Whether it is a directory.
    package var isDirectory: Bool { type == UInt32(S_IFDIR) }

    /// The kind in words with an article: "a regular file", "a directory", "a FIFO", "a character device", …
    package var kindDescription: String {
        switch type {
        case UInt32(S_IFREG): "a regular file"
        case UInt32(S_IFDIR): "a directory"
        case UInt32(S_IFIFO): "a FIFO"
        case UInt32(S_IFCHR): "a character device"
        case UInt32(S_IFBLK): "a block device"
        case UInt32(S_IFSOCK): "a socket"
        default: "a special file"
        }
    }
}

/// A file's device and inode numbers: the file itself, not a path to it.
package struct FileIdentity: Hashable, Sendable {
    /// The device holding the file.
    package var device: UInt64
    /// The file's inode number on that device.
    package var inode: UInt64

    /// Creates an identity.
    package init(device: UInt64, inode: UInt64) {
        (self.device, self.inode) = (device, inode)
    }
}

/// Opens `path` for reading if it is a regular file, without ever blocking.
///
/// `O_NONBLOCK` makes `open` return at once on a FIFO (which would otherwise
/// wait for a writer, forever); the type is then checked on the descriptor
/// itself, so a rename between the check and the open cannot slip a FIFO or a
/// device in. Reads from a regular file never block, and the flag is cleared
/// anyway once the file is known to be regular.
///
/// - Returns: the descriptor and the file's status.
/// - Throws: ``FileError`` "cannot open `path`: reason", the reason being the
///   system's or "not a regular file (it is a FIFO)" and the like.
package func openRegularFile(_ path: String) throws(FileError) -> (descriptor: Int32, status: FileStatus) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { throw FileError("open", path) }
    guard let status = FileStatus(descriptor: descriptor) else {
        let code = errno
        close(descriptor)
        throw FileError("open", path, code: code)
    }
    guard status.isRegularFile else {
        close(descriptor)
        if status.isDirectory { throw FileError("open", path, code: EISDIR) }
        throw FileError("open", path, reason: "not a regular file (it is \(status.kindDescription))")
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return (descriptor, status)
}

extension FileStatus {
    /// The bytes a file written into `folder` may take now: the room its file system gives this user (`f_bavail`)
    /// and, when lower, the process's file-size limit (`ulimit -f`); `nil` when neither can be told.
    package static func writableBytes(inFolder folder: String) -> Int? {
        var room: Int? = nil
        var status = statvfs()
        if statvfs(folder, &status) == 0 {
            let (bytes, overflow) = Int(clamping: status.f_bavail).multipliedReportingOverflow(by: Int(clamping: status.f_frsize))
            room = overflow ? Int.max : bytes
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            room = min(room ?? Int.max, Int(clamping: limit.rlim_cur))
        }
        return room
    }
}
