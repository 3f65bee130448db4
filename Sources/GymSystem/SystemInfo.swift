#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the machine.
package enum SystemInfo {
    /// Online processors (at least 1).
    /// The most memory this process has held at once (its peak resident set), in bytes.
    package static var peakMemory: Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }

    package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Bytes of physical memory; `Int.max` when the system does not say.
    package static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return Int.max }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? Int.max : pages * pageSize
    }

    /// How many more bytes this process may map before its address-space limit (`RLIMIT_AS`,
    /// `ulimit -v`), or `nil` when it has none: a larger allocation would fail, and the runtime
    /// would stop the process instead of reporting it.
    package static var addressSpaceAvailable: Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let cap = limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)
        // VmSize: what the process maps now, in kB.
        guard let bytes = try? SystemIO.readFile("/proc/self/status", limit: 1 << 16),
            let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
            let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        else { return cap }
        return max(0, cap - kilobytes * 1024)
    }

    /// How many more bytes this process can use: the least of the physical memory, what its address-space limit
    /// leaves (``addressSpaceAvailable``) and what its cgroup's memory limit leaves (``cgroupMemoryAvailable``).
    package static var usableMemory: Int {
        min(physicalMemory, addressSpaceAvailable ?? Int.max, cgroupMemoryAvailable ?? Int.max)
    }

    /// How many more bytes this process's cgroup may use before its memory limit (cgroup v2 `memory.max` less
    /// `memory.current`, or v1 `memory.limit_in_bytes` less `memory.usage_in_bytes`), or `nil` without a limit.
    package static var cgroupMemoryAvailable: Int? { cgroupMemory.map { max(0, $0.limit - $0.used) } }

    /// The memory limit of this process's cgroup (cgroup v2 `memory.max`, or v1 `memory.limit_in_bytes`), or
    /// `nil` without one: what the group may hold at most, page cache it could drop included.
    package static var cgroupMemoryLimit: Int? { cgroupMemory?.limit }

    /// This process's cgroup's memory limit and what the group uses now, or `nil` without a limit.
    private static var cgroupMemory: (limit: Int, used: Int)? {
        func number(_ path: String) -> Int? {
            guard let bytes = try? SystemIO.readFile(path, limit: 4096) else { return nil }
            return Int(String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }, as: UTF8.self))
        }
        // The process's own group (cgroup v2: one line "0::/path").
        guard let bytes = try? SystemIO.readFile("/proc/self/cgroup", limit: 1 << 16) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        if let line = lines.first(where: { $0.hasPrefix("0::") }) {
            let folder = "/sys/fs/cgroup" + line.dropFirst(3)
            if let limit = number(folder + "/memory.max") { return (limit, number(folder + "/memory.current") ?? 0) }
        }
        if let limit = number("/sys/fs/cgroup/memory/memory.limit_in_bytes"), limit < Int.max / 2 {
            return (limit, number("/sys/fs/cgroup/memory/memory.usage_in_bytes") ?? 0)
        }
        return nil
    }

    /// The processor's model name from `/proc/cpuinfo` ("AMD EPYC 7B13"), or `nil` where there is none.
    package static var processorModel: String? {
        guard let bytes = try? SystemIO.readFile("/proc/cpuinfo", limit: 1 << 24) else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
                return String(text[text.index(after: colon)...]).trimmingWhitespace
            }
        }
        return nil
    }
}

extension SystemInfo {
    /// The first CPU's caches as Linux describes them (`/sys/devices/system/cpu/cpu0/cache`): a name ("L1d",
    /// "L1i", "L2", "L3") and its size in bytes, smallest level first; empty where there is no such description.
    /// A figure measured on one machine is quoted with these: ratios between hosts of one CPU model vary with them.
    package static var caches: [(name: String, bytes: Int)] {
        var found: [(level: Int, name: String, bytes: Int)] = []
        for index in 0..<8 {
            let folder = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            func read(_ file: String) -> String? {
                (try? SystemIO.readFile(folder + file, limit: 4096)).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace }
            }
            guard let levelText = read("level"), let level = Int(levelText), let type = read("type"), let size = read("size") else { continue }
            let unit: Int = size.hasSuffix("K") ? 1 << 10 : size.hasSuffix("M") ? 1 << 20 : 1
            guard let count = Int(size.filter(\.isNumber)) else { continue }
            let suffix = type == "Data" ? "d" : type == "Instruction" ? "i" : ""
            found.append((level, "L\(level)\(suffix)", count * unit))
        }
        return found.sorted { ($0.level, $0.name) < ($1.level, $1.name) }.map { ($0.name, $0.bytes) }
    }
}

extension String {
    /// The text without leading and trailing whitespace (newlines included).
    var trimmingWhitespace: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}

extension SystemIO {
    /// Tells the kernel that `descriptor` is read from start to end (more read-ahead); only a hint.
    package static func adviseSequentialReading(_ descriptor: Int32) {
        #if os(Linux)
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
    }
}
