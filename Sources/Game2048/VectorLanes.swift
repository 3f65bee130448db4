// The state of a vector environment's boards, one entry per environment in flat columns
// (structure of arrays): the step loop reads each column at the lane's index through a
// raw pointer, with no bounds check, no copy-on-write check and no retain inside the loop.
// Value semantics come from the owner: `VectorEnvironment` copies these columns before it
// mutates them whenever another value shares them (`isKnownUniquelyReferenced`).

/// The columns of lane state behind a ``VectorEnvironment``.
final class VectorLanes: @unchecked Sendable {
    /// The number of lanes.
    let count: Int
    /// Each lane's generator.
    let generators: UnsafeMutablePointer<Xoshiro256StarStar>
    /// Each 4×4 lane's board while its largest tile is below 2^15 (unused on other sizes).
    let packed: UnsafeMutablePointer<UInt64>
    /// Every other lane's board: all lanes on other sizes, a 4×4 lane from 2^15 on.
    let boards: UnsafeMutablePointer<Board>
    /// Each lane's episode counters.
    let episodes: UnsafeMutablePointer<Episode>
    /// Lanes never reset yet: a step needs 0.
    var unstarted: Int

    /// `count` lanes, never reset, with the given generators and empty boards of `rules`' size.
    init(rules: Rules, generators seeds: [Xoshiro256StarStar]) {
        count = seeds.count
        generators = .allocate(capacity: count)
        generators.initialize(from: seeds, count: count)
        packed = .allocate(capacity: count)
        packed.initialize(repeating: 0, count: count)
        boards = .allocate(capacity: count)
        boards.initialize(repeating: Board(rules: rules), count: count)
        episodes = .allocate(capacity: count)
        episodes.initialize(repeating: .unstarted, count: count)
        unstarted = count
    }

    /// A copy of every column.
    init(copying other: VectorLanes) {
        count = other.count
        generators = .allocate(capacity: count)
        generators.initialize(from: other.generators, count: count)
        packed = .allocate(capacity: count)
        packed.initialize(from: other.packed, count: count)
        boards = .allocate(capacity: count)
        boards.initialize(from: other.boards, count: count)
        episodes = .allocate(capacity: count)
        episodes.initialize(from: other.episodes, count: count)
        unstarted = other.unstarted
    }

    deinit {
        generators.deallocate()
        packed.deallocate()
        boards.deallocate()
        episodes.deallocate()
    }
}

extension VectorLanes: CustomDebugStringConvertible {
    /// Every column's entries: what `String(reflecting:)` of an environment shows, so that two
    /// environments in different states never print alike.
    var debugDescription: String {
        "VectorLanes(generators: \(Array(UnsafeBufferPointer(start: generators, count: count))), "
            + "packed: \(Array(UnsafeBufferPointer(start: packed, count: count))), "
            + "boards: \(Array(UnsafeBufferPointer(start: boards, count: count))), "
            + "episodes: \(Array(UnsafeBufferPointer(start: episodes, count: count))), unstarted: \(unstarted))"
    }
}
