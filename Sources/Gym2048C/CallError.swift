import CGym2048
import GymJSON
import GymServer
import Glibc

/// Why a C call failed: its status and the protocol's error (code, message, data), which
/// `g2048_last_error` and `g2048_last_error_json` return.
struct CallError: Error {
    let status: g2048_status
    let error: RPCError

    /// A failure in the protocol's terms, with the status that stands for its code.
    init(_ error: RPCError) {
        self.error = error
        status =
            switch error {
            case .invalidParams, .invalidOption, .unknownOption: G2048_INVALID_ARGUMENT
            case .notReset: G2048_NOT_RESET
            case .episodeOver: G2048_EPISODE_OVER
            case .illegalAction: G2048_ILLEGAL_ACTION
            case .invalidHandle, .inheritedHandle: G2048_INVALID_HANDLE
            case .parseError, .invalidRequest, .methodNotFound, .internalError: G2048_FAILED
            }
    }

    /// `body`'s result, its protocol error as a call's error.
    static func rethrowing<Result>(_ body: () throws(RPCError) -> Result) throws(CallError) -> Result {
        do { return try body() } catch { throw CallError(error) }
    }

    /// A bad argument of the C call itself (a NULL or mis-sized buffer): invalid params, in the protocol's words.
    static func argument(_ message: String) -> CallError { CallError(.invalidParams(message)) }
}

/// What each thread's last failed call left, and its last call's result text, in thread-local storage (as
/// `errno` and `dlerror` keep theirs): no lock, and one thread's failure never shows in another's.
enum ThreadText {
    /// One slot per kind of text; each key's destructor frees a thread's text when the thread exits.
    static let message = key(), json = key(), result = key()

    static func key() -> pthread_key_t {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }

    /// An empty C string and "null", returned when a thread has no text (written once, then only read).
    nonisolated(unsafe) static let empty: UnsafeMutablePointer<CChar> = strdup("")!
    nonisolated(unsafe) static let null: UnsafeMutablePointer<CChar> = strdup("null")!

    static func set(_ key: pthread_key_t, _ text: String) {
        free(pthread_getspecific(key))
        pthread_setspecific(key, strdup(text))
    }

    static func get(_ key: pthread_key_t, otherwise fallback: UnsafeMutablePointer<CChar>) -> UnsafePointer<CChar> {
        UnsafePointer((pthread_getspecific(key) ?? UnsafeMutableRawPointer(fallback)).assumingMemoryBound(to: CChar.self))
    }

    /// `text` as this thread's result, valid until its next call: what a function hands back through its
    /// `const char **` argument.
    static func answer(_ text: String) -> UnsafePointer<CChar> {
        set(result, text)
        return get(result, otherwise: null)
    }
}

/// Runs the body of a C call: its status, with the error kept for `g2048_last_error` on failure.
func call(_ body: () throws(CallError) -> Void) -> g2048_status {
    do {
        try body()
        return G2048_OK
    } catch {
        ThreadText.set(ThreadText.message, error.error.message)
        ThreadText.set(ThreadText.json, error.error.json.serialized)
        return error.status
    }
}
