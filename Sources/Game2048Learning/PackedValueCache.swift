/// The network's values of recently read afterstates, for ``AfterstateLearner``: while the table is learned the
/// tuples do not change, so a board's network value read once can be read again from one cache line instead of
/// one scattered weight per feature (eight on 3×3).
///
/// Direct-mapped: a key's slot is the top bits of its multiplicative hash, and a new key replaces the one there.
/// So the memory is fixed, a value read is always the network's own (to the bit), and only the speed depends on
/// what was replaced.
struct PackedValueCache: ~Copyable {
    /// A key (0 for a free slot: an afterstate always holds a tile) with its value, in one cache line.
    private struct Entry {
        var key: UInt64
        var value: Float
    }

    private let entries: UnsafeMutablePointer<Entry>
    private let shift: UInt64

    /// A cache of `2^log2Slots` values.
    init(log2Slots: Int) {
        precondition((1...40).contains(log2Slots), "a cache of 2 to 2^40 slots")
        entries = .allocate(capacity: 1 << log2Slots)
        entries.initialize(repeating: Entry(key: 0, value: 0), count: 1 << log2Slots)
        shift = 64 - UInt64(log2Slots)
    }

    deinit { entries.deallocate() }

    /// `key`'s value: the cached one, else `compute(key)`, cached.
    @inline(__always)
    func value(of key: UInt64, compute: (UInt64) -> Float) -> Float {
        let slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        if entries[slot].key == key { return entries[slot].value }
        let value = compute(key)
        entries[slot] = Entry(key: key, value: value)
        return value
    }
}
