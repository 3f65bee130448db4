import Testing

@testable import Game2048Network

/// The one memory check of a file's load: each limit, in the order a load names them.
struct MemoryShortfallTests {
    static func shortfall(_ bytes: Int, content: Int = 0, allocated: Int = 0, cgroup: Int? = nil, addressSpace: Int? = nil) -> MemoryShortfall? {
        MemoryShortfall.of(
            holding: bytes, contentBytes: content, allocatedBytes: allocated, machine: 8 << 30, cgroup: cgroup, addressSpace: addressSpace)
    }

    @Test func eachLimitIsNamedWhenPassed() {
        #expect(Self.shortfall(8 << 30) == nil)
        #expect(Self.shortfall(8 << 30 + 1) == .machine(bytes: 8 << 30))
        #expect(Self.shortfall(3 << 30, cgroup: 2 << 30) == .cgroup(bytes: 2 << 30))
        #expect(Self.shortfall(2 << 30, cgroup: 2 << 30) == nil)
        // Under an address-space limit, 4 MiB are kept for what the load takes beside its count.
        #expect(Self.shortfall(96 << 20 + 1, addressSpace: 100 << 20) == .addressSpace(available: 100 << 20))
        #expect(Self.shortfall(96 << 20, addressSpace: 100 << 20) == nil)
        // Sparse: contents of 64 MiB or more with less than a sixty-fourth of them on disk.
        #expect(Self.shortfall(1 << 30, content: 1 << 30, allocated: 4096) == .sparse(allocated: 4096))
        #expect(Self.shortfall(1 << 30, content: 1 << 30, allocated: 16 << 20) == nil)
        #expect(Self.shortfall(60 << 20, content: 60 << 20, allocated: 0) == nil)
        // The machine first, then the cgroup, the blocks, the address space.
        #expect(Self.shortfall(9 << 30, content: 9 << 30, cgroup: 1 << 30, addressSpace: 0) == .machine(bytes: 8 << 30))
        #expect(Self.shortfall(2 << 30, content: 2 << 30, cgroup: 1 << 30, addressSpace: 0) == .cgroup(bytes: 1 << 30))
        #expect(Self.shortfall(2 << 30, content: 2 << 30, addressSpace: 0) == .sparse(allocated: 0))
    }

    @Test func descriptionsFollowWhatTheLoadNeeds() {
        #expect(MemoryShortfall.machine(bytes: 8 << 30).description == "this machine has 8 GiB of memory")
        #expect(MemoryShortfall.cgroup(bytes: 1 << 30).description == "this process's cgroup may hold only 1 GiB of memory")
        #expect(
            MemoryShortfall.addressSpace(available: 5 << 30).description
                == "this process may map only 5 GiB more (its address-space limit, ulimit -v)")
        #expect(
            MemoryShortfall.sparse(allocated: 4096).description
                == "only 4 KiB of the file is on disk (a sparse file), and a saved file is never sparse")
    }
}
