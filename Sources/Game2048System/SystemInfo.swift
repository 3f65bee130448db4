#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the machine.
package enum SystemInfo {
    /// Online processors (at least 1).
    package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Bytes of physical memory; `Int.max` when the system does not say.
    package static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return Int.max }
        return pages.multipliedReportingOverflow(by: pageSize).overflow ? Int.max : pages * pageSize
    }

    /// The processor's model name from `/proc/cpuinfo` ("AMD EPYC 7B13"), or `nil` where there is none.
    package static var processorModel: String? {
        guard let bytes = try? SystemIO.readFile("/proc/cpuinfo", limit: 1 << 24) else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
                let value = text[text.index(after: colon)...]
                return String(value.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
            }
        }
        return nil
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
