import Foundation
import Game2048
import Testing
import TestSupport

@testable import Game2048Network
@testable import Game2048Solver

/// A solution file reads back as it was written; a damaged, cut or forged one is refused, naming what is wrong.
struct SolutionFileTests {
    @Test func aSavedSolutionLoadsIdentical() throws {
        let folder = TemporaryDirectory()
        let rules = try Rules(rows: 2, cols: 3, spawnFourProbability: 0.25)
        let solution = try OptimalSolver.solve(rules: rules)
        try solution.save(to: folder.file("s.bin"))
        let loaded = try Solution.load(from: folder.file("s.bin"))
        #expect(loaded.rules == rules && loaded.layers == solution.layers && loaded.expectedScore == solution.expectedScore)
        // A win tile and the win objective are kept too.
        let winning = try Rules(rows: 2, cols: 2, winTile: 16)
        try OptimalSolver.solve(rules: winning, objective: .win).save(to: folder.file("w.bin"))
        let win = try Solution.load(from: folder.file("w.bin"))
        #expect(win.rules == winning && win.objective == .win && win.expectedScore > 0.5 && win.expectedScore <= 1)
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
        #expect(refusal(version) == "\(path) is a solution file of format version 9; this build reads version \(Solution.formatVersion)")
        #expect(refusal([]) == "\(path) is not a solution file (written by 'g2048 solve')")
        // Forged, each with a checksum made to match.
        func sealed(_ bytes: [UInt8]) -> [UInt8] {
            var sum = WeightsFile.checksum(of: bytes)
            return bytes + withUnsafeBytes(of: &sum) { Array($0) }
        }
        let body = Array(good.dropLast(8))
        let layerCount = Int(body[Solution.headerSize - 4])
        let counts = (0..<layerCount).map { Int(body[Solution.headerSize + 8 * $0]) }
        // The offset of the keys of the first layer of at least two keys.
        let firstLayer = try #require(counts.firstIndex { $0 >= 2 })
        let offset = Solution.headerSize + 8 * layerCount + counts[..<firstLayer].reduce(0) { $0 + 16 * $1 }
        func word(at offset: Int, in bytes: [UInt8]) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) } }
        func replacing(_ value: UInt64, at offset: Int, in bytes: [UInt8]) -> [UInt8] {
            var copy = bytes
            for byte in 0..<8 { copy[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
            return copy
        }
        var swapped = body
        swapped.replaceSubrange(offset..<(offset + 16), with: Array(body[(offset + 8)..<(offset + 16)] + body[offset..<(offset + 8)]))
        #expect(refusal(sealed(swapped))?.contains("are not in ascending order") == true)
        // A key replaced by a mirror of it: a board of the layer, but not its class's smallest.
        let key = word(at: offset, in: body)
        let grid = PackedGrid(rules: try Rules(rows: 2, cols: 2))
        let mirror = try #require(OptimalSolverTests.symmetricBoards(grid.board(key)).map { PackedGrid.key(of: $0)! }.max())
        #expect(mirror != key)
        #expect(refusal(sealed(replacing(mirror, at: offset, in: body)))?.contains("in its smallest symmetric form") == true)
        let valueOffset = offset + 8 * counts[firstLayer]
        #expect(refusal(sealed(replacing((-1.0).bitPattern, at: valueOffset, in: body)))?.contains("the value of key") == true)
        #expect(refusal(sealed(replacing(Double.nan.bitPattern, at: valueOffset, in: body)))?.contains("is nan") == true)
        var symmetries = body
        symmetries[17] = 4
        #expect(refusal(sealed(symmetries)) == "\(path) is not a valid solution file: it says 4 symmetries; a 2x2 board has 8")
        var objective = body
        objective[15] = 7
        #expect(refusal(sealed(objective)) == "\(path) is not a valid solution file: objective 7 is not one this build knows")
        var winless = body
        winless[15] = 1  // the win objective, without a win tile
        #expect(refusal(sealed(winless)) == "\(path) is not a valid solution file: the win objective needs a win tile (win_tile)")
        // The header's reserved bytes are 0.
        var reserved = body
        reserved[18] = 1
        #expect(refusal(sealed(reserved)) == "\(path) is not a valid solution file: its header's reserved bytes 18 and 19 are 1, not 0")
        // No afterstate at all, or none of a starting board's moves: nothing a game could be played or valued by.
        var empty = Array(body[..<Solution.headerSize])
        for byte in 0..<4 { empty[Solution.headerSize - 4 + byte] = 0 }
        #expect(refusal(sealed(empty))?.hasPrefix("\(path) is not a valid solution file: it lacks afterstate ") == true)
        #expect(refusal(sealed(empty))?.hasSuffix(", a move from a starting board") == true)
        // A layer's count larger than the whole file: named as the header's count, not as Int.max bytes.
        let huge = replacing(1 << 40, at: Solution.headerSize, in: body)
        #expect(
            refusal(sealed(huge))
                == "\(path) is not a valid solution file: its header says layer 0 holds 1099511627776 afterstates, "
                + "more than its \(good.count) bytes can hold")
    }
}
