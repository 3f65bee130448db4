import GymSystem
import Testing

struct NumberFormattingTests {
    // The cases of the two formatters this one replaced (the metrics CSV's and the CLI's), all kept.
    static let cases: [(Double, Int, String)] = [
        (2.5, 0, "3"), (-2.5, 0, "-3"), (-0.04, 1, "0.0"), (1234.5678, 2, "1234.57"), (0.00005, 4, "0.0001"),
        (0, 3, "0.000"), (7, 1, "7.0"), (-1.25, 1, "-1.3"), (.nan, 2, "nan"), (.infinity, 1, "inf"), (-.infinity, 1, "-inf"),
        (1.5, 2, "1.50"), (0.004, 2, "0.00"), (-2.25, 1, "-2.3"), (1234.0, 0, "1234"), (0.05, 1, "0.1"),
        (1e300, 0, "1e+300"), (-1e19, 2, "-1e+19"), (9.2e18, 1, "9.2e+18"),
    ]

    @Test(arguments: cases)
    func formatFixedWritesExactlyTheDigitsAsked(value: Double, digits: Int, text: String) {
        #expect(formatFixed(value, digits: digits) == text)
    }

    @Test(arguments: [(250.0, 100.0), (0.05, 0.01), (1, 1), (9.99, 1), (10, 10)])
    func decimalMagnitudeIsThePowerOfTenAtOrBelow(value: Double, magnitude: Double) {
        #expect(decimalMagnitude(of: value) == magnitude)
    }
}
