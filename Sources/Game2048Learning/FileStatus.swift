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
/// The reading and writing code of this module and of the command-line tool
/// asks it before touching a file: a FIFO would block `open`, and replacing a
/// device node or a directory by `rename` would destroy it. Two paths name the
/// same file when their ``identity`` is equal (device and inode), however the
/// paths are spelled.
public struct FileStatus: Hashable, Sendable {
    /// The `S_IFMT` bits of the mode.
    public var type: UInt32
    /// The device and inode: equal for every path to one file.
    public var identity: FileIdentity
    /// The size in bytes.
    public var size: Int

    /// The status of what `path` names, following symbolic links; `nil` when nothing is there
    /// (or it cannot be examined, which the later `open` reports with its reason).
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The status of an open descriptor (no race with a rename of its path).
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    init(_ status: stat) {
        type = UInt32(status.st_mode) & UInt32(S_IFMT)
        identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        size = Int(status.st_size)
    }

    /// Whether it is a regular file (the only kind this package reads or replaces).
    public var isRegularFile: Bool { type == UInt32(S_IFREG) }

    /// Whether it is a directory.
    public var isDirectory: Bool { type == UInt32(S_IFDIR) }

    /// The kind in words with an article: "a regular file", "a directory", "a FIFO", "a character device", …
    public var kindDescription: String {
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
public struct FileIdentity: Hashable, Sendable {
    /// The device holding the file.
    public var device: UInt64
    /// The file's inode number on that device.
    public var inode: UInt64

    /// Creates an identity.
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// Why a file could not be opened for reading by ``openRegularFile(_:)``.
struct OpenFailure: Error {
    /// The system's reason, or "not a regular file (a FIFO)" and the like.
    var reason: String
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
func openRegularFile(_ path: String) throws(OpenFailure) -> (descriptor: Int32, status: FileStatus) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { throw OpenFailure(reason: systemReason(errno)) }
    guard let status = FileStatus(descriptor: descriptor) else {
        let code = errno
        close(descriptor)
        throw OpenFailure(reason: systemReason(code))
    }
    guard status.isRegularFile else {
        close(descriptor)
        throw OpenFailure(reason: status.isDirectory ? systemReason(EISDIR) : "not a regular file (it is \(status.kindDescription))")
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return (descriptor, status)
}
