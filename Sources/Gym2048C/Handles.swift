import CGym2048
import Game2048
import Synchronization

/// One handle's environments behind its lock: calls on the same handle from several threads take
/// turns; calls on different handles never wait for each other.
final class HandleBox: Sendable {
    let environments: Mutex<VectorEnvironment>
    /// What the handle's info reports; fixed at creation.
    let info: g2048_env_info

    init(_ environments: VectorEnvironment) {
        let rules = environments.rules
        info = g2048_env_info(
            num_envs: Int64(environments.count), rows: Int32(rules.rows), cols: Int32(rules.cols),
            largest_exponent: Int32(rules.largestExponent), autoreset_mode: Handles.code(of: environments.autoresetMode))
        self.environments = Mutex(environments)
    }
}

/// The live handles. A handle is a number, never reused, not a pointer: a destroyed or invented
/// handle is an unknown number, an error, never memory read after it was freed.
enum Handles {
    static let table = Mutex<(next: Int64, boxes: [Int64: HandleBox])>((1, [:]))

    static func add(_ environments: VectorEnvironment) -> Int64 {
        let box = HandleBox(environments)
        return table.withLock { table in
            let handle = table.next
            table.next += 1
            table.boxes[handle] = box
            return handle
        }
    }

    static func box(_ handle: Int64) throws(CallError) -> HandleBox {
        guard let box = table.withLock({ $0.boxes[handle] }) else {
            throw CallError(G2048_INVALID_HANDLE, "handle \(handle) is not a live handle (never created, or destroyed)")
        }
        return box
    }

    static func remove(_ handle: Int64) throws(CallError) {
        guard table.withLock({ $0.boxes.removeValue(forKey: handle) }) != nil else {
            throw CallError(G2048_INVALID_HANDLE, "handle \(handle) is not a live handle (never created, or destroyed)")
        }
    }

    /// The C code of an autoreset mode.
    static func code(of mode: AutoresetMode) -> Int32 {
        switch mode {
        case .nextStep: Int32(G2048_AUTORESET_NEXT_STEP)
        case .sameStep: Int32(G2048_AUTORESET_SAME_STEP)
        case .disabled: Int32(G2048_AUTORESET_DISABLED)
        }
    }

    /// The autoreset mode of a C code.
    static func mode(of code: Int32) throws(CallError) -> AutoresetMode {
        switch code {
        case Int32(G2048_AUTORESET_NEXT_STEP): .nextStep
        case Int32(G2048_AUTORESET_SAME_STEP): .sameStep
        case Int32(G2048_AUTORESET_DISABLED): .disabled
        default: throw CallError.argument("autoreset_mode must be 0 (next step), 1 (same step) or 2 (disabled), got \(code)")
        }
    }
}
