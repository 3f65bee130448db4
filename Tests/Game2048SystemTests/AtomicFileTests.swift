import Foundation
import Game2048System
import Testing
import TestSupport

struct AtomicFileTests {
    @Test func replacesTheFileAndLeavesNoTemporaryBehind() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("scores.json")
        try AtomicFile.write(Array("old".utf8), to: path)
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["scores.json"])
    }

    @Test func removesTheTemporaryFileOfAKilledSave() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("scores.json")
        // No process has pid 2^22 + 1 (above Linux's pid_max default), so its save was killed.
        let abandoned = path + ".tmp-4194305"
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data("half".utf8)))
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
    }

    @Test func refusesToReplaceADirectory() throws {
        let directory = TemporaryDirectory()
        let target = directory.file("folder")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        #expect(throws: FileError("write", target, reason: "it is a directory, not a regular file; a save only replaces regular files")) {
            try AtomicFile.write([1, 2, 3], to: target)
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}
