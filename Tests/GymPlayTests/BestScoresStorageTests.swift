import Foundation
import Game2048
import GymSystem
import Synchronization
import Testing
@testable import GymPlay
import TestSupport

struct BestScoresStorageTests {
    @Test func saveThenLoadRoundTripsEverySize() throws {
        let temporary = TemporaryDirectory()
        let directory = temporary.path + "/nested/gym2048"
        var best = BestScores(directory: directory)
        best.record(20_316, rows: 4, cols: 4)
        best.record(612, rows: 3, cols: 3)
        best.record(1, rows: 2, cols: 8)
        try best.save()
        let loaded = BestScores.load(directory: directory)
        #expect(loaded.problem == nil)
        #expect(loaded.scores.scores == ["4x4": 20_316, "3x3": 612, "2x8": 1])
        let text = try String(contentsOfFile: directory + "/best-scores.json", encoding: .utf8)
        #expect(text == #"{"format":"gym2048-best-scores","version":1,"best":{"2x8":1,"3x3":612,"4x4":20316}}"# + "\n")
    }

    @Test func saveRemovesTheTemporaryFileOfAKilledSave() throws {
        let temporary = TemporaryDirectory()
        var best = BestScores(directory: temporary.path)
        best.record(612, rows: 3, cols: 3)
        // A save killed between writing its temporary file and the rename; pid 2^22 + 1 is above pid_max.
        let abandoned = temporary.path + "/best-scores.json.tmp-4194305"
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data("{\"half".utf8)))
        try best.save()
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(BestScores.load(directory: temporary.path).scores.scores == ["3x3": 612])
    }

    @Test func saveRefusesToReplaceADirectoryAtTheFilesPath() throws {
        let temporary = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: temporary.path + "/best-scores.json", withIntermediateDirectories: false)
        var best = BestScores(directory: temporary.path)
        best.record(612, rows: 3, cols: 3)
        #expect(throws: (any Error).self) { try best.save() }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: temporary.path + "/best-scores.json", isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test func missingFileIsEmptyAndNoProblem() throws {
        let temporary = TemporaryDirectory()
        let loaded = BestScores.load(directory: temporary.path + "/absent")
        #expect(loaded.problem == nil)
        #expect(loaded.scores.scores.isEmpty)
    }

    @Test(arguments: [
        "not json at all",
        "",
        #"{"format":"gym2048-best-scores","version":1,"best":{"4x4":"many"}}"#,
        #"{"format":"gym2048-best-scores","version":1,"best":{"4x4":-3}}"#,
        #"{"format":"gym2048-best-scores","version":1,"best":{"4x4":1,"4x4":2}}"#,
        #"{"format":"gym2048-best-scores","version":1,"best":[1,2]}"#,
        #"{"format":"something-else","version":1,"best":{}}"#,
        #"{"format":"gym2048-best-scores","version":0,"best":{}}"#,
        #"{"format":"gym2048-best-scores","version":1,"best":{"4x4":12"#,
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ])
    func corruptedFileIsReportedInOneLineAndReplacedOnSave(contents: String) throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/best-scores.json"
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = BestScores.load(directory: temporary.path)
        let problem = try #require(loaded.problem)
        #expect(problem.hasPrefix("best-score file \(path) is corrupted ("))
        #expect(problem.hasSuffix("); starting a new one (the old file is kept as \(path).corrupted)"))
        #expect(!problem.contains("\n"))
        #expect(loaded.scores.scores.isEmpty)
        var scores = loaded.scores
        scores.record(8, rows: 2, cols: 2)
        try scores.save()
        let reloaded = BestScores.load(directory: temporary.path)
        #expect(reloaded.problem == nil)
        #expect(reloaded.scores.scores == ["2x2": 8])
        // The corrupted file is not destroyed: it is kept beside the new one.
        #expect(try String(contentsOfFile: path + ".corrupted", encoding: .utf8) == contents)
    }

    /// `play` froze, without a word, while another process held the lock: a save now waits a
    /// bounded time, then saves without the lock and says so; the score is not lost.
    @Test func aHeldLockDelaysASaveOnlyBriefly() throws {
        let temporary = TemporaryDirectory()
        var scores = BestScores.load(directory: temporary.path).scores
        scores.record(64, rows: 3, cols: 3)
        try scores.save()
        let holder = try #require(try SystemIO.lockWithoutWaiting(temporary.path + "/best-scores.json.lock"))
        scores.record(128, rows: 3, cols: 3)
        let start = SystemClock.monotonicSeconds()
        let note = try scores.save(lockWait: 0.2)
        #expect(SystemClock.monotonicSeconds() - start < 2)
        #expect(note == "another process held \(temporary.path)/best-scores.json.lock for 0.2 s; best scores saved without it")
        #expect(BestScores.load(directory: temporary.path).scores.scores == ["3x3": 128])
        SystemIO.closeFile(holder)
        scores.record(256, rows: 3, cols: 3)
        #expect(try scores.save(lockWait: 0.2) == nil)
    }

    /// A second corruption once replaced the first set-aside copy.
    @Test func everyCorruptedCopyIsKept() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/best-scores.json"
        for (round, contents) in ["first {", "second [", "third ]"].enumerated() {
            try contents.write(toFile: path, atomically: false, encoding: .utf8)
            let loaded = BestScores.load(directory: temporary.path)
            let copy = path + ".corrupted" + (round == 0 ? "" : "-\(round + 1)")
            #expect(loaded.problem?.hasSuffix("(the old file is kept as \(copy))") == true)
            var scores = loaded.scores
            scores.record(4 << round, rows: 2, cols: 2)
            try scores.save()
        }
        #expect(try String(contentsOfFile: path + ".corrupted", encoding: .utf8) == "first {")
        #expect(try String(contentsOfFile: path + ".corrupted-2", encoding: .utf8) == "second [")
        #expect(try String(contentsOfFile: path + ".corrupted-3", encoding: .utf8) == "third ]")
        #expect(BestScores.load(directory: temporary.path).scores.scores == ["2x2": 16])
    }

    @Test func invalidUTF8IsCorruptionNotACrash() throws {
        let temporary = TemporaryDirectory()
        try Data([0xFF, 0xFE, 0x00, 0x7B]).write(to: URL(fileURLWithPath: temporary.path + "/best-scores.json"))
        let loaded = BestScores.load(directory: temporary.path)
        #expect(loaded.problem?.contains("not UTF-8 text") == true)
    }

    @Test func atomicSaveLeavesNoTemporaryFile() throws {
        let temporary = TemporaryDirectory()
        var best = BestScores(directory: temporary.path)
        for score in [10, 20, 30] as [Int64] {
            best.record(score, rows: 4, cols: 4)
            try best.save()
        }
        #expect(temporary.names == ["best-scores.json", "best-scores.json.lock"])
    }

    @Test func saveKeepsBetterScoresSavedByAnotherGame() throws {
        let temporary = TemporaryDirectory()
        var first = BestScores.load(directory: temporary.path).scores
        var second = BestScores.load(directory: temporary.path).scores
        first.record(500, rows: 4, cols: 4)
        try first.save()
        second.record(300, rows: 4, cols: 4)
        second.record(40, rows: 3, cols: 3)
        try second.save()
        #expect(BestScores.load(directory: temporary.path).scores.scores == ["4x4": 500, "3x3": 40])
    }

    @Test func unwritableDirectoryThrowsAOneLineError() throws {
        let temporary = TemporaryDirectory()
        // A regular file where the directory should be.
        try "x".write(toFile: temporary.path + "/file", atomically: false, encoding: .utf8)
        var best = BestScores(directory: temporary.path + "/file/gym2048")
        best.record(1, rows: 4, cols: 4)
        #expect(throws: BestScores.SaveError.self) { try best.save() }
        do { try best.save() } catch { #expect(error.description.hasPrefix("cannot create directory \(temporary.path)/file/gym2048: ")) }
    }

    @Test func defaultDirectoryFollowsXDGThenHome() {
        #expect(BestScores.defaultDirectory(environment: ["XDG_DATA_HOME": "/data/", "HOME": "/home/me"]) == "/data/gym2048")
        #expect(BestScores.defaultDirectory(environment: ["HOME": "/home/me"]) == "/home/me/.local/share/gym2048")
        // The XDG specification says to ignore a relative or empty path.
        #expect(BestScores.defaultDirectory(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/me"]) == "/home/me/.local/share/gym2048")
        #expect(BestScores.defaultDirectory(environment: ["XDG_DATA_HOME": "", "HOME": "/h"]) == "/h/.local/share/gym2048")
        #expect(BestScores.defaultDirectory(environment: [:]) == nil)
    }

    /// A valid file with members this version does not know was once called corrupted and rewritten empty.
    @Test func unknownMembersAreKeptThroughASave() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/best-scores.json"
        try #"{"format":"gym2048-best-scores","version":1,"best":{"4x4":100,"5x5-hard":{"score":7}},"theme":"dark"}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = BestScores.load(directory: temporary.path)
        #expect(loaded.problem == nil && !loaded.isCorrupted)
        #expect(loaded.scores.scores == ["4x4": 100])
        var best = loaded.scores
        best.record(200, rows: 3, cols: 3)
        try best.save()
        #expect(
            try String(contentsOfFile: path, encoding: .utf8)
                == #"{"format":"gym2048-best-scores","version":1,"best":{"3x3":200,"4x4":100,"5x5-hard":{"score":7}},"theme":"dark"}"# + "\n")
        // A table that never read the file keeps them too: the save merges what is on disk.
        var other = BestScores(directory: temporary.path)
        other.record(5, rows: 2, cols: 2)
        try other.save()
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(#""5x5-hard":{"score":7}},"theme":"dark"}"#))
    }

    /// Found by the file-mutation test: an unknown number too large for a double was written back as null.
    @Test func anUnknownHugeNumberIsWrittenBackAsANumber() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/best-scores.json"
        try #"{"format":"gym2048-best-scores","version":1,"best":{"x":[1e999,-1e999]},"y":1e999}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        var best = BestScores.load(directory: temporary.path).scores
        best.record(3, rows: 2, cols: 2)
        try best.save()
        #expect(
            try String(contentsOfFile: path, encoding: .utf8)
                == #"{"format":"gym2048-best-scores","version":1,"best":{"2x2":3,"x":[1e999,-1e999]},"y":1e999}"# + "\n")
    }

    @Test func aNewerVersionIsReportedAndLeftAlone() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/best-scores.json"
        let contents = #"{"format":"gym2048-best-scores","version":7,"best":{"4x4":"whatever"}}"#
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = BestScores.load(directory: temporary.path)
        #expect(!loaded.isCorrupted)
        #expect(
            loaded.problem == "best-score file \(path) was written by a newer g2048 (version 7; this one reads version 1); "
                + "best scores will not be saved to it")
        var best = loaded.scores
        best.record(4, rows: 2, cols: 2)
        #expect(throws: BestScores.SaveError.self) { try best.save() }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    }

    /// Two `g2048 play` saving at once once lost one size's entry (44 runs in 100): each save now
    /// merges under a lock. Many writers, each with its own sizes, save concurrently; no entry is lost.
    @Test func concurrentWritersLoseNoEntry() throws {
        let temporary = TemporaryDirectory()
        let directory = temporary.path
        let sizes = Rules.sizeRange.flatMap { rows in Rules.sizeRange.map { (rows, $0) } }  // 49 sizes
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: sizes.count) { index in
            let (rows, cols) = sizes[index]
            for round in 1...3 {
                var best = BestScores(directory: directory)
                best.record(Int64(index * 10 + round), rows: rows, cols: cols)
                do { try best.save() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let loaded = BestScores.load(directory: temporary.path)
        #expect(loaded.problem == nil)
        let expected = Dictionary(uniqueKeysWithValues: sizes.enumerated().map { ("\($1.0)x\($1.1)", Int64($0 * 10 + 3)) })
        #expect(loaded.scores.scores == expected)
    }
}
