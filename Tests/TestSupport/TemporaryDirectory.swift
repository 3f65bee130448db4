#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory in `$TMPDIR` (else /tmp) for one test, removed with everything in it when the
/// value goes away, even where the test made parts of it read-only.
///
/// The one scratch folder of every test target: `Tests/run-all.sh` runs the tests with their own
/// `$TMPDIR` and fails if anything is left in it.
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    /// Makes the directory (`mkdtemp`); a test cannot go on without it, so a failure stops the run.
    public init() {
        let parent = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(parent)/gym2048-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { removeTree(path) }

    /// `name` inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// The names in the directory, sorted.
    public var names: [String] { listDirectory(path) }

    /// The names in the directory's subdirectory `name`, sorted.
    public func names(in name: String) -> [String] { listDirectory(file(name)) }
}

/// The names in the directory at `path` (not `.` and `..`), sorted; none when it cannot be opened.
public func listDirectory(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Removes `path` and, for a directory, everything in it, making each directory writable first.
func removeTree(_ path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR {
        chmod(path, 0o755)
        for name in listDirectory(path) { removeTree("\(path)/\(name)") }
        rmdir(path)
    } else {
        unlink(path)
    }
}
