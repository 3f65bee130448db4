import Dispatch
import Synchronization

/// `body` over `0..<count` cut into contiguous ranges, run on up to `threads` threads; the ranges' results in
/// order. A range is never smaller than `minimum` items, so that small layers are not scattered over threads.
func parallelChunks<T: Sendable>(
    count: Int, threads: Int, minimum: Int = 4096, _ body: @Sendable (Range<Int>) -> T
) -> [T] {
    let chunks = max(1, min(threads * 4, count / max(1, minimum)))
    let bounds = (0...chunks).map { count * $0 / chunks }
    if chunks == 1 || threads <= 1 { return (0..<chunks).map { body(bounds[$0]..<bounds[$0 + 1]) } }
    let results = Mutex<[T?]>(Array(repeating: nil, count: chunks))
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: min(threads, chunks)) { _ in
        while true {
            let chunk = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard chunk < chunks else { return }
            let result = body(bounds[chunk]..<bounds[chunk + 1])
            results.withLock { $0[chunk] = result }
        }
    }
    return results.withLock { $0.map { $0! } }
}
