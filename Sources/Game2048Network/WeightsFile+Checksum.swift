import Game2048

extension WeightsFile {
    /// The checksum the format uses, of `bytes`.
    ///
    ///     WeightsFile.checksum(of: Array("abc".utf8))
    ///
    /// The bytes are read as little-endian 64-bit words (the last one padded with
    /// zero bytes), dealt in turn to four lanes so that four multiplications run
    /// at once. Each lane absorbs a word `w` as
    ///
    ///     h = (h ^ w) &* 0x9E3779B97F4A7C15;  h ^= h >> 32
    ///
    /// starting from the lane's seed (the first four outputs of
    /// `SplitMix64(seed: 0x4732_3034_384E_541A)`, the magic as a number). At
    /// the end the lanes are folded into one value with the same step, then the
    /// byte length, and the result goes through SplitMix64's finalizer.
    ///
    /// For a fixed `h` the step is a bijection of `w`, and for a fixed `w` a
    /// bijection of `h` (xor, multiplication by an odd constant and `h ^= h >> 32`
    /// are all invertible), and so is every later step. So two inputs of the same
    /// length that differ within one 8-byte word (a flipped bit, a torn byte)
    /// always have different checksums; other damage goes unnoticed with
    /// probability about 2^-64. It is a checksum against accidents, not a
    /// cryptographic hash.
    ///
    /// - Complexity: O(n), in four independent multiply chains: a few GB/s, a
    ///   small part of the time a load spends copying the file into memory.
    public static func checksum(of bytes: [UInt8]) -> UInt64 {
        var checksum = Checksum64()
        bytes.withUnsafeBytes { checksum.update($0) }
        return checksum.finalize()
    }
}

/// The streaming form of ``WeightsFile/checksum(of:)``: feed bytes in any
/// pieces, get the same value as for the whole.
package struct Checksum64 {
    static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    var lanes: (UInt64, UInt64, UInt64, UInt64)
    /// Bytes of an incomplete 32-byte block, waiting for the rest.
    var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var pendingCount = 0
    var length: UInt64 = 0

    package init() {
        var seeds = SplitMix64(seed: 0x4732_3034_384E_541A)
        lanes = (seeds.next(), seeds.next(), seeds.next(), seeds.next())
    }

    /// One lane absorbing one word: a bijection of `h` for each `w`, and of `w` for each `h`.
    @inline(__always)
    static func absorb(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let x = (h ^ w) &* multiplier
        return x ^ (x >> 32)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if pendingCount > 0 {
            let taken = min(32 - pendingCount, bytes.count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!, byteCount: taken)
            }
            pendingCount += taken
            offset = taken
            guard pendingCount == 32 else { return }
            let block = pending
            lanes.0 = Checksum64.absorb(lanes.0, UInt64(littleEndian: block.0))
            lanes.1 = Checksum64.absorb(lanes.1, UInt64(littleEndian: block.1))
            lanes.2 = Checksum64.absorb(lanes.2, UInt64(littleEndian: block.2))
            lanes.3 = Checksum64.absorb(lanes.3, UInt64(littleEndian: block.3))
            pending = (0, 0, 0, 0)
            pendingCount = 0
        }
        var (a, b, c, d) = lanes
        while bytes.count - offset >= 32 {
            a = Checksum64.absorb(a, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            b = Checksum64.absorb(b, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            c = Checksum64.absorb(c, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
            d = Checksum64.absorb(d, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            offset += 32
        }
        lanes = (a, b, c, d)
        let rest = bytes.count - offset
        if rest > 0 {
            withUnsafeMutableBytes(of: &pending) { block in
                block.baseAddress!.copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: rest)
            }
            pendingCount = rest
        }
    }

    /// The checksum of every byte given so far.
    package func finalize() -> UInt64 {
        var (a, b, c, d) = lanes
        // The words holding at least one pending byte; the zero padding is already in place.
        let words = (pendingCount + 7) / 8
        if words > 0 { a = Checksum64.absorb(a, UInt64(littleEndian: pending.0)) }
        if words > 1 { b = Checksum64.absorb(b, UInt64(littleEndian: pending.1)) }
        if words > 2 { c = Checksum64.absorb(c, UInt64(littleEndian: pending.2)) }
        if words > 3 { d = Checksum64.absorb(d, UInt64(littleEndian: pending.3)) }
        var h = Checksum64.absorb(a, b)
        h = Checksum64.absorb(h, c)
        h = Checksum64.absorb(h, d)
        h = Checksum64.absorb(h, length)
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }
}
