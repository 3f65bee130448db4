import CGym2048
import Glibc

/// Why a C call failed: its status and the message `g2048_last_error` returns.
struct CallError: Error {
    let status: g2048_status
    let message: String

    init(_ status: g2048_status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A bad argument: an option, a buffer, an action, a seed or a board.
    static func argument(_ message: String) -> CallError { CallError(G2048_INVALID_ARGUMENT, message) }
}

/// The message of each thread's last failed call, in thread-local storage (as `errno` and
/// `dlerror` keep theirs): no lock, and one thread's failure never shows in another.
enum LastError {
    /// The key of the thread-local slot; its destructor frees a thread's message when it exits.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// An empty C string, returned when a thread has no message (written once, then only read).
    nonisolated(unsafe) static let empty: UnsafeMutablePointer<CChar> = strdup("")!

    static func set(_ message: String) {
        free(pthread_getspecific(key))
        pthread_setspecific(key, strdup(message))
    }

    static var current: UnsafePointer<CChar> {
        UnsafePointer((pthread_getspecific(key) ?? UnsafeMutableRawPointer(empty)).assumingMemoryBound(to: CChar.self))
    }
}

/// Runs the body of a C call: its status, with the message kept for `g2048_last_error` on failure.
func call(_ body: () throws(CallError) -> Void) -> g2048_status {
    do {
        try body()
        return G2048_OK
    } catch {
        LastError.set(error.message)
        return error.status
    }
}
