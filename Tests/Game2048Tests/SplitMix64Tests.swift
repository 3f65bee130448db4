import Testing
@testable import Game2048
@testable import GymCore

struct SplitMix64Tests {
    // Reference values from Vigna's splitmix64.c (recomputed independently in Python).
    static let references: [(UInt64, [UInt64])] = [
        (0, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC]),
        (42, [0xBDD7_3226_2FEB_6E95, 0x28EF_E333_B266_F103, 0x4752_6757_130F_9F52, 0x581C_E1FF_0E4A_E394]),
    ]

    @Test(arguments: references)
    func outputsMatchTheReference(seed: UInt64, expected: [UInt64]) {
        var mixer = SplitMix64(seed: seed)
        let outputs = (0..<4).map { _ in mixer.next() }
        #expect(outputs == expected)
    }

    @Test func stateAdvancesByTheGoldenRatioIncrement() {
        var mixer = SplitMix64(seed: UInt64.max)
        _ = mixer.next()
        #expect(mixer.state == UInt64.max &+ 0x9E37_79B9_7F4A_7C15)
        _ = mixer.next()
        #expect(mixer.state == UInt64.max &+ 2 &* 0x9E37_79B9_7F4A_7C15)
    }
}
