import Game2048Network

extension WeightStorage {
    /// Every weight, in order, copied at once: how the tests compare two networks. (A `map` over the subscript
    /// takes tens of seconds for a staged 4×4 network's 200 million weights in a debug build; this is a memcpy.)
    var values: [Float] { copied(as: Float.self) }

    /// Every weight's bits, in order: for comparisons where a NaN or a negative zero must count.
    var bitPatterns: [UInt32] { copied(as: UInt32.self) }

    private func copied<T>(as _: T.Type) -> [T] {
        withBytes { bytes in
            [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
                initialized = count
            }
        }
    }
}
