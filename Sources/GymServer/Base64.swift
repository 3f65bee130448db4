/// Standard base64 (RFC 4648, with `=` padding), encoding and decoding, for the `base64` observation encoding.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The two characters of every 12-bit value, as the bytes of one `UInt16` in memory order: encoding
    /// writes two characters per lookup, which halves the work of the one-character table.
    static let pairs: [UInt16] = (0..<4096).map { value in
        let first = UInt16(alphabet[value >> 6]), second = UInt16(alphabet[value & 63])
        return (first | second << 8).littleEndian
    }

    /// Appends the base64 text of `bytes` to `output`.
    ///
    /// Grows `output` once and writes through a pointer: appending character by
    /// character costs a uniqueness check each, and a 256-environment step
    /// result holds 6 000 characters of base64.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        let length = (bytes.count + 2) / 3 * 4
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        alphabet.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBufferPointer { buffer in
                var out = start
                var index = 0
                pairs.withUnsafeBufferPointer { pairs in
                    let target = UnsafeMutableRawPointer(buffer.baseAddress!)
                    while index + 3 <= bytes.count {
                        let n = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
                        target.storeBytes(of: pairs[n >> 12], toByteOffset: out, as: UInt16.self)
                        target.storeBytes(of: pairs[n & 0xFFF], toByteOffset: out + 2, as: UInt16.self)
                        index += 3
                        out += 4
                    }
                }
                let rest = bytes.count - index
                if rest > 0 {
                    // The `=` padding is already in place.
                    let n = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    buffer[out] = table[Int(n >> 18)]
                    buffer[out + 1] = table[Int(n >> 12 & 63)]
                    if rest == 2 { buffer[out + 2] = table[Int(n >> 6 & 63)] }
                }
            }
        }
    }

    /// The base64 text of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        bytes.withUnsafeBytes { encode($0, into: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of base64 `text`, or `nil` when it is not valid padded base64.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            var n: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let c = input[index + offset]
                let v: UInt32
                switch c {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
                case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a") + 26)
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0") + 52)
                case UInt8(ascii: "+"): v = 62
                case UInt8(ascii: "/"): v = 63
                case UInt8(ascii: "=") where index + 4 == input.count && offset >= 2:
                    v = 0
                    padding += 1
                default: return nil
                }
                if padding > 0 && c != UInt8(ascii: "=") { return nil }
                n = n << 6 | v
            }
            output.append(UInt8(n >> 16))
            if padding < 2 { output.append(UInt8(n >> 8 & 0xFF)) }
            if padding < 1 { output.append(UInt8(n & 0xFF)) }
            index += 4
        }
        return output
    }
}
