import Foundation
import Game2048
import GymPlay
import GymSystem
import Testing
import TestSupport

struct EpisodeRecorderTests {
    @Test func recorderWritesWhatParseReadsBack() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/game.jsonl"
        let game = PlayedGame(seed: 3, moves: 90, restartEvery: 50)
        let recorder = try EpisodeRecorder<Game2048Episodes>(path: path)
        for record in game.records {
            try recorder.begin(record.header)
            for step in record.steps { try recorder.append(step) }
            if record.end?.outcome == .gameOver { recorder.gameOver() }
        }
        try recorder.finish()
        recorder.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == game.records.map(\.jsonLines).joined())
        #expect(try EpisodeRecord.parse(text) == game.records)
    }

    @Test func unwritablePathThrowsAOneLineError() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/missing/game.jsonl"
        #expect(throws: FileError.self) { try EpisodeRecorder<Game2048Episodes>(path: path) }
        do { _ = try EpisodeRecorder<Game2048Episodes>(path: path) } catch {
            #expect(error.description == "cannot write \(path): No such file or directory")
        }
    }

    /// A record that stops between lines (the program was killed) must not pass for complete.
    @Test func aRecordLeftWithoutFinishReadsAsTruncated() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/game.jsonl"
        let game = PlayedGame(seed: 3, moves: 20)
        let recorder = try EpisodeRecorder<Game2048Episodes>(path: path)
        try recorder.begin(game.records[0].header)
        for step in game.records[0].steps { try recorder.append(step) }
        recorder.close()
        let steps = game.records[0].steps.count
        #expect(throws: RecordError(line: steps + 1, "truncated record: episode 1 has no end line (the file ends after step \(steps))", file: path)) {
            try EpisodeRecord.load(from: path)
        }
    }
}
