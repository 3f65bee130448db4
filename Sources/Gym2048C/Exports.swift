// The functions gym2048.h declares, one @_cdecl each. Every argument is checked before anything
// changes, and every failure is a status with a message: nothing here may trap on the caller's input.
import CGym2048
import Game2048
import Game2048JSON

/// The library's version.
let libraryVersion = "0.2.0"
/// The same string in static storage, for C (written once, then only read).
nonisolated(unsafe) let libraryVersionCString: UnsafeMutablePointer<CChar> = {
    let bytes = Array(libraryVersion.utf8CString)
    let memory = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    memory.initialize(from: bytes, count: bytes.count)
    return memory
}()

@_cdecl("g2048_library_version")
public func g2048LibraryVersion() -> UnsafePointer<CChar> { UnsafePointer(libraryVersionCString) }

@_cdecl("g2048_abi_version")
public func g2048ABIVersion() -> Int32 { Int32(G2048_ABI_VERSION) }

@_cdecl("g2048_rules_version")
public func g2048RulesVersion() -> Int32 { Int32(Rules.version) }

@_cdecl("g2048_last_error")
public func g2048LastError() -> UnsafePointer<CChar> { LastError.current }

@_cdecl("g2048_rules_default")
public func g2048RulesDefault(_ rules: UnsafeMutablePointer<g2048_rules>?) {
    rules?.pointee = CRules.defaults
}

@_cdecl("g2048_create")
public func g2048Create(
    _ rules: UnsafePointer<g2048_rules>?, _ autoresetMode: Int32, _ numEnvs: Int64, _ seed: UInt64,
    _ handle: UnsafeMutablePointer<Int64>?
) -> g2048_status {
    call { () throws(CallError) in
        guard let rules else { throw .argument("rules must not be NULL") }
        guard let handle else { throw .argument("handle must not be NULL") }
        let parsed = try CRules.parse(rules.pointee)
        let mode = try Handles.mode(of: autoresetMode)
        guard (1...65_536).contains(numEnvs) else { throw .argument("num_envs must be between 1 and 65536, got \(numEnvs)") }
        let environments = VectorEnvironment(rules: parsed, count: Int(numEnvs), autoresetMode: mode, seed: seed, infoFields: [])
        handle.pointee = Handles.add(environments)
    }
}

@_cdecl("g2048_destroy")
public func g2048Destroy(_ handle: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(handle) }
}

@_cdecl("g2048_env_info_get")
public func g2048EnvInfoGet(_ handle: Int64, _ info: UnsafeMutablePointer<g2048_env_info>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let info else { throw .argument("info must not be NULL") }
        info.pointee = box.info
    }
}

@_cdecl("g2048_reset")
public func g2048Reset(
    _ handle: Int64, _ seed: UnsafePointer<UInt64>?, _ board: UnsafePointer<Int64>?, _ out: UnsafePointer<g2048_buffers>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let count = Int(box.info.num_envs)
        let seeds: [UInt64?] = seed.map { VectorEnvironment.seeds(from: $0.pointee, count: count) } ?? Array(repeating: nil, count: count)
        try reset(box, seeds: seeds, board: board, out: out)
    }
}

@_cdecl("g2048_reset_each")
public func g2048ResetEach(
    _ handle: Int64, _ seeds: UnsafePointer<UInt64>?, _ given: UnsafePointer<UInt8>?, _ board: UnsafePointer<Int64>?,
    _ out: UnsafePointer<g2048_buffers>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let seeds else { throw .argument("seeds must not be NULL (use g2048_reset to continue every stream)") }
        let each = (0..<Int(box.info.num_envs)).map { index in given.map { $0[index] == 0 } ?? false ? nil : seeds[index] }
        try reset(box, seeds: each, board: board, out: out)
    }
}

func reset(_ box: HandleBox, seeds: [UInt64?], board values: UnsafePointer<Int64>?, out: UnsafePointer<g2048_buffers>?) throws(CallError) {
    let buffers = try CBuffers.parse(out, info: box.info)
    try box.environments.withLock { environments throws(CallError) in
        let board = try values.map { values throws(CallError) in try CRules.board(values, for: environments.rules) }
        do throws(RulesError) {
            try environments.reset(seeds: seeds, board: board, into: buffers)
        } catch {
            throw .argument("board: \(error.description)")
        }
    }
}

@_cdecl("g2048_reset_one")
public func g2048ResetOne(
    _ handle: Int64, _ index: Int64, _ seed: UnsafePointer<UInt64>?, _ out: UnsafePointer<g2048_buffers>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let buffers = try CBuffers.parse(out, info: box.info)
        guard (0..<box.info.num_envs).contains(index) else {
            throw .argument("index must be between 0 and \(box.info.num_envs - 1), got \(index)")
        }
        box.environments.withLock { $0.reset(index: Int(index), seed: seed?.pointee, into: buffers) }
    }
}

@_cdecl("g2048_step")
public func g2048Step(
    _ handle: Int64, _ actions: UnsafePointer<UInt8>?, _ numActions: Int64, _ out: UnsafePointer<g2048_buffers>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let count = box.info.num_envs
        let buffers = try CBuffers.parse(out, info: box.info)
        guard let actions else { throw .argument("actions must not be NULL") }
        guard numActions == count else { throw .argument("actions must have \(count) entries, got \(numActions)") }
        for index in 0..<Int(count) where actions[index] > 3 {
            throw .argument("actions[\(index)] must be 0..3 (up, right, down, left), got \(actions[index])")
        }
        try box.environments.withLock { environments throws(CallError) in
            guard environments.isReset else { throw CallError(G2048_NOT_RESET, "not reset: call g2048_reset first") }
            do throws(VectorStepError) {
                try environments.step(UnsafeBufferPointer(start: actions, count: Int(count)), into: buffers)
            } catch {
                switch error {
                case .illegalAction: throw CallError(G2048_ILLEGAL_ACTION, "illegal action: \(error.description)")
                case .episodesOver(let indices):
                    throw CallError(
                        G2048_EPISODE_OVER,
                        "episode over: \(indices.count == 1 ? "environment" : "environments") \(VectorStepError.list(indices)) "
                            + "ended; with autoreset disabled call g2048_reset_one first")
                }
            }
        }
    }
}

@_cdecl("g2048_afterstates")
public func g2048Afterstates(
    _ handle: Int64, _ numEnvs: Int64, _ legal: UnsafeMutablePointer<UInt8>?, _ rewards: UnsafeMutablePointer<Int64>?,
    _ boards: UnsafeMutablePointer<UInt8>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard numEnvs == box.info.num_envs else {
            throw .argument("num_envs must be the handle's \(box.info.num_envs), got \(numEnvs)")
        }
        box.environments.withLock { environments in
            let cells = environments.rules.cellCount
            for index in 0..<environments.count {
                let environment = environments.environment(at: index)
                // A finished environment has no legal move, as its action mask says.
                let running = environment.currentPhase == .running
                for afterstate in environment.afterstates() {
                    let slot = index * 4 + afterstate.direction.rawValue
                    legal?[slot] = running && afterstate.legal ? 1 : 0
                    rewards?[slot] = running && afterstate.legal ? afterstate.reward : 0
                    if let boards {
                        for (cell, exponent) in afterstate.board.exponents.enumerated() { boards[slot * cells + cell] = exponent }
                    }
                }
            }
        }
    }
}

@_cdecl("g2048_render")
public func g2048Render(
    _ handle: Int64, _ ansi: Int32, _ text: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ needed: UnsafeMutablePointer<Int>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let rendered = box.environments.withLock { environments in
            // The lanes' boards: the observations went to the caller's buffers, not the environment's own.
            (0..<environments.count).map { environments.environment(at: $0).board.render(colored: ansi != 0) }
                .joined(separator: "\n\n")
        }
        let bytes = Array(rendered.utf8CString)
        needed?.pointee = bytes.count
        guard let text, capacity >= bytes.count else {
            throw CallError(G2048_TOO_SMALL, "text needs \(bytes.count) bytes, capacity is \(capacity)")
        }
        bytes.withUnsafeBufferPointer { text.update(from: $0.baseAddress!, count: bytes.count) }
    }
}
