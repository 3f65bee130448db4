import Foundation
import Game2048Network
import TestSupport
import Testing
@testable import g2048

/// `train` records the tile for its weights' search to downgrade from; `eval` and `play` use it by default.
struct DowngradeDefaultTests {
    /// The format version field of a weights file.
    static func version(_ path: String) throws -> UInt8 { try Data(contentsOf: URL(fileURLWithPath: path))[8] }

    @Test func trainRecordsTheTileAndEvalSearchesWithIt() throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin")
        // Seed 3's last 1 000 games (two lanes, the default on 4x4) reach 512 in 49.5 % and 1024 in 4.1 %: the tile is 512.
        let trained = try G2048Tests.run(["train", "--games", "1000", "--seed", "3", "--out", weights])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(trained.stdout.contains(", 512 in 49.5 %, 1024 in 4.1 %"))
        #expect(
            trained.stdout.hasSuffix(
                "eval and play search these weights downgrading from the 512 tile, the largest a third of the last games reached (--downgrade overrides)\n"))
        let metadata = try WeightsFile.load(from: weights).metadata
        #expect(metadata.downgradeLimit == 9)
        #expect(try Self.version(weights) == 3)

        let arguments = ["eval", "--weights", weights, "--games", "20", "--threads", "1", "--seed", "5"]
        let byDefault = try G2048Tests.run(arguments)
        let fromFile = try G2048Tests.run(arguments + ["--downgrade", "512"])
        let fromDefaultTile = try G2048Tests.run(arguments + ["--downgrade", "on"])
        #expect(byDefault.status == 0 && fromFile.status == 0 && fromDefaultTile.status == 0)
        #expect(byDefault.stderr.contains("trained 1000 games; downgrading from 512 (the weights file's)"))
        #expect(fromFile.stderr.contains("trained 1000 games; downgrading from 512\n"))
        #expect(fromDefaultTile.stderr.contains("trained 1000 games; downgrading from 32768\n"))
        // The file's tile is what the search uses: the same games as with the flag, not as without it.
        let mean = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix("mean score") }.map(String.init) }
        #expect(mean(byDefault.stdout) != nil && mean(byDefault.stdout) == mean(fromFile.stdout))
        #expect(mean(byDefault.stdout) != mean(fromDefaultTile.stdout))

        // A resumed run too short to fill the window keeps the file's tile.
        let resumed = try G2048Tests.run(["train", "--resume", weights, "--games", "1100"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try WeightsFile.load(from: weights).metadata.downgradeLimit == 9)
    }

    @Test(arguments: [
        ["--optimistic", "0"],  // weights from zero: downgrading early does not help them
        // Measured on 4×4 only (TD: otd+tc, 3×3's default, writes version 2; no table: a table writes version 5).
        ["--rows", "3", "--learning", "td", "--table-share", "0"],
    ])
    func noTileIsRecordedWhereNoneWasMeasuredToHelp(flags: [String]) throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin")
        let trained = try G2048Tests.run(["train", "--games", "1000", "--seed", "3", "--out", weights] + flags)
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(!trained.stdout.contains("downgrading"))
        #expect(try WeightsFile.load(from: weights).metadata.downgradeLimit == nil)
        #expect(try Self.version(weights) == 1)
        let evaluated = try G2048Tests.run(["eval", "--weights", weights, "--games", "5", "--threads", "1"])
        #expect(evaluated.stderr.contains("trained 1000 games; downgrading from 32768\n"))
    }

    @Test func aRunTooShortForTheWindowRecordsNoTile() throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin")
        let trained = try G2048Tests.run(["train", "--games", "999", "--seed", "3", "--out", weights])
        #expect(trained.status == 0, "\(trained.stderr)")
        #expect(try WeightsFile.load(from: weights).metadata.downgradeLimit == nil)
    }
}
