#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SystemIO {
    /// Waits until one of `descriptors` is readable (or at its end), or `timeout` milliseconds pass.
    ///
    /// - Parameters:
    ///   - descriptors: the file descriptors to watch.
    ///   - timeout: milliseconds; negative waits forever.
    /// - Returns: for each descriptor, whether it is ready to read (readable, at end of file, or in error).
    package static func waitReadable(_ descriptors: [Int32], timeout: Int) -> [Bool] {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), Int32(clamping: timeout))
        }
        guard result > 0 else { return descriptors.map { _ in false } }
        return fds.map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 }
    }

    /// A pipe's read and write ends, both close-on-exec and non-blocking.
    package static func makePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        let result = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        guard result == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }
}
