import GymSystem

/// Why this process cannot hold what a load or a long computation would allocate, found before anything is
/// allocated: the one memory check of every file a user hands the program (weights with their afterstate tables,
/// solutions, from their headers) and of every computation sized in advance (a solve, a sweep). Past any of these
/// limits an allocation would not fail but stop the process (the runtime cannot report a failed allocation), with
/// the work done so far lost, or a forged file would be read in full before its checksum failed.
public enum MemoryShortfall: Hashable, Sendable, CustomStringConvertible {
    /// More than this machine's physical memory (its bytes).
    case machine(bytes: Int)
    /// More than this process's cgroup may hold (its memory limit, in bytes).
    case cgroup(bytes: Int)
    /// More than this process may still map under its address-space limit (`ulimit -v`): the bytes left, and
    /// `threads` threads the computation starts, whose stacks and allocator arenas take some of them.
    case addressSpace(available: Int, threads: Int = 0)
    /// The file has the length its header claims but only `allocated` bytes on disk (a sparse file): a
    /// forgery, since a save writes every byte.
    case sparse(allocated: Int)

    /// What falls short, to follow "… to load; ": "this machine has 8 GiB of memory".
    public var description: String {
        switch self {
        case .machine(let bytes): "this machine has \(byteSize(bytes)) of memory"
        case .cgroup(let bytes): "this process's cgroup may hold only \(byteSize(bytes)) of memory"
        case .addressSpace(let available, let threads):
            "this process may map only \(byteSize(available)) more (its address-space limit, ulimit -v)"
                + (threads == 0
                    ? ""
                    : ", \(byteSize(threads * MemoryShortfall.addressSpacePerThread)) of it for the stacks and allocator arenas "
                        + "of the \(threads) thread\(threads == 1 ? "" : "s") it starts")
        case .sparse(let allocated):
            "only \(byteSize(allocated)) of the file is on disk (a sparse file), and a saved file is never sparse"
        }
    }

    /// The contents' size from which a load checks that its file is not sparse (64 MiB).
    static let sparseCheckThreshold = 64 << 20

    /// What a load may take beside what it counts under an address-space limit (the reads' buffers, the
    /// allocator's own maps): 4 MiB.
    static let addressSpaceSlack = 4 << 20

    /// The address space each thread a computation starts maps beside the memory it counts, which `ulimit -v`
    /// counts too: glibc's malloc gives a thread an arena of its own, reserved 64 MiB at a time on 64-bit, and
    /// its stack takes 8 MiB. (A 2×4 solve on one thread, which starts one, needed 211 MiB of address space for an
    /// estimate of 130; on two, which start three, 356 MiB.)
    public static let addressSpacePerThread = 72 << 20

    /// The shortfall of a load that holds `bytes` at once, of a file whose contents (past its header) are
    /// `contentBytes`, as `status` describes it; `nil` when this process can hold it.
    package static func of(holding bytes: Int, contentBytes: Int, file status: FileStatus) -> MemoryShortfall? {
        of(
            holding: bytes, contentBytes: contentBytes, allocatedBytes: status.allocatedBytes, machine: SystemInfo.physicalMemory,
            cgroup: SystemInfo.cgroupMemoryLimit, addressSpace: SystemInfo.addressSpaceAvailable)
    }

    /// The shortfall of a computation that holds `bytes` at once on `threads` threads it starts (no file: nothing
    /// to find sparse); `nil` when this process can hold it.
    public static func of(holding bytes: Int, threads: Int = 0) -> MemoryShortfall? {
        of(
            holding: bytes, contentBytes: 0, allocatedBytes: 0, machine: SystemInfo.physicalMemory, cgroup: SystemInfo.cgroupMemoryLimit,
            addressSpace: SystemInfo.addressSpaceAvailable, threads: threads)
    }

    /// ``of(holding:contentBytes:file:)`` against the limits given: the machine's memory, the cgroup's limit (the
    /// limit, not what the group has left: page cache it would drop counts there), and what the address space
    /// has left.
    static func of(
        holding bytes: Int, contentBytes: Int, allocatedBytes: Int, machine: Int, cgroup: Int?, addressSpace: Int?, threads: Int = 0
    ) -> MemoryShortfall? {
        if bytes > machine { return .machine(bytes: machine) }
        if let cgroup, bytes > cgroup { return .cgroup(bytes: cgroup) }
        // A file system that compresses may show fewer blocks than bytes, but not a sixty-fourth of them.
        if contentBytes >= sparseCheckThreshold && allocatedBytes < contentBytes / 64 { return .sparse(allocated: allocatedBytes) }
        // Threads' arenas and stacks are address space only: they count against ulimit -v, not the memory.
        if let addressSpace, bytes + threads * addressSpacePerThread > addressSpace - addressSpaceSlack {
            return .addressSpace(available: addressSpace, threads: threads)
        }
        return nil
    }
}
