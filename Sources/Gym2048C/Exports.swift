// The functions gym2048.h declares, one @_cdecl each. Every argument is checked before anything
// changes, and every failure is a status with the protocol's error: nothing here may trap on the caller's input.
import CGym2048
import Game2048
import GymJSON
import GymServer

/// A C string made once and kept for the life of the process (static storage, written once, then only read).
func staticCString(_ text: String) -> UnsafeMutablePointer<CChar> {
    let bytes = Array(text.utf8CString)
    let memory = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    memory.initialize(from: bytes, count: bytes.count)
    return memory
}

nonisolated(unsafe) let libraryVersionCString = staticCString(Gym2048Version.current)
nonisolated(unsafe) let optionsCString = staticCString(ServerOption.tableJSON.serialized)

@_cdecl("g2048_library_version")
public func g2048LibraryVersion() -> UnsafePointer<CChar> { UnsafePointer(libraryVersionCString) }

@_cdecl("g2048_abi_version")
public func g2048ABIVersion() -> Int32 { Int32(G2048_ABI_VERSION) }

@_cdecl("g2048_rules_version")
public func g2048RulesVersion() -> Int32 { Int32(Rules.version) }

@_cdecl("g2048_last_error")
public func g2048LastError() -> UnsafePointer<CChar> { ThreadText.get(ThreadText.message, otherwise: ThreadText.empty) }

@_cdecl("g2048_last_error_json")
public func g2048LastErrorJSON() -> UnsafePointer<CChar> { ThreadText.get(ThreadText.json, otherwise: ThreadText.null) }

@_cdecl("g2048_options")
public func g2048Options() -> UnsafePointer<CChar> { UnsafePointer(optionsCString) }

/// A JSON text argument, parsed as a request line is (NULL: absent).
func json(_ text: UnsafePointer<CChar>?, name: String) throws(CallError) -> JSONValue? {
    guard let text else { return nil }
    do throws(JSONParseError) {
        return try JSONValue.parse(Array(String(cString: text).utf8))
    } catch {
        throw CallError(.parseError("\(name): \(error.description)"))
    }
}

@_cdecl("g2048_make")
public func g2048Make(_ config: UnsafePointer<CChar>?, _ handle: UnsafeMutablePointer<Int64>?) -> g2048_status {
    call { () throws(CallError) in
        guard let handle else { throw .argument("handle must not be NULL") }
        let options = try json(config, name: "config") ?? .object([])
        var session = GameSession(config: ServerConfig())
        _ = try CallError.rethrowing { () throws(RPCError) in try session.call("make", params: options) }
        _ = try session.config.checkedInProcess()
        handle.pointee = Handles.add(session)
    }
}

@_cdecl("g2048_destroy")
public func g2048Destroy(_ handle: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(handle) }
}

@_cdecl("g2048_layout_get")
public func g2048LayoutGet(_ handle: Int64, _ layout: UnsafeMutablePointer<g2048_layout>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let layout else { throw .argument("layout must not be NULL") }
        layout.pointee = box.session.withLock { session in
            guard let space = session.declaredSpace, let (_, numEnvs) = session.declaredColumns else { return session.config.layout }
            let shape = space.observation.shape
            return g2048_layout(
                num_envs: Int64(numEnvs), rows: Int32(shape.first ?? 1), cols: Int32(shape.dropFirst().reduce(1, *)),
                values_per_observation: Int64(space.observation.count), observation_dtype: Int32(space.observation.type.byteCount),
                num_actions: Int64(space.actionCount))
        }
    }
}

@_cdecl("g2048_call")
public func g2048Call(
    _ handle: Int64, _ method: UnsafePointer<CChar>?, _ params: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let method else { throw .argument("method must not be NULL") }
        guard let result else { throw .argument("result must not be NULL") }
        let name = String(cString: method)
        let parameters = try json(params, name: "params")
        let answer = try box.session.withLock { session throws(CallError) -> JSONValue in
            // `make` alone changes the configuration, and the in-process door refuses some (info "moves") that the
            // protocol takes: it runs on a copy kept only if the door takes it. The other methods run in place,
            // so that a `step` does not copy the environments.
            guard name == "make" else { return try CallError.rethrowing { () throws(RPCError) in try session.call(name, params: parameters) } }
            var next = session
            let answer = try CallError.rethrowing { () throws(RPCError) in try next.call(name, params: parameters) }
            _ = try next.config.checkedInProcess()
            session = next
            return answer
        }
        result.pointee = ThreadText.answer(answer.serialized)
    }
}

@_cdecl("g2048_spec")
public func g2048Spec(_ handle: Int64, _ spec: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        guard let spec else { throw .argument("spec must not be NULL") }
        spec.pointee = ThreadText.answer(box.session.withLock { $0.spec }.serialized)
    }
}

@_cdecl("g2048_reset")
public func g2048Reset(_ handle: Int64, _ params: UnsafePointer<CChar>?, _ out: UnsafePointer<g2048_buffers>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        let parameters = try json(params, name: "params")
        try box.session.withLock { session throws(CallError) in
            try CallError.rethrowing { () throws(RPCError) in try session.requireBuffers() }
            let buffers = try CBuffers(out, config: session.config)
            try CallError.rethrowing { () throws(RPCError) in try session.reset(params: parameters, into: buffers.buffers) }
            buffers.finish()
        }
    }
}

@_cdecl("g2048_step")
public func g2048Step(
    _ handle: Int64, _ actions: UnsafePointer<UInt8>?, _ numActions: Int64, _ out: UnsafePointer<g2048_buffers>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(handle)
        try box.session.withLock { session throws(CallError) in
            try CallError.rethrowing { () throws(RPCError) in try session.requireBuffers() }
            let buffers = try CBuffers(out, config: session.config)
            guard let actions else { throw .argument("actions must not be NULL") }
            guard numActions == Int64(session.config.numEnvs) else {
                throw .argument("actions must have \(session.config.numEnvs) entries, got \(numActions)")
            }
            try CallError.rethrowing { () throws(RPCError) in
                try session.step(UnsafeBufferPointer(start: actions, count: Int(numActions)), into: buffers.buffers)
            }
            buffers.finish()
        }
    }
}
