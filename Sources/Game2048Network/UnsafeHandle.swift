import GymSystem

// With Game2048Solver's KeyTable.swift (the exact solver's hash tables), the one file of the
// learner's modules that allocates memory by hand and keeps a pointer to it. (Elsewhere pointers are only
// borrowed for the length of a `withUnsafe…` call, for file I/O and checksums, or handed
// out by this file, as to TC's update.)
//
// An n-tuple network is a few hundred megabytes of Float32 read at random
// (32 features × each afterstate × every move); a Swift array would add bounds
// checks and copy-on-write checks to every access, and the table must be shared
// by training threads without copying.

/// The weights of a network: one flat, zero-initialized Float32 allocation, aligned to 2 MiB.
///
/// Huge pages are requested (`madvise`) because the features hit the table at
/// random, so with 4 KiB pages nearly every access also misses the TLB.
/// Training threads write through it without locks ("Hogwild!", Recht et al.
/// 2011, the accepted practice for n-tuple networks): a lost update costs a
/// little learning, never memory safety, since each access is one aligned Float.
public final class WeightStorage: @unchecked Sendable {
    /// The number of weights.
    public let count: Int
    @usableFromInline let base: UnsafeMutablePointer<Float>
    /// The bytes mapped for the weights (their size rounded up to the alignment).
    let mappedBytes: Int

    /// The alignment of the weights: a huge page.
    static let alignment = 2 << 20

    /// The most address space an allocation of `count` weights takes at once: their bytes rounded up to the
    /// alignment, and one alignment more, mapped to find an aligned start and then given back.
    static func addressSpace(holding count: Int) -> Int {
        (max(count, 1) * MemoryLayout<Float>.stride + alignment - 1) / alignment * alignment + alignment
    }

    /// Allocates `count` weights, all set to `initialValue`.
    public init(count: Int, initialValue: Float = 0) {
        self.count = count
        let bytes = max(count, 1) * MemoryLayout<Float>.stride
        let alignment = WeightStorage.alignment
        guard let memory = AlignedMemory.allocate(byteCount: bytes, alignment: alignment) else {
            fatalError("out of memory: cannot allocate \((bytes + alignment - 1) / alignment * 2) MiB of network weights")
        }
        base = memory.pointer.bindMemory(to: Float.self, capacity: max(count, 1))
        mappedBytes = memory.size
        if initialValue != 0 { base.initialize(repeating: initialValue, count: count) }
    }

    deinit { AlignedMemory.free(base, size: mappedBytes) }

    /// The weight at `index`.
    @inlinable @inline(__always)
    public subscript(index: Int) -> Float {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// Copies `count` weights from index `source` to index `destination` (the ranges must not overlap).
    func copy(count: Int, from source: Int, to destination: Int) {
        precondition(count >= 0 && source >= 0 && destination >= 0 && source + count <= self.count && destination + count <= self.count)
        (base + destination).update(from: base + source, count: count)
    }

    /// Calls `body` with the raw bytes of all weights (for files and checksums).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count * MemoryLayout<Float>.stride))
    }

    /// Calls `body` with the mutable raw bytes of all weights (for loading).
    public func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count * MemoryLayout<Float>.stride))
    }
}
