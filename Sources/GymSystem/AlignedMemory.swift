#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Large, aligned, zeroed allocations that live as long as their owner (a network's weights).
///
/// The memory is an anonymous mapping: the kernel hands it out zeroed and only as pages are first
/// touched, so a network of zeros costs no memory (and no time) until it learns, and a test that
/// builds one to read a few weights does not grow the process by hundreds of megabytes.
package enum AlignedMemory {
    /// What one task's code has mapped: the bytes mapped now and the most at any time, so that a test can
    /// bound the memory a piece of code takes while other tests, beside it in the same process, take theirs
    /// (the process's peak resident size counts everyone's).
    package final class Ledger: Sendable {
        let state = Mutex<(current: Int, peak: Int)>((0, 0))

        /// An empty ledger.
        package init() {}

        /// The most bytes mapped at once while this ledger was the task's.
        package var peak: Int { state.withLock { $0.peak } }

        func record(_ bytes: Int) {
            state.withLock { s in
                s.current += bytes
                s.peak = max(s.peak, s.current)
            }
        }
    }

    /// The ledger that counts this task's mappings and unmappings, if any (`$ledger.withValue(…) { … }`).
    @TaskLocal package static var ledger: Ledger? = nil

    /// Maps at least `byteCount` bytes aligned to `alignment` (a power of two, a multiple of the
    /// page size), zeroed, asking the kernel for huge pages where it offers them.
    ///
    /// - Returns: the memory and the size mapped (`byteCount` rounded up to `alignment`), to pass
    ///   to ``free(_:size:)``, or `nil` when the memory is not there.
    package static func allocate(byteCount: Int, alignment: Int) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        let rounded = (max(byteCount, 1) + alignment - 1) / alignment * alignment
        // One alignment more than needed, then the unaligned head and the tail are unmapped.
        let mapped = rounded + alignment
        guard let raw = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else { return nil }
        let address = UInt(bitPattern: raw)
        let aligned = (address + UInt(alignment) - 1) & ~(UInt(alignment) - 1)
        let head = Int(aligned - address)
        if head > 0 { munmap(raw, head) }
        let tail = mapped - head - rounded
        let pointer = raw + head
        if tail > 0 { munmap(pointer + rounded, tail) }
        #if os(Linux)
        _ = madvise(pointer, rounded, 14)  // MADV_HUGEPAGE, before any page is touched
        #endif
        ledger?.record(rounded)
        return (pointer, rounded)
    }

    /// Unmaps memory from ``allocate(byteCount:alignment:)``.
    package static func free(_ pointer: UnsafeMutableRawPointer, size: Int) {
        munmap(pointer, size)
        ledger?.record(-size)
    }
}
