#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Large, aligned, zeroed allocations that live as long as their owner (a network's weights).
package enum AlignedMemory {
    /// Allocates at least `byteCount` bytes aligned to `alignment` (a power of two), asking
    /// the kernel for huge pages where it offers them; the first `byteCount` bytes are zero
    /// when `zeroed` (the caller that fills them anyway saves the pass).
    ///
    /// - Returns: the memory and the size allocated (`byteCount` rounded up to `alignment`),
    ///   or `nil` when the memory is not there.
    package static func allocate(byteCount: Int, alignment: Int, zeroed: Bool) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        var raw: UnsafeMutableRawPointer? = nil
        let rounded = (max(byteCount, 1) + alignment - 1) / alignment * alignment
        guard posix_memalign(&raw, alignment, rounded) == 0, let raw else { return nil }
        #if os(Linux)
        _ = madvise(raw, rounded, 14)  // MADV_HUGEPAGE
        #endif
        if zeroed { memset(raw, 0, byteCount) }
        return (raw, rounded)
    }

    /// Frees memory from ``allocate(byteCount:alignment:zeroed:)``.
    package static func free(_ pointer: UnsafeMutableRawPointer) {
        #if canImport(Glibc)
        Glibc.free(pointer)
        #else
        Darwin.free(pointer)
        #endif
    }
}
