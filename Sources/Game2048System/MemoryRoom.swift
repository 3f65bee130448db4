/// The memory this process may still take, and the limit that sets it: what a long computation checks before it
/// starts, since an allocation past the limit stops the process (the runtime traps) instead of failing.
///
///     if let shortfall = MemoryRoom.current.shortfall(needing: bytes) { throw … "\(shortfall)" }
///     // "this process may use only 78 MiB more (its address-space limit, ulimit -v)"
package struct MemoryRoom: Sendable, Hashable {
    /// The bytes this process may still take.
    package var bytes: Int
    /// The limit that sets ``bytes``, in words: "its address-space limit, ulimit -v".
    package var limit: String

    /// The least of what the machine's memory, the address-space limit and the cgroup's memory limit leave
    /// (as ``SystemInfo/usableMemory``), with the one that binds.
    package static var current: MemoryRoom {
        let rooms = [
            MemoryRoom(bytes: SystemInfo.physicalMemory, limit: "the machine's memory"),
            SystemInfo.addressSpaceAvailable.map { MemoryRoom(bytes: $0, limit: "its address-space limit, ulimit -v") },
            SystemInfo.cgroupMemoryAvailable.map { MemoryRoom(bytes: $0, limit: "its cgroup's memory limit") },
        ]
        return rooms.compactMap { $0 }.min { $0.bytes < $1.bytes }!
    }

    /// Why `needed` more bytes do not fit: "this process may use only 78 MiB more (its address-space limit,
    /// ulimit -v)"; `nil` when they do.
    package func shortfall(needing needed: Int) -> String? {
        needed <= bytes ? nil : "this process may use only \(byteSize(bytes)) more (\(limit))"
    }
}
