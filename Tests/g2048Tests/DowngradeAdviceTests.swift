import Foundation
import Game2048Learning
import TestSupport
import Testing
@testable import g2048

/// `train`'s closing suggestion of a tile to downgrade from when searching the weights.
struct DowngradeAdviceTests {
    static func window(games: Int = 1000, _ rates: (Int, Double)...) -> WindowStatistics {
        WindowStatistics(games: games, meanScore: 0, reachRates: rates.map { TileReachRate(tile: $0.0, rate: $0.1) })
    }

    @Test(
        "the largest tile at least half of the last games reached",
        arguments: [
            // The three measured networks: 8192 in 85 % (16384 in 13 %), 8192 in 82 %, 4096 in 82 %.
            (window((8192, 0.851), (16384, 0.128)), 8192 as Int?),
            (window((8192, 0.817), (16384, 0.003)), 8192),
            (window((4096, 0.817), (8192, 0.192)), 4096),
            // Both common: the larger; exactly half counts.
            (window((2048, 0.99), (4096, 0.5)), 4096),
            // Neither common: the tile below is not known, so no advice.
            (window((8192, 0.45), (16384, 0.01)), nil),
            // 32768 is the default already; below 8 the flag has nothing to say.
            (window((16384, 0.9), (32768, 0.6)), nil),
            (window((2, 1.0), (4, 1.0)), nil),
            // A window not yet full is too few games to go by.
            (window(games: 999, (8192, 0.9), (16384, 0.2)), nil),
            (window(games: 0), nil),
        ])
    func advice(window: WindowStatistics, tile: Int?) {
        #expect(TrainingReport.downgradeAdvice(window, windowSize: 1000) == tile)
    }

    @Test func aFourByFourRunEndsWithTheAdviceAThreeByThreeRunWithout() throws {
        let directory = TemporaryDirectory()
        let weights = directory.file("w.bin")
        // Seed 3's last 1 000 games reach 512 in 50.6 % (seed 2's in 46.6 %, which gets no advice).
        let four = try G2048Tests.run(["train", "--games", "1000", "--seed", "3", "--out", weights])
        #expect(four.status == 0, "\(four.stderr)")
        let lines = four.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(four.stdout)")
        let advice = try #require(lines.last.map(String.init))
        #expect(advice.hasPrefix("search it with tile-downgrading from "))
        // The tile advised is the one of the final line's two rates that most games reached.
        #expect(advice.hasSuffix("from 512, the largest tile most of the last games reached: g2048 eval --weights \(weights) --downgrade 512"))
        #expect(four.stdout.contains(", 512 in 50.6 %"))
        let three = try G2048Tests.run(["train", "--rows", "3", "--games", "1000", "--out", directory.file("w3.bin")])
        #expect(three.status == 0, "\(three.stderr)")
        #expect(!three.stdout.contains("downgrad"))
    }
}
