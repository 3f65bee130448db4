import Testing
@testable import Game2048
@testable import GymCore

struct Xoshiro256StarStarTests {
    @Test func outputsMatchTheReferenceFromStateOneTwoThreeFour() {
        var rng = Xoshiro256StarStar(seed: 0)
        (rng.s0, rng.s1, rng.s2, rng.s3) = (1, 2, 3, 4)
        let outputs = (0..<6).map { _ in rng.next() }
        #expect(
            outputs == [
                11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360, 607_988_272_756_665_600,
            ])
    }

    @Test(arguments: [UInt64(0), 42, UInt64.max])
    func seedingUsesTheFirstFourSplitMix64Outputs(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        let rng = Xoshiro256StarStar(seed: seed)
        let expected = (0..<4).map { _ in mixer.next() }
        #expect([rng.s0, rng.s1, rng.s2, rng.s3] == expected)
    }

    @Test func seededOutputsMatchTheReference() {
        // xoshiro256** seeded with splitmix64(0) and splitmix64(42), computed independently in Python.
        var zero = Xoshiro256StarStar(seed: 0)
        let zeroOutputs = (0..<4).map { _ in zero.next() }
        #expect(zeroOutputs == [0x99EC_5F36_CB75_F2B4, 0xBF6E_1F78_4956_452A, 0x1A5F_849D_4933_E6E0, 0x6AA5_94F1_262D_2D2C])
        var answer = Xoshiro256StarStar(seed: 42)
        let answerOutputs = (0..<4).map { _ in answer.next() }
        #expect(answerOutputs == [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1, 0xECB8_AD47_03B3_60A1])
    }

    @Test func copiesReplayTheSameStream() {
        var a = Xoshiro256StarStar(seed: 7)
        _ = a.next()
        var b = a
        let fromA = (0..<100).map { _ in a.next() }
        let fromB = (0..<100).map { _ in b.next() }
        #expect(fromA == fromB)
        #expect(a == b)
        #expect(Xoshiro256StarStar(seed: 7) != Xoshiro256StarStar(seed: 8))
    }

    @Test func rotlRotatesLeft() {
        #expect(Xoshiro256StarStar.rotl(0x8000_0000_0000_0001, 1) == 3)
        #expect(Xoshiro256StarStar.rotl(1, 45) == 1 << 45)
        #expect(Xoshiro256StarStar.rotl(1 << 63, 7) == 1 << 6)
    }
}
