import Foundation
import GymSystem
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

    @Test func removesTheRetriedTemporaryFileOfAKilledSave() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("scores.json")
        let abandoned = path + ".tmp-4194305-3"
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data("half".utf8)))
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
    }

    /// A symbolic link planted under the temporary name while a command runs (the attack on a
    /// shared folder): the save must neither write through it nor move it into place.
    @Test func aLinkPlantedAtTheTemporaryNameIsNeverFollowed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("out.bin"), victim = directory.file("victim.txt")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = AtomicFile.temporaryPath(for: path)
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        try AtomicFile.write(Array("weights".utf8), to: path)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "weights")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: planted) == victim)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["out.bin", "out.bin.tmp-\(getpid())", "victim.txt"])
    }

    @Test func aSaveGivesUpWhenEveryTemporaryNameIsTaken() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("out.bin")
        for attempt in 0..<64 {
            #expect(FileManager.default.createFile(atPath: AtomicFile.temporaryPath(for: path, attempt: attempt), contents: Data()))
        }
        #expect(
            throws: FileError(
                "write", path, reason: "64 temporary names beside it (\(AtomicFile.temporaryPath(for: path)) and on) are taken")
        ) {
            try AtomicFile.write([1], to: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
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
