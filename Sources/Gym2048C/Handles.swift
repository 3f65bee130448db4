import CGym2048
import Game2048
import Game2048Server
import Synchronization

/// One handle's session behind its lock: calls on the same handle from several threads take turns; calls on
/// different handles never wait for each other.
final class HandleBox: Sendable {
    let session: Mutex<GameSession>

    init(_ session: GameSession) { self.session = Mutex(session) }
}

/// The live handles. A handle is a number, never reused, not a pointer: a destroyed or invented handle is an
/// unknown number, an error, never memory read after it was freed.
enum Handles {
    static let table = Mutex<(next: Int64, boxes: [Int64: HandleBox])>((1, [:]))

    static func add(_ session: GameSession) -> Int64 {
        let box = HandleBox(session)
        return table.withLock { table in
            let handle = table.next
            table.next += 1
            table.boxes[handle] = box
            return handle
        }
    }

    static func box(_ handle: Int64) throws(CallError) -> HandleBox {
        guard let box = table.withLock({ $0.boxes[handle] }) else { throw CallError(.invalidHandle(handle)) }
        return box
    }

    static func remove(_ handle: Int64) throws(CallError) {
        guard table.withLock({ $0.boxes.removeValue(forKey: handle) }) != nil else { throw CallError(.invalidHandle(handle)) }
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
            observation_dtype: Int32(encoding.dtype.byteCount))
    }
}
