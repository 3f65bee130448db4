#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signals and exit: what a command that must save or restore something first needs of the process.
package enum SystemProcess {
    /// SIGINT: Ctrl-C.
    package static let interrupt = SIGINT
    /// SIGTERM: a polite kill.
    package static let terminate = SIGTERM
    /// SIGHUP: the terminal went away.
    package static let hangUp = SIGHUP
    /// SIGPIPE: a write to a pipe nobody reads.
    package static let brokenPipe = SIGPIPE
    /// SIGXFSZ: a write past the file-size limit (`ulimit -f`); ignored, the write fails with `EFBIG`.
    package static let fileSizeExceeded = SIGXFSZ

    /// Unblocks `numbers`: a parent may have started the process with them blocked (the mask is inherited).
    package static func unblock(_ numbers: [Int32]) {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in numbers { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Ignores a signal (so that, say, a write to a closed pipe fails with `EPIPE` instead of killing the process).
    package static func ignore(_ number: Int32) { signal(number, SIG_IGN) }

    /// Gives a signal its default action back.
    package static func restoreDefault(_ number: Int32) { signal(number, SIG_DFL) }

    /// This process's id.
    package static var id: Int32 { getpid() }

    /// Ends the process at once with `code`, without running anything else: safe in a signal handler.
    package static func exitImmediately(_ code: Int32) -> Never { _exit(code) }

    /// Ends the process with `code`, the normal way.
    package static func exit(_ code: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(code)
        #else
        Darwin.exit(code)
        #endif
    }
}
