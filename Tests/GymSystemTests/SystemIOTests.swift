import Foundation
import GymSystem
import Testing
import TestSupport

struct SystemIOTests {
    @Test func readFileReadsEveryByte() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("data")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(try SystemIO.readFile(path) == bytes)
        #expect(throws: FileError("read", path, reason: "File too large")) { try SystemIO.readFile(path, limit: 1000) }
    }

    @Test func readFileRefusesAFIFOWithoutWaitingForAWriter() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fifo")
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: FileError("open", path, reason: "not a regular file (it is a FIFO)")) { try SystemIO.readFile(path) }
    }

    @Test func readFileIfPresentIsNilOnlyWhenNothingIsThere() throws {
        let directory = TemporaryDirectory()
        #expect(try SystemIO.readFileIfPresent(directory.file("absent")) == nil)
        #expect(throws: FileError("open", directory.path, reason: "Is a directory")) { try SystemIO.readFileIfPresent(directory.path) }
    }

    @Test func writeAllReportsTheErrnoOfAFailedWrite() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(SystemIO.writeAll(descriptor, "x") == ENOSPC)
    }
}
