import Foundation
import Game2048
import GymJSON
import Testing
@testable import GymPlay
import TestSupport

/// Seeded mutations of valid record and best-score files: truncations at every line boundary and at
/// random offsets, bit flips, CRLF, deleted, duplicated and swapped lines, forged members, huge numbers
/// and wrong types. Every mutant must load to a precise one-line error or to a result that is right:
/// a record that replays exactly, a best-score table that saves and reloads.
///
/// `G2048_FUZZ_FILES=<n>` runs n mutations of each file instead of the default.
struct FileMutationTests {
    static let defaultCount = 1_000
    static var count: Int {
        ProcessInfo.processInfo.environment["G2048_FUZZ_FILES"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultCount
    }

    /// The kinds of damage done to a file.
    enum Mutation: CaseIterable {
        case truncate, flipBit, crlf, deleteLine, duplicateLine, swapLines, forgeMember, hugeNumber, wrongType
    }

    /// One seeded mutant of `bytes`.
    static func mutate(_ bytes: [UInt8], _ mutation: Mutation, rng: inout Xoshiro256StarStar) -> [UInt8] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        func joined(_ lines: [[UInt8]]) -> [UInt8] { lines.flatMap { $0 + [UInt8(ascii: "\n")] } }
        let line = rng.uniform(below: lines.count)
        switch mutation {
        case .truncate:
            return Array(bytes.prefix(rng.uniform(below: bytes.count)))
        case .flipBit:
            var copy = bytes
            copy[rng.uniform(below: copy.count)] ^= UInt8(1) << UInt8(rng.uniform(below: 8))
            return copy
        case .crlf:
            return bytes.flatMap { $0 == UInt8(ascii: "\n") ? [UInt8(ascii: "\r"), $0] : [$0] }
        case .deleteLine:
            lines.remove(at: line)
            return joined(lines)
        case .duplicateLine:
            lines.insert(lines[line], at: line)
            return joined(lines)
        case .swapLines:
            lines.swapAt(line, rng.uniform(below: lines.count))
            return joined(lines)
        case .forgeMember:
            // An extra member right after the opening brace of the line or of a nested object.
            let braces = lines[line].indices.filter { lines[line][$0] == UInt8(ascii: "{") }
            guard let brace = braces.isEmpty ? nil : braces[rng.uniform(below: braces.count)] else { return bytes }
            lines[line].insert(contentsOf: Array("\"forged_\(rng.uniform(below: 100))\":1,".utf8), at: brace + 1)
            return joined(lines)
        case .hugeNumber, .wrongType:
            // Replace one number (a run of digits) with something else.
            let digits = lines[line].indices.filter { lines[line][$0] >= UInt8(ascii: "0") && lines[line][$0] <= UInt8(ascii: "9") }
            guard !digits.isEmpty else { return bytes }
            var start = digits[rng.uniform(below: digits.count)], end = start
            while start > 0, isNumberByte(lines[line][start - 1]) { start -= 1 }
            while end < lines[line].count, isNumberByte(lines[line][end]) { end += 1 }
            let replacements =
                mutation == .hugeNumber
                ? ["99999999999999999999999999", "-99999999999999999999999999", "1e999", "-1e999", "1e-999", "18446744073709551616", "9223372036854775808"]
                : ["\"7\"", "true", "null", "[]", "{}", "0.5", "-1"]
            lines[line].replaceSubrange(start..<end, with: Array(replacements[rng.uniform(below: replacements.count)].utf8))
            return joined(lines)
        }
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+")
    }

    /// What a mutant record may give: a one-line error, or episodes that replay exactly and play the original moves.
    static func checkRecord(_ bytes: [UInt8], original: [EpisodeRecord], label: String) {
        let records: [EpisodeRecord]
        do {
            records = try EpisodeRecord.parse(bytes: bytes)
        } catch {
            #expect(!error.reason.isEmpty && !error.description.contains("\n") && !error.description.contains("\r"), "\(label): \(error)")
            return
        }
        for record in records {
            do {
                let frames = try EpisodeReplay.verify(record)
                // A record that verifies is a real game: its moves are one of the original episodes'
                // (or, in a version 1 record, which has no end line, the first of them: a cut it cannot detect).
                #expect(
                    original.contains { episode in
                        episode.header.seed == record.header.seed
                            && (record.isVersion1 ? episode.steps.starts(with: record.steps) : episode.steps == record.steps)
                    }, "\(label)")
                #expect(frames.count == record.steps.count + 1)
            } catch {
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(label): \(error)")
            }
        }
    }

    static let recordSources: [(name: String, records: [EpisodeRecord], bytes: [UInt8])] = {
        let game = PlayedGame(rows: 3, cols: 3, seed: 12, moves: 80, restartEvery: 30)
        let version2 = Array(game.records.map(\.jsonLines).joined().utf8)
        var old = game.records[0]
        old.header.version = 1
        old.end = nil
        return [("version 2", game.records, version2), ("version 1", [old], Array(old.jsonLines.utf8))]
    }()

    @Test func everyCutOfARecordAtALineBoundaryIsAnError() throws {
        let (_, records, bytes) = Self.recordSources[0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") && offset < bytes.count - 1 {
            #expect(throws: RecordError.self) { try EpisodeRecord.parse(bytes: Array(bytes[...offset])) }
        }
        #expect(try EpisodeRecord.parse(bytes: bytes) == records)
    }

    @Test(arguments: 0..<2)
    func seededRecordMutationsGiveAPreciseErrorOrAVerifiedReplay(source: Int) throws {
        let (name, records, bytes) = Self.recordSources[source]
        var rng = Xoshiro256StarStar(seed: 2048 + UInt64(source))
        let temporary = TemporaryDirectory()
        for index in 0..<Self.count {
            let mutation = Mutation.allCases[index % Mutation.allCases.count]
            let mutant = Self.mutate(bytes, mutation, rng: &rng)
            let label = "\(name), mutation \(index) (\(mutation))"
            Self.checkRecord(mutant, original: records, label: label)
            if mutation == .crlf { #expect(try EpisodeRecord.parse(bytes: mutant) == records, "\(label)") }
            if mutation == .forgeMember {
                #expect(throws: RecordError.self, "\(label)") { try EpisodeRecord.parse(bytes: mutant) }
            }
            if index % 100 == 0 {
                // Through a file too: the error names it.
                let path = temporary.path + "/mutant.jsonl"
                try Data(mutant).write(to: URL(fileURLWithPath: path))
                do { _ = try EpisodeRecord.load(from: path) } catch { #expect(error.description.hasPrefix(path + ": "), "\(label)") }
            }
        }
    }

    static let bestScoresFile = Array(
        (#"{"format":"gym2048-best-scores","version":1,"best":{"2x2":60,"3x3":612,"4x4":20316,"# + #""6x6-hard":{"score":9}},"theme":"dark"}"# + "\n").utf8)

    @Test func seededBestScoreMutationsGiveAOneLineProblemOrAUsableTable() throws {
        var rng = Xoshiro256StarStar(seed: 4096)
        let temporary = TemporaryDirectory()
        let path = temporary.path + "/" + BestScores.fileName
        for index in 0..<Self.count {
            let mutation = Mutation.allCases[index % Mutation.allCases.count]
            let mutant = Self.mutate(Self.bestScoresFile, mutation, rng: &rng)
            let label = "mutation \(index) (\(mutation))"
            try Data(mutant).write(to: URL(fileURLWithPath: path))
            let loaded = BestScores.load(directory: temporary.path)
            if let problem = loaded.problem {
                #expect(problem.hasPrefix("best-score file \(path) ") && !problem.contains("\n"), "\(label): \(problem)")
                #expect(loaded.scores.scores.isEmpty, "\(label)")
            } else {
                #expect(loaded.scores.scores.values.allSatisfy { $0 >= 0 }, "\(label)")
            }
            if mutation == .crlf || mutation == .forgeMember && loaded.problem == nil {
                #expect(loaded.scores.scores == ["2x2": 60, "3x3": 612, "4x4": 20316], "\(label)")
            }
            // Every table that loads can be saved, keeps what was there, and reloads cleanly.
            guard loaded.problem == nil || loaded.isCorrupted, index % 10 == 0 else { continue }
            var table = loaded.scores
            table.record(1, rows: 8, cols: 8)
            try table.save()
            let reloaded = BestScores.load(directory: temporary.path)
            #expect(reloaded.problem == nil, "\(label)")
            #expect(reloaded.scores.scores == table.scores, "\(label)")
            #expect(reloaded.scores.otherScores == loaded.scores.otherScores && reloaded.scores.otherMembers == loaded.scores.otherMembers, "\(label)")
        }
    }
}
