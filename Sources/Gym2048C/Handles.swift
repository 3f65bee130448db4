import CGym2048
import Game2048
import GymServer
import Glibc
import Synchronization

/// What a handle stands for (a session, a player), with the process that made it.
protocol OwnedBox: AnyObject, Sendable {
    /// The process that made it: a forked child's calls on it are refused.
    var owner: pid_t { get }
}

/// One handle's session behind its lock: calls on the same handle from several threads take turns; calls on
/// different handles never wait for each other.
final class HandleBox: OwnedBox {
    let session: Mutex<GameSession>
    /// The process that made the handle: a child forked from it gets an error, never the lock, which a thread of
    /// the parent may have held at the fork.
    let owner: pid_t

    init(_ session: GameSession) {
        self.session = Mutex(session)
        owner = Handles.processID
    }
}

/// A handle's value behind a lock (calls on the same handle take turns), and the process that made it.
final class LockedBox<Value>: OwnedBox {
    let value: Mutex<Value>
    let owner: pid_t

    init(_ value: sending Value) {
        self.value = Mutex(value)
        owner = Handles.processID
    }
}

/// The live handles. A handle is a number, never reused, not a pointer: a destroyed or invented handle is an
/// unknown number, an error, never memory read after it was freed.
///
/// The table's lock is a pthread mutex held across `fork()` (by `pthread_atfork` handlers), so a child never
/// inherits it locked by a thread it does not have: a child can always make new handles, and its calls on the
/// parent's handles are errors that say so.
enum Handles {
    /// The table's lock, made once; its address never changes.
    nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        pthread_atfork(
            { pthread_mutex_lock(Handles.lock) }, { pthread_mutex_unlock(Handles.lock) },
            {
                Handles.processID = getpid()
                pthread_mutex_unlock(Handles.lock)
            })
        return lock
    }()
    /// This process's id: read once, and again in a child by the fork handler above (registered before the first
    /// read), so that a call on a handle compares it with the handle's owner without a `getpid` system call.
    nonisolated(unsafe) static var processID: pid_t = {
        _ = lock
        return getpid()
    }()
    /// The next handle and the live ones: read and written only with ``lock`` held.
    nonisolated(unsafe) static var next: Int64 = 1
    nonisolated(unsafe) static var boxes: [Int64: any OwnedBox] = [:]

    /// `body` with the table's lock held.
    static func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    static func add(_ session: GameSession) -> Int64 { add(box: HandleBox(session)) }

    static func add(box: any OwnedBox) -> Int64 {
        locked {
            let handle = next
            next += 1
            boxes[handle] = box
            return handle
        }
    }

    /// The live session handle's box, made by this process.
    static func box(_ handle: Int64) throws(CallError) -> HandleBox { try box(handle, as: HandleBox.self) }

    /// The live handle's box if it is one of `kind` (a player's handle is no session's, and the other way
    /// round), made by this process.
    static func box<Box: OwnedBox>(_ handle: Int64, as kind: Box.Type) throws(CallError) -> Box {
        guard let box = locked({ boxes[handle] }) as? Box else { throw CallError(.invalidHandle(handle)) }
        guard box.owner == processID else { throw CallError(.inheritedHandle(handle, owner: box.owner)) }
        return box
    }

    /// Forgets a session handle (an inherited one too: a child may drop the parent's handles it holds).
    static func remove(_ handle: Int64) throws(CallError) { try remove(handle, as: HandleBox.self) }

    /// Forgets a handle of `kind`.
    static func remove<Box: OwnedBox>(_ handle: Int64, as kind: Box.Type) throws(CallError) {
        let removed = locked { () -> Bool in
            guard boxes[handle] is Box else { return false }
            boxes[handle] = nil
            return true
        }
        guard removed else { throw CallError(.invalidHandle(handle)) }
    }
}

extension ServerConfig {
    /// The in-process door writes results into buffers, which have no column for tile movements: a
    /// configuration that asks for them is refused there, with the option named as `make` names it.
    func checkedInProcess() throws(CallError) -> ServerConfig {
        guard !info.contains(.moves) else {
            throw CallError(
                .invalidOption(
                    ServerOption.info.name,
                    reason: "\"moves\" is served by g2048 serve only (from Python: backend=\"server\"); in-process results have no tile movements"))
        }
        return self
    }

    /// The shape of results under this configuration.
    var layout: g2048_layout {
        let encoding = observation
        return g2048_layout(
            num_envs: Int64(numEnvs), rows: Int32(rules.rows), cols: Int32(rules.cols),
            values_per_observation: Int64(encoding.count(rows: rules.rows, cols: rules.cols)),
            observation_dtype: Int32(encoding.dtype.byteCount), num_actions: Int64(Direction.allCases.count))
    }
}
