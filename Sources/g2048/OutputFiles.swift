import Game2048Network
import GymSystem

/// The one policy for every file a command writes (`--out`, `--metrics`, `--plot`, `--record`),
/// applied before any work starts: the pre-flight check of every command that writes.
///
///     let claim = try OutputFiles.claim(
///         [.init(flag: "out", path: out), .init(flag: "metrics", path: csv, mode: .append(header: TrainingMetrics.csvHeader))],
///         inputs: [.init(flag: "resume", path: resumed)], force: force, command: "train")
///     defer { claim.release() }
///
/// - An empty path is refused: it names no file.
/// - An output whose folder has not the room for it is refused: the room is what the file system has
///   free and what `ulimit -f` allows (`FileStatus.writableBytes(inFolder:)`), the size is the output's
///   ``Output/bytes`` (at least one byte, when it is not known before the work). A command that learns
///   the size later, before its work (train's weights), asks ``checkRoom(for:needing:)`` then.
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
///   A `<file>.lock` that is not a lock file of this program (a regular file with
///   other contents, a FIFO, a link) is refused and left exactly as it is.
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
        /// What else the user may want when the file exists, after "add --force to replace it" (`train`'s
        /// `--out`: "or --resume <file> to train it further"), or `nil`.
        var otherwise: String? = nil
        /// The bytes the command will write there, as far as it knows before its work (an estimate, or one byte).
        var bytes: Int = 1
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
                guard !output.path.isEmpty else { throw OutputFileError("--\(output.flag) is empty; give it the path of a file") }
                let (key, status) = try examine(output)
                try checkRoom(for: output, needing: output.bytes)
                var replacesInput = false
                if let (input, _) = inputKeys.first(where: { $0.1 == key }) {
                    guard output.mayReplace == input.flag else {
                        throw OutputFileError(
                            "--\(output.flag) \(output.path) is the same file as --\(input.flag) \(input.path); "
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
                        throw OutputFileError(
                            "--\(output.flag) \(output.path) already exists; add --force to replace it" + (output.otherwise.map { ", \($0)" } ?? ""))
                    }
                case .append(let header):
                    guard status.size == 0 || firstLine(of: output.path, limit: header.utf8.count + 1) == header else {
                        throw OutputFileError(
                            "--\(output.flag) \(output.path) exists and is not a file this command appends to "
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

    /// Refuses `output` when its folder has not the room for `bytes` more: the file system's free room, or
    /// `ulimit -f`, either of which would fail the write at the end of the work.
    static func checkRoom(for output: Output, needing bytes: Int) throws(OutputFileError) {
        guard let room = FileStatus.writableBytes(inFolder: SystemIO.parentDirectory(of: output.path)), room < bytes else { return }
        guard room > 0 else {
            throw OutputFileError("--\(output.flag) \(output.path): nothing can be written there (the file system is full, or ulimit -f is 0)")
        }
        throw OutputFileError(
            "--\(output.flag) \(output.path) needs \(byteSize(bytes)) and only \(byteSize(room)) can be written there (the file system's "
                + "free room, or ulimit -f); free some room or write it on another disk")
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
        if SystemIO.entryExists(output.path) {
            throw OutputFileError("--\(output.flag) \(output.path) is a symbolic link to a missing file; refusing to write to it")
        }
        let directory = SystemIO.parentDirectory(of: output.path)
        let name = String(output.path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        guard let parent = FileStatus(path: directory), parent.isDirectory else {
            throw OutputFileError("--\(output.flag) \(output.path): the directory \(directory) does not exist")
        }
        return (.name(directory: parent.identity, name: name), nil)
    }

    /// Up to `limit` bytes of the file's first line, without the newline; `nil` if it cannot be read.
    static func firstLine(of path: String, limit: Int) -> String? {
        guard let bytes = SystemIO.readPrefix(of: path, limit: limit) else { return nil }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

/// The locks a command holds on its outputs; released by ``release()`` or when it goes away.
final class OutputClaim {
    /// The lock files held, with their descriptors.
    private(set) var locks: [(path: String, descriptor: Int32)] = []

    deinit { release() }

    /// How a lock file's note starts: what makes a `.lock` file this program's to use and remove.
    static let signature = "g2048 "

    /// The lock file of an output: beside the file it names, after following symbolic links.
    static func lockPath(for path: String) -> String {
        (SystemIO.resolvedPath(path) ?? path) + ".lock"
    }

    /// Takes the exclusive lock of `output`, at once or not at all.
    func lock(_ output: OutputFiles.Output, command: String) throws(OutputFileError) {
        let path = OutputClaim.lockPath(for: output.path)
        // A holder removes its lock file when done; whoever locked the removed file must retry on the new one.
        for _ in 0..<8 {
            let locked: Int32?
            do throws(FileError) { locked = try SystemIO.lockWithoutWaiting(path) } catch {
                throw OutputFileError("--\(output.flag) \(output.path): \(error)")
            }
            guard let descriptor = locked else {
                let holder = OutputFiles.firstLine(of: path, limit: 100) ?? ""
                throw OutputFileError(
                    "--\(output.flag) \(output.path) is being written by another process"
                        + (holder.isEmpty ? "" : " (\(holder))") + "; it holds the lock file \(path)")
            }
            if let held = FileStatus(path: path)?.identity, held == FileStatus(descriptor: descriptor)?.identity {
                // Opening the name changed nothing in it; a file that is someone else's stays that way.
                let existing = SystemIO.readPrefix(of: path, limit: OutputClaim.signature.utf8.count) ?? []
                guard FileStatus(descriptor: descriptor)?.isRegularFile == true,
                    existing.isEmpty || existing.elementsEqual(OutputClaim.signature.utf8)
                else {
                    SystemIO.closeFile(descriptor)
                    throw OutputFileError(
                        "--\(output.flag) \(output.path): \(path) exists and is not a lock file of g2048; it is left "
                            + "as it is (move it away, or write the output elsewhere)")
                }
                SystemIO.overwrite(descriptor, with: Array("\(OutputClaim.signature)\(command), pid \(SystemProcess.id)\n".utf8))
                locks.append((path, descriptor))
                return
            }
            SystemIO.closeFile(descriptor)
        }
        throw OutputFileError("--\(output.flag) \(output.path): cannot lock \(path): it keeps being replaced")
    }

    /// What removes the lock files of this claim, for a process about to exit at once (a second signal): their
    /// locks go with the process, and a lock file left behind would only look like a run in progress.
    var lockRemoval: @Sendable () -> Void {
        let paths = locks.map(\.path)
        return { for path in paths { SystemIO.remove(path) } }
    }

    /// Removes the lock files and releases the locks.
    func release() {
        for (path, descriptor) in locks {
            SystemIO.remove(path)
            SystemIO.closeFile(descriptor)
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
