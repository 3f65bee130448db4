import Foundation
import Game2048
import Testing
import TestSupport

@testable import Game2048Learning

/// A solution file reads back as it was written; a damaged, cut or forged one is refused, naming what is wrong.
struct SolutionFileTests {
    @Test func aSavedSolutionLoadsIdentical() throws {
        let folder = TemporaryDirectory()
        let rules = try Rules(rows: 2, cols: 3, spawnFourProbability: 0.25)
        let solution = try OptimalSolver.solve(rules: rules)
        try solution.save(to: folder.file("s.bin"))
        let loaded = try Solution.load(from: folder.file("s.bin"))
        #expect(loaded.rules == rules && loaded.layers == solution.layers && loaded.expectedScore == solution.expectedScore)
    }

    @Test func damagedAndForgedFilesAreRefused() throws {
        let folder = TemporaryDirectory()
        let path = folder.file("s.bin")
        try OptimalSolver.solve(rules: Rules(rows: 2, cols: 2)).save(to: path)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func refusal(_ bytes: [UInt8]) -> String? {
            try? Data(bytes).write(to: URL(fileURLWithPath: path))
            do throws(SolutionFileError) { _ = try Solution.load(from: path) } catch { return error.description }
            return nil
        }
        #expect(refusal(good) == nil)
        var flipped = good
        flipped[good.count / 2] ^= 0x10
        #expect(refusal(flipped) == "\(path) is damaged: its checksum does not match its contents")
        #expect(refusal(Array(good.dropLast(9)))?.contains("it was cut short or added to") == true)
        #expect(refusal(Array("not a solution".utf8)) == "\(path) is not a solution file (written by 'g2048 solve')")
        var version = good
        version[8] = 9
        #expect(refusal(version) == "\(path) is a solution file of format version 9; this build reads version 1")
        #expect(refusal([]) == "\(path) is not a solution file (written by 'g2048 solve')")
        // Forged: keys out of order, with a checksum made to match.
        var forged = Array(good.dropLast(8))
        let keysStart = Solution.headerSize + 8 * Int(forged[Solution.headerSize - 4])
        let firstLayer = try #require(
            (0..<Int(forged[Solution.headerSize - 4])).first { index in
                forged[Solution.headerSize + 8 * index] >= 2
            })
        var offset = keysStart
        for layer in 0..<firstLayer { offset += 16 * Int(forged[Solution.headerSize + 8 * layer]) }
        forged.replaceSubrange(offset..<(offset + 16), with: Array(forged[(offset + 8)..<(offset + 16)] + forged[offset..<(offset + 8)]))
        var sum = WeightsFile.checksum(of: forged)
        forged += withUnsafeBytes(of: &sum) { Array($0) }
        #expect(refusal(forged)?.contains("are not in ascending order") == true)
    }
}
