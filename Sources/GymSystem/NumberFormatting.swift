#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `value` with exactly `digits` digits after the point, rounded half away
/// from zero, without Foundation: `formatFixed(2.5, digits: 0)` is "3",
/// `formatFixed(-0.04, digits: 1)` is "0.0"; "nan", "inf" and "-inf" for the
/// non-finite.
package func formatFixed(_ value: Double, digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    // Beyond 2^53 the digits are not exact anyway (and NaN and ±inf have none): Swift's shortest form is as good.
    guard value.isFinite, abs(value) * scale < 9.0e15 else { return String(value) }
    let units = Int64((abs(value) * scale).rounded(.toNearestOrAwayFromZero))
    let factor = Int64(scale)
    let whole = String(units / factor)
    let sign = value < 0 && units != 0 ? "-" : ""
    guard digits > 0 else { return sign + whole }
    let fraction = String(units % factor)
    return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
}

/// The power of ten at or below a positive `value`: 100 for 250, 0.01 for 0.05 (for choosing axis steps).
package func decimalMagnitude(of value: Double) -> Double {
    pow(10, log10(value).rounded(.down))
}

/// A byte count for people: "87 bytes", "12 KiB", "256 MiB", "1.5 TiB".
package func byteSize(_ bytes: Int) -> String {
    guard bytes >= 1024 else { return "\(bytes) bytes" }
    var value = Double(bytes)
    var unit = 0
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    // One decimal below 10, none above: "1.5 TiB", "256 MiB".
    let tenths = Int((value * 10).rounded())
    let text = tenths < 100 ? "\(tenths / 10).\(tenths % 10)" : "\((tenths + 5) / 10)"
    return "\(text.hasSuffix(".0") ? String(text.dropLast(2)) : text) \(units[unit])"
}

/// A count for people, in powers of ten from ten thousand on: "9999", "3.4e+06", "1.2e+12"; two significant
/// digits is all an estimate has.
package func formatEstimate(_ value: Double) -> String {
    guard value.isFinite, value >= 10_000 else { return value.isFinite ? String(Int(value.rounded())) : String(value) }
    var exponent = Int(log10(value).rounded(.down))
    var mantissa = (value / pow(10, Double(exponent)) * 10).rounded() / 10
    if mantissa >= 10 {
        mantissa /= 10
        exponent += 1
    }
    return "\(formatFixed(mantissa, digits: 1))e+\(exponent < 10 ? "0" : "")\(exponent)"
}
