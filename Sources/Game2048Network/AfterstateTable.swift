import CPrefetch
import Game2048

/// Values learned for single afterstates of a small board, one per class of symmetric boards: what a network
/// carries beside its tuples where every afterstate can have a value of its own (``NTupleNetwork/afterstates``).
///
///     let table = AfterstateTable(rows: 2, cols: 4)
///     table.value(of: board)       // nil until learned; the same for every mirror image of the board
///
/// A board is a packed key (four bits a cell, as the solver keys boards), reduced to its smallest symmetric image
/// (its canonical form), in an open-addressing hash table. The tuples generalize: boards that look alike share
/// weights, so a network learns fast and never exactly; the table learns each board on its own, exactly, but only
/// the boards it meets. `AfterstateLearner` fills it over a trained network (a board not in the table takes the
/// network's value), which reaches closer to optimal play on the solved boards than either alone (docs/SOLVER.md).
///
/// Written by one thread at a time (the learner); read by any number once learned.
public final class AfterstateTable: @unchecked Sendable {
    /// Board rows.
    public let rows: Int
    /// Board columns.
    public let cols: Int
    /// The symmetries a board is reduced by.
    let symmetry: PackedSymmetry
    /// A key (0 marks a free slot: an afterstate always holds a tile) beside its value, so that a lookup misses the
    /// cache once, not twice.
    private struct Slot {
        var key: UInt64
        var value: Float
    }
    /// `capacity` slots.
    private var slots: UnsafeMutablePointer<Slot>
    private var capacity: Int
    /// `64 − log2(capacity)`: a key's home slot is the top bits of its multiplicative hash.
    private var shift: UInt64
    /// The afterstates held.
    public private(set) var count = 0
    /// The most afterstates the table takes: ``maxCount``, or what it held when a doubling would not fit.
    private var countLimit = AfterstateTable.maxCount
    /// Why the table stopped growing before ``maxCount`` (its doubling would not fit in this process's memory), or
    /// `nil`: it keeps the afterstates it holds and refuses new ones.
    public private(set) var growthRefused: MemoryShortfall?
    /// Whether this process could take `bytes` more, the check made before each doubling (tests set their own).
    package var memoryCheck: (_ bytes: Int) -> MemoryShortfall? = { MemoryShortfall.of(holding: $0) }

    /// The boards a table may be made for: those of at most this many cells (3×3, 2×4 and smaller), where every
    /// afterstate, reduced by the board's symmetries, fits in memory (3.1 × 10^7 on 3×3); each further cell
    /// multiplies the reachable boards by ten to twenty. The exact solver solves the same boards.
    public static let maxCells = 9

    /// The most afterstates a table holds (a learner stops adding beyond it): more than every reduced afterstate of
    /// the largest board allowed, in at most 2 GiB.
    public static let maxCount = 1 << 26

    /// Whether a `rows` × `cols` board may have a table.
    public static func fits(rows: Int, cols: Int) -> Bool { rows * cols <= maxCells }

    /// An empty table for a `rows` × `cols` board.
    ///
    /// - Precondition: ``fits(rows:cols:)``.
    public init(rows: Int, cols: Int) {
        precondition(AfterstateTable.fits(rows: rows, cols: cols), "an afterstate table is for boards of up to \(AfterstateTable.maxCells) cells")
        self.rows = rows
        self.cols = cols
        symmetry = PackedSymmetry(rows: rows, cols: cols)
        capacity = AfterstateTable.initialCapacity
        shift = 64 - UInt64(AfterstateTable.initialCapacity.trailingZeroBitCount)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: 0, value: 0), count: capacity)
    }

    deinit { slots.deallocate() }

    /// The smallest key among `key`'s symmetric images: the form the table stores.
    @inline(__always)
    package func canonical(_ key: UInt64) -> UInt64 { symmetry.canonical(key) }

    /// The slot where a probe for `key` starts.
    @inline(__always)
    private func home(of key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// The slot of `key`, or of the free slot where it would go.
    @inline(__always)
    private func slot(of key: UInt64) -> Int {
        var slot = home(of: key)
        while slots[slot].key != key && slots[slot].key != 0 { slot = (slot &+ 1) & (capacity &- 1) }
        return slot
    }

    /// The value of `key`, a canonical board, or `nil` when the table has none.
    @inline(__always)
    package func value(ofCanonical key: UInt64) -> Float? {
        let slot = slot(of: key)
        return slots[slot].key == key ? slots[slot].value : nil
    }

    /// Starts loading the slot where `key`, a canonical board, would be into the cache, so that a later
    /// ``value(ofCanonical:)`` need not wait for it.
    @inline(__always)
    package func prefetch(canonical key: UInt64) { prefetch_for_read(slots + home(of: key)) }

    /// The value learned for `board` or any of its mirror images, or `nil`.
    ///
    /// - Precondition: `board` is the table's size.
    @usableFromInline
    func value(of board: Board) -> Float? { PackedGrid.key(of: board).flatMap(value(ofKey:)) }

    /// The value learned for the board `key` (a ``PackedGrid`` key) or any of its mirror images, or `nil`; an empty
    /// table answers without taking the key's canonical form.
    @inline(__always)
    package func value(ofKey key: UInt64) -> Float? { count > 0 ? value(ofCanonical: canonical(key)) : nil }

    /// ``prefetch(canonical:)`` of the board `key`'s canonical form, unless the table is empty.
    @inline(__always)
    package func prefetch(key: UInt64) { if count > 0 { prefetch(canonical: canonical(key)) } }

    /// Sets the value of `key`, a canonical board; a new key is refused (returning `false`) once the table holds
    /// ``maxCount`` afterstates, or as many as it held when it could not grow (``growthRefused``).
    @inline(__always) @discardableResult
    package func set(canonical key: UInt64, to value: Float) -> Bool {
        let slot = slot(of: key)
        if slots[slot].key == key {
            slots[slot].value = value
            return true
        }
        guard count < countLimit else { return false }
        slots[slot] = Slot(key: key, value: value)
        count += 1
        if AfterstateTable.isCrowded(count, capacity: capacity) { grow() }
        return true
    }

    /// Doubles the slots, unless this process could not take them: a failed allocation would stop it and lose the
    /// run, so the table keeps what it holds instead (new keys refused, as past ``maxCount``) and says why. The
    /// check counts the new slots, held beside the old ones while they move, and after the move (the old slots
    /// freed) the room a save of the doubled table takes once it is as full as it gets: so a table that stops
    /// growing can still be saved.
    @inline(never)
    private func grow() {
        let fullest = 7 * (2 * capacity) / 10
        if let shortfall = memoryCheck(max(2 * memoryBytes, memoryBytes + fullest * AfterstateTable.savingBytesPerAfterstate)) {
            growthRefused = shortfall
            countLimit = count
        } else {
            rehash(capacity: 2 * capacity)
        }
    }

    /// The slots a new table starts with.
    private static let initialCapacity = 1 << 10

    /// Whether `count` afterstates crowd `capacity` slots: more than 70 % full, where probes would grow long.
    private static func isCrowded(_ count: Int, capacity: Int) -> Bool { 10 * count > 7 * capacity }

    /// The slots `count` afterstates take, `capacity` doubled until they do not crowd it: the growth of ``set(canonical:to:)``.
    private static func capacity(holding count: Int, from capacity: Int) -> Int {
        var capacity = capacity
        while isCrowded(count, capacity: capacity) { capacity *= 2 }
        return capacity
    }

    /// Makes room for `total` afterstates in all, so that filling the table to that many moves no slot again.
    package func reserve(_ total: Int) {
        let target = capacity(reserving: total)
        if target > capacity { rehash(capacity: target) }
    }

    /// Why ``reserve(_:)`` of `total` afterstates would not fit in this process (the new slots beside the old while
    /// they move), or `nil` (also when it would not grow).
    package func reservingShortfall(_ total: Int) -> MemoryShortfall? {
        let target = capacity(reserving: total)
        return target > capacity ? memoryCheck(target * MemoryLayout<Slot>.stride) : nil
    }

    /// The slots ``reserve(_:)`` of `total` afterstates leaves the table with.
    private func capacity(reserving total: Int) -> Int {
        AfterstateTable.capacity(holding: min(total, AfterstateTable.maxCount), from: capacity)
    }

    /// Moves every afterstate into `newCapacity` slots, a power of two.
    private func rehash(capacity newCapacity: Int) {
        let (oldSlots, oldCapacity) = (slots, capacity)
        capacity = newCapacity
        shift = 64 - UInt64(newCapacity.trailingZeroBitCount)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: 0, value: 0), count: capacity)
        for index in 0..<oldCapacity where oldSlots[index].key != 0 { slots[slot(of: oldSlots[index].key)] = oldSlots[index] }
        oldSlots.deallocate()
    }

    /// Every (canonical key, value), keys ascending: the order a weights file stores, the same bytes for the
    /// same table whatever order it was filled in.
    var sortedEntries: [(key: UInt64, value: Float)] {
        var entries: [(key: UInt64, value: Float)] = []
        entries.reserveCapacity(count)
        for index in 0..<capacity where slots[index].key != 0 { entries.append((slots[index].key, slots[index].value)) }
        entries.sort { $0.key < $1.key }
        return entries
    }

    /// The bytes the table takes in a weights file.
    public var fileBytes: Int { AfterstateTable.fileBytes(holding: count) }

    /// The bytes a table of `count` afterstates takes in a weights file.
    public static func fileBytes(holding count: Int) -> Int { count * NetworkLayout.afterstateSize }

    /// The bytes a save holds for each afterstate beside the table: its sorted entry and its bytes in the file.
    static let savingBytesPerAfterstate = MemoryLayout<(key: UInt64, value: Float)>.stride + NetworkLayout.afterstateSize

    /// The bytes the table takes in memory.
    public var memoryBytes: Int { capacity * MemoryLayout<Slot>.stride }

    /// The bytes a table of `count` afterstates takes in memory once filled: its slots, grown by doubling from
    /// 1 024 until at most 70 % are taken.
    public static func memoryBytes(holding count: Int) -> Int {
        capacity(holding: count, from: initialCapacity) * MemoryLayout<Slot>.stride
    }

    /// The most bytes a new table holds at once while ``reserve(_:)`` makes room for `count` afterstates: its
    /// first slots and the reserved ones, both held while the first move over.
    package static func reservingBytes(holding count: Int) -> Int {
        memoryBytes(holding: 0) + memoryBytes(holding: min(count, maxCount))
    }

    /// Why `key` cannot be a stored afterstate of this table's board under `rules`, or `nil`: it must hold a tile,
    /// only on the board's cells, none above the rules' ceiling, and be its class's canonical form.
    func problem(ofKey key: UInt64, largestExponent: UInt8) -> String? {
        let cells = rows * cols
        if key == 0 { return "an empty board" }
        if cells < 16 && key >> (4 * UInt64(cells)) != 0 { return "a tile beyond the board's \(cells) cells" }
        for cell in 0..<cells where UInt8((key >> (4 * UInt64(cell))) & 0xF) > largestExponent {
            return "a tile above the ceiling 2^\(largestExponent)"
        }
        if canonical(key) != key { return "not the smallest of its mirror images" }
        return nil
    }
}
