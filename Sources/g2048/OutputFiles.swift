#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Game2048Learning

/// The one policy for every file a command writes (`--out`, `--metrics`, `--plot`, `--record`),
/// applied before any work starts.
///
///     let claim = try OutputFiles.claim(
///         [.init(flag: "out", path: out), .init(flag: "metrics", path: csv, mode: .append(header: TrainingMetrics.csvHeader))],
///         inputs: [.init(flag: "resume", path: resumed)], force: force, command: "train")
///     defer { claim.release() }
///
/// - An output that exists is replaced only with `--force`, except an output
///   that may rewrite an input (`--out` over the `--resume` file, which is what
///   resuming means); an output in `.append` mode is appended to, if it starts
///   with the expected header.
/// - An output that is not a regular file (a directory, a device, a FIFO, a
///   socket) is refused, even with `--force`. Symbolic links are followed: the
///   file they point to is the one checked, locked and written.
/// - An output that is one of the inputs (or another output) is refused; files
///   are compared by device and inode, so `./w.bin`, `w.bin` and a link to it
///   are one file.
/// - Each output is locked, with `flock` on `<file>.lock` beside it, for as long as
///   the command runs: a second command writing the same file stops at once and
///   names the lock and the process holding it. The lock file is removed at the end
///   (one left by a killed process is harmless: the kernel released its lock).
enum OutputFiles {
    /// How a command writes an output.
    enum Mode: Equatable {
        /// The file is created or replaced.
        case replace
        /// The file is created, or appended to if its first line is `header`.
        case append(header: String)
    }

    /// A file a command writes.
    struct Output {
        /// The flag without dashes, e.g. `out`.
        var flag: String
        var path: String
        var mode: Mode = .replace
        /// The input flag whose file this output may replace without `--force` (`resume` for `--out`).
        var mayReplace: String? = nil
    }

    /// A file a command reads.
    struct Input {
        var flag: String
        var path: String
    }

    /// Checks every output against the policy and locks it.
    ///
    /// - Throws: ``OutputFileError`` naming the flag, the file and the rule; nothing is locked then.
    static func claim(_ outputs: [Output], inputs: [Input], force: Bool, command: String) throws(OutputFileError) -> OutputClaim {
        let claim = OutputClaim()
        do throws(OutputFileError) {
            var seen: [(flag: String, path: String, key: FileKey)] = []
            let inputKeys = inputs.compactMap { input in FileStatus(path: input.path).map { (input, FileKey.file($0.identity)) } }
            for output in outputs {
                let (key, status) = try examine(output)
                var replacesInput = false
                if let (input, _) = inputKeys.first(where: { $0.1 == key }) {
                    guard output.mayReplace == input.flag else {
                        throw OutputFileError("--\(output.flag) \(output.path) is the same file as --\(input.flag) \(input.path); "
                                              + "writing it would destroy the input")
                    }
                    replacesInput = true
                }
                if let other = seen.first(where: { $0.key == key }) {
                    throw OutputFileError("--\(other.flag) \(other.path) and --\(output.flag) \(output.path) are the same file")
                }
                seen.append((output.flag, output.path, key))
                try claim.lock(output, command: command)
                guard let status else { continue }
                switch output.mode {
                case .replace:
                    guard force || replacesInput else {
                        throw OutputFileError("--\(output.flag) \(output.path) already exists; add --force to replace it")
                    }
                case .append(let header):
                    guard status.size == 0 || firstLine(of: output.path, limit: header.utf8.count + 1) == header else {
                        throw OutputFileError("--\(output.flag) \(output.path) exists and is not a file this command appends to "
                                              + "(its first line is not '\(header)'); refusing to append to it")
                    }
                }
            }
        } catch {
            claim.release()
            throw error
        }
        return claim
    }

    /// Where a file is, whether or not it exists yet.
    enum FileKey: Equatable {
        /// An existing file.
        case file(FileIdentity)
        /// A name not yet taken, in a directory.
        case name(directory: FileIdentity, name: String)
    }

    /// The output's key, and its status if it exists; refuses what is not a regular file.
    static func examine(_ output: Output) throws(OutputFileError) -> (FileKey, FileStatus?) {
        if let status = FileStatus(path: output.path) {
            guard status.isRegularFile else {
                throw OutputFileError("--\(output.flag) \(output.path) is \(status.kindDescription), not a regular file; refusing to write to it")
            }
            return (.file(status.identity), status)
        }
        var link = stat()
        if lstat(output.path, &link) == 0 {
            throw OutputFileError("--\(output.flag) \(output.path) is a symbolic link to a missing file; refusing to write to it")
        }
        let (directory, name) = split(output.path)
        guard let parent = FileStatus(path: directory), parent.isDirectory else {
            throw OutputFileError("--\(output.flag) \(output.path): the directory \(directory) does not exist")
        }
        return (.name(directory: parent.identity, name: name), nil)
    }

    /// The directory and the last component of a path.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    /// Up to `limit` bytes of the file's first line, without the newline; `nil` if it cannot be read.
    static func firstLine(of path: String, limit: Int) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, limit) }
        guard count >= 0 else { return nil }
        return String(decoding: bytes[0..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

/// The locks a command holds on its outputs; released by ``release()`` or when it goes away.
final class OutputClaim {
    /// The lock files held, with their descriptors.
    private(set) var locks: [(path: String, descriptor: Int32)] = []

    deinit { release() }

    /// The lock file of an output: beside the file it names, after following symbolic links.
    static func lockPath(for path: String) -> String {
        var target = path
        if let real = realpath(path, nil) {
            target = String(cString: real)
            free(real)
        }
        return target + ".lock"
    }

    /// Takes the exclusive lock of `output`, at once or not at all.
    func lock(_ output: OutputFiles.Output, command: String) throws(OutputFileError) {
        let path = OutputClaim.lockPath(for: output.path)
        // A holder removes its lock file when done; whoever locked the removed file must retry on the new one.
        for _ in 0..<8 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
            guard descriptor >= 0 else {
                throw OutputFileError("--\(output.flag) \(output.path): cannot create the lock file \(path): \(String(cString: strerror(errno)))")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                let holder = OutputFiles.firstLine(of: path, limit: 100) ?? ""
                close(descriptor)
                guard code == EWOULDBLOCK else {
                    throw OutputFileError("--\(output.flag) \(output.path): cannot lock \(path): \(String(cString: strerror(code)))")
                }
                throw OutputFileError("--\(output.flag) \(output.path) is being written by another process"
                                      + (holder.isEmpty ? "" : " (\(holder))") + "; it holds the lock file \(path)")
            }
            let held = FileStatus(path: path).map(\.identity)
            var status = stat()
            if fstat(descriptor, &status) == 0, held == FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) {
                let note = Array("g2048 \(command), pid \(getpid())\n".utf8)
                _ = ftruncate(descriptor, 0)
                _ = note.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, 0) }
                locks.append((path, descriptor))
                return
            }
            close(descriptor)
        }
        throw OutputFileError("--\(output.flag) \(output.path): cannot lock \(path): it keeps being replaced")
    }

    /// Removes the lock files and releases the locks.
    func release() {
        for (path, descriptor) in locks {
            unlink(path)
            close(descriptor)
        }
        locks = []
    }
}

/// An output file the policy refuses: "--metrics w.bin is the same file as --resume w.bin; …".
struct OutputFileError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
