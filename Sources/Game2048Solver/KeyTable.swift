/// Open-addressing hash tables of nonzero `PackedGrid` keys, for the solver's layers: ``KeySet`` gathers a
/// layer's distinct boards as they are generated, ``KeyIndex`` finds a board's position in a finished layer.
///
/// A layer holds up to millions of boards and is probed billions of times, once per move and spawn; a sorted
/// array's binary search costs a cache miss per halving, a probe here about one. Key 0 (the empty board) marks
/// a free slot: no board of a layer is empty.
@inline(__always)
func keySlot(_ key: UInt64, shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
}

/// The distinct keys inserted, kept at most half full.
final class KeySet {
    private var slots: UnsafeMutablePointer<UInt64>
    private var capacity: Int
    private var shift: UInt64
    /// How many distinct keys it holds.
    private(set) var count = 0

    init(expected: Int = 0) {
        capacity = 1024
        while capacity < 2 * expected { capacity *= 2 }
        shift = 64 - UInt64(capacity.trailingZeroBitCount)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
    }

    deinit { slots.deallocate() }

    /// Adds `key` (not 0) unless it is there.
    @inline(__always)
    func insert(_ key: UInt64) {
        var slot = keySlot(key, shift: shift)
        while true {
            let found = slots[slot]
            if found == key { return }
            if found == 0 { break }
            slot = (slot + 1) & (capacity - 1)
        }
        slots[slot] = key
        count += 1
        if 2 * count > capacity { grow() }
    }

    private func grow() {
        let old = slots
        let oldCapacity = capacity
        capacity *= 2
        shift -= 1
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        for index in 0..<oldCapacity where old[index] != 0 {
            var slot = keySlot(old[index], shift: shift)
            while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = old[index]
        }
        old.deallocate()
    }

    /// The keys, in the table's order: the same for the same keys inserted in the same order.
    func keys() -> [UInt64] {
        var keys: [UInt64] = []
        keys.reserveCapacity(count)
        for index in 0..<capacity where slots[index] != 0 { keys.append(slots[index]) }
        return keys
    }

    /// The keys, ascending.
    func sorted() -> [UInt64] {
        var keys = keys()
        keys.sort()
        return keys
    }
}

/// The position of each key of a layer's key array, by hashing.
final class KeyIndex: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<UInt64>
    private let positions: UnsafeMutablePointer<UInt32>
    private let capacity: Int
    private let shift: UInt64

    /// An index of `keys` (distinct, none 0, fewer than 2^32).
    init(_ keys: [UInt64]) {
        precondition(keys.count < Int(UInt32.max), "a layer of 2^32 boards")
        var capacity = 1024
        while capacity < 2 * keys.count { capacity *= 2 }
        self.capacity = capacity
        shift = 64 - UInt64(capacity.trailingZeroBitCount)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        positions = .allocate(capacity: capacity)
        positions.initialize(repeating: 0, count: capacity)
        for (position, key) in keys.enumerated() {
            var slot = keySlot(key, shift: shift)
            while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = key
            positions[slot] = UInt32(position)
        }
    }

    deinit {
        slots.deallocate()
        positions.deallocate()
    }

    /// The position of `key`, or `nil` when the layer does not hold it.
    @inline(__always)
    func position(of key: UInt64) -> Int? {
        var slot = keySlot(key, shift: shift)
        while true {
            let found = slots[slot]
            if found == key { return Int(positions[slot]) }
            if found == 0 { return nil }
            slot = (slot + 1) & (capacity - 1)
        }
    }
}
