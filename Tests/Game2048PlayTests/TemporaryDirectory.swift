import Foundation

/// A fresh temporary directory, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("g2048-play-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func contents(of name: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path + "/" + name).sorted()
    }
}
