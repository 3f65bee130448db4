import Foundation
import Game2048Training
import GymSystem
import Testing
@testable import g2048
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output policy of train and play: no silent overwrite, no writing over an input or a
/// non-regular file, and one writer per file.
struct OutputFilesTests {
    /// A scratch folder, removed at the end (the play tests' own).
    typealias Folder = PlayCommandTests.Scratch

    static func refusal(_ outputs: [OutputFiles.Output], inputs: [OutputFiles.Input] = [], force: Bool = false) -> String? {
        do {
            try OutputFiles.claim(outputs, inputs: inputs, force: force, command: "test").release()
            return nil
        } catch {
            return error.message
        }
    }

    @Test func existingFileIsReplacedOnlyWithForce() throws {
        let folder = Folder()
        let out = folder.file("w.bin", contents: "old")
        #expect(Self.refusal([.init(flag: "out", path: out)]) == "--out \(out) already exists; add --force to replace it")
        #expect(Self.refusal([.init(flag: "out", path: out)], force: true) == nil)
        #expect(Self.refusal([.init(flag: "out", path: folder.file("new.bin"))]) == nil)
        #expect(folder.names == ["w.bin"])  // no lock file left behind
    }

    @Test func nonRegularFilesAreRefusedEvenWithForce() throws {
        let folder = Folder()
        let fifo = folder.file("fifo")
        try #require(mkfifo(fifo, 0o644) == 0)
        let cases = [
            (fifo, "a FIFO"), (folder.path, "a directory"), ("/dev/null", "a character device"),
        ]
        for (path, kind) in cases {
            #expect(
                Self.refusal([.init(flag: "record", path: path)], force: true)
                    == "--record \(path) is \(kind), not a regular file; refusing to write to it")
        }
        let dangling = folder.file("dangling")
        try #require(symlink("missing", dangling) == 0)
        #expect(
            Self.refusal([.init(flag: "plot", path: dangling)], force: true)
                == "--plot \(dangling) is a symbolic link to a missing file; refusing to write to it")
    }

    @Test func anOutputThatIsAnInputIsRefusedHoweverItIsSpelled() throws {
        let folder = Folder()
        let weights = folder.file("w.bin", contents: "weights")
        let link = folder.file("link.bin")
        try #require(symlink("w.bin", link) == 0)
        let spelled = folder.path + "/./w.bin"
        for path in [weights, spelled, link] {
            #expect(
                Self.refusal(
                    [.init(flag: "metrics", path: path, mode: .append(header: "games"))],
                    inputs: [.init(flag: "resume", path: weights)], force: true)
                    == "--metrics \(path) is the same file as --resume \(weights); writing it would destroy the input")
        }
        // Writing the weights back over the file a run resumed from is what resuming means.
        #expect(Self.refusal([.init(flag: "out", path: link, mayReplace: "resume")], inputs: [.init(flag: "resume", path: weights)]) == nil)
        #expect(try String(contentsOfFile: weights, encoding: .utf8) == "weights")
    }

    @Test func twoOutputsNamingOneFileAreRefused() throws {
        let folder = Folder()
        let a = folder.file("curve"), b = folder.path + "/../" + URL(fileURLWithPath: folder.path).lastPathComponent + "/curve"
        #expect(
            Self.refusal([.init(flag: "metrics", path: a), .init(flag: "plot", path: b)])
                == "--metrics \(a) and --plot \(b) are the same file")
        #expect(folder.names.isEmpty)
    }

    @Test func appendingNeedsAFileOfTheRightKind() throws {
        let folder = Folder()
        let header = TrainingMetrics.csvHeader
        let csv = folder.file("curve.csv", contents: header + "\n1000,1,1,1,1,0,0,0,0,0\n")
        let other = folder.file("other.bin", contents: "G2048NT\u{1A}binary")
        #expect(Self.refusal([.init(flag: "metrics", path: csv, mode: .append(header: header))]) == nil)
        #expect(Self.refusal([.init(flag: "metrics", path: folder.file("empty.csv", contents: ""), mode: .append(header: header))]) == nil)
        #expect(
            Self.refusal([.init(flag: "metrics", path: other, mode: .append(header: header))], force: true)
                == "--metrics \(other) exists and is not a file this command appends to (its first line is not '\(header)'); refusing to append to it")
    }

    @Test func aSecondWriterOfTheSameFileStopsAtOnce() throws {
        let folder = Folder()
        let out = folder.file("w.bin")
        let first = try OutputFiles.claim([.init(flag: "out", path: out)], inputs: [], force: false, command: "train")
        let lock = OutputClaim.lockPath(for: out)
        #expect(
            Self.refusal([.init(flag: "out", path: out)])
                == "--out \(out) is being written by another process (g2048 train, pid \(getpid())); it holds the lock file \(lock)")
        // The binary, as a second trainer would run it.
        let second = try G2048Tests.run(["train", "--rows", "2", "--games", "1", "--out", out])
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("error: --out \(out) is being written by another process (g2048 train, pid \(getpid()))"))
        first.release()
        #expect(folder.names.isEmpty)
        #expect(Self.refusal([.init(flag: "out", path: out)]) == nil)
    }

    /// `echo notes > notes.lock; g2048 train --out notes`: a file of the user's that happens to
    /// have a lock file's name is neither truncated, nor written, nor removed; nor is a FIFO.
    @Test func aUsersFileNamedLikeTheLockIsLeftAlone() throws {
        let folder = Folder()
        let out = folder.file("notes")
        let notes = folder.file("notes.lock", contents: "my notes\n")
        let expected =
            "--out \(out): \(notes) exists and is not a lock file of g2048; it is left as it is (move it away, or write the output elsewhere)"
        #expect(Self.refusal([.init(flag: "out", path: out)]) == expected)
        let train = try G2048Tests.run(["train", "--rows", "2", "--games", "5", "--out", out])
        #expect(train.status == 1)
        #expect(train.stderr == "error: \(expected)\n")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
        #expect(folder.names == ["notes.lock"])
        #expect(unlink(notes) == 0)
        #expect(mkfifo(notes, 0o644) == 0)
        #expect(Self.refusal([.init(flag: "out", path: out)]) == expected)
        #expect(FileStatus(path: notes)?.kindDescription == "a FIFO")
        // An empty file, or one a killed g2048 left, is a lock file to use (and remove).
        #expect(unlink(notes) == 0)
        _ = folder.file("notes.lock", contents: "g2048 train, pid 4194305\n")
        let claim = try OutputFiles.claim([.init(flag: "out", path: out)], inputs: [], force: false, command: "train")
        claim.release()
        #expect(folder.names.isEmpty)
    }

    /// Runs the binary through sh with writes limited to 0 bytes (`ulimit -f 0`, SIGXFSZ ignored), as
    /// on a full disk: every write to a file fails with EFBIG.
    static func runOnAFullDisk(_ arguments: [String], input: String, in folder: Folder, blocks: Int = 0) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(blocks); exec \"$@\"", "sh", G2048Tests.executable.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": folder.path]) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let err = Pipe(), inPipe = Pipe()
        process.standardError = err
        process.standardInput = inPipe
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try inPipe.fileHandleForWriting.close()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// `play --record` and `train --metrics` on a full disk left a 0-byte file, which then blocked
    /// the next run (it exists: --force). A failed write removes the file the run created.
    @Test func aWriteThatFailsRemovesTheFileItCreated() throws {
        let folder = Folder()
        // 512 bytes of file size: the record's header is written, its third step is not.
        let moves = String(repeating: "up\nleft\ndown\nright\n", count: 2)
        let play = try Self.runOnAFullDisk(["play", "--seed", "1", "--record", "r.jsonl"], input: moves, in: folder, blocks: 1)
        #expect(play.status == 1)
        #expect(play.stderr.contains("error: cannot write r.jsonl: File too large"), "\(play.stderr)")
        let train = try Self.runOnAFullDisk(
            ["train", "--rows", "2", "--games", "5", "--metrics", "m.csv", "--out", "w.bin"], input: "", in: folder)
        #expect(train.status == 1)
        #expect(train.stderr.contains("error: --out w.bin: nothing can be written there"), "\(train.stderr)")
        #expect(!folder.names.contains("r.jsonl") && !folder.names.contains("m.csv") && !folder.names.contains("w.bin"), "\(folder.names)")
        // A record that existed (replaced with --force) is the user's to look at: not removed.
        _ = folder.file("kept.jsonl", contents: "")
        let forced = try Self.runOnAFullDisk(["play", "--seed", "1", "--record", "kept.jsonl", "--force"], input: moves, in: folder, blocks: 1)
        #expect(forced.status == 1)
        #expect(folder.names.contains("kept.jsonl"))
    }

    // MARK: The pre-flight check of every command that writes

    /// `train --out ""` trained the whole run, then suggested `--resume … --out ` with the empty path; `solve --out ""`
    /// solved first. An empty path is refused before any work, by every command that writes.
    @Test(arguments: [
        (["train", "--rows", "2", "--games", "10", "--out", ""], "--out"), (["solve", "--rows", "2", "--out", ""], "--out"),
        (["train", "--rows", "2", "--games", "10", "--out", "OUT", "--metrics", ""], "--metrics"),
        (["play", "--agent", "random", "--rows", "2", "--seed", "1", "--record", ""], "--record"),
        (["play", "--game", "memorize", "--agent", "random", "--rows", "2", "--cols", "2", "--record", ""], "--record"),
    ])
    func anEmptyOutputPathIsRefusedBeforeTheWork(arguments: [String], flag: String) throws {
        let folder = Folder()
        let result = try PlayCommandTests.run(arguments.map { $0 == "OUT" ? folder.file("w.bin") : $0 }, scratch: folder)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "error: \(flag) is empty; give it the path of a file\n")
        #expect(folder.names.isEmpty)
    }

    /// `solve` did not check the room for `--out` (a full disk, `ulimit -f`) before solving: the work was lost at
    /// the write. The solution's size is estimated before the work, and a place without room for it is refused.
    @Test func solveChecksTheRoomForItsSolutionBeforeSolving() throws {
        let folder = Folder()
        // 50 KiB of file size (sh counts 512-byte blocks): a 2x3 solution is 233 KiB.
        let (status, stderr) = try Self.runOnAFullDisk(["solve", "--rows", "2", "--cols", "3", "--out", "s.bin"], input: "", in: folder, blocks: 100)
        #expect(status == 1, "\(stderr)")
        #expect(
            stderr == "error: --out s.bin needs 233 KiB and only 50 KiB can be written there (the file system's free room, or ulimit -f); "
                + "free some room or write it on another disk\n")
        #expect(folder.names.isEmpty)
        // Nothing at all can be written: refused whatever the size.
        let play = try Self.runOnAFullDisk(["play", "--seed", "1", "--record", "r.jsonl"], input: "up\n", in: folder)
        #expect(play.status == 1)
        #expect(play.stderr == "error: --record r.jsonl: nothing can be written there (the file system is full, or ulimit -f is 0)\n")
        #expect(folder.names.isEmpty)
    }

    // MARK: The commands

    /// The README's `train` line run twice stopped with only "add --force": the message also offers the other
    /// wish, training the same file further, and that command works.
    @Test func runningTheSameTrainLineAgainSaysHowToTrainFurther() throws {
        let folder = Folder()
        let weights = folder.file("weights.bin")
        let line = ["train", "--rows", "2", "--games", "10", "--out", weights]
        #expect(try G2048Tests.run(line).status == 0)
        let again = try G2048Tests.run(line)
        #expect(again.status == 1)
        #expect(again.stderr == "error: --out \(weights) already exists; add --force to replace it, or --resume \(weights) to train it further\n")
        let further = try G2048Tests.run(["train", "--games", "20", "--resume", weights])
        #expect(further.status == 0, "\(further.stderr)")
    }

    @Test func trainRefusesToTruncateOrCorruptItsFiles() throws {
        let folder = Folder()
        let weights = folder.file("w.bin"), csv = folder.file("curve.csv", contents: "my notes\n")
        let fresh = try G2048Tests.run(["train", "--rows", "2", "--games", "20", "--out", weights, "--metrics", csv])
        #expect(fresh.status == 1)
        #expect(fresh.stderr == "error: --metrics \(csv) already exists; add --force to replace it\n")
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "my notes\n")
        #expect(!FileManager.default.fileExists(atPath: weights))

        // The table learned from games, so that every game draws the curve (a sweep ends the run after the network's).
        let forced = try G2048Tests.run([
            "train", "--rows", "2", "--games", "20", "--out", weights, "--metrics", csv, "--metrics-every", "10", "--force", "--table-learning",
            "games",
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: weights))
        let intoWeights = try G2048Tests.run(["train", "--rows", "2", "--games", "40", "--resume", weights, "--out", weights, "--metrics", weights])
        #expect(intoWeights.status == 1)
        #expect(intoWeights.stderr == "error: --metrics \(weights) is the same file as --resume \(weights); writing it would destroy the input\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: weights)) == before)

        // Resuming writes back to the resumed file and continues its curve, without --force.
        let resumed = try G2048Tests.run([
            "train", "--rows", "2", "--games", "40", "--resume", weights, "--out", weights, "--metrics", csv, "--metrics-every", "10",
            "--table-learning", "games",
        ])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").count == 5)
        #expect(folder.names == ["curve.csv", "w.bin"])
    }

    @Test func playDoesNotOverwriteARecordWithoutForce() throws {
        let folder = Folder()
        let record = folder.file("game.jsonl", contents: "an earlier game\n")
        let arguments = ["play", "--agent", "random", "--seed", "1", "--rows", "2", "--cols", "2", "--record", record]
        let refused = try G2048Tests.run(arguments, input: "")
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: --record \(record) already exists; add --force to replace it\n")
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "an earlier game\n")
        let forced = try PlayCommandTests.run(arguments + ["--force"], scratch: PlayCommandTests.Scratch())
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: record, encoding: .utf8).hasPrefix("{"))
    }
}

extension PlayCommandTests.Scratch {
    /// `name` in the folder, created with `contents` if given.
    func file(_ name: String, contents: String? = nil) -> String {
        let file = path + "/" + name
        if let contents { _ = FileManager.default.createFile(atPath: file, contents: Data(contents.utf8)) }
        return file
    }

    /// The names in the folder, sorted.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
