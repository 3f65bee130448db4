import Game2048

/// A board's four moves, each legal afterstate's feature indices stored in a slot: what a greedy move
/// chooses among (``ValueFunction/candidates(on:table:slots:)``, ``ValueFunction/greedyMove(among:)``).
@usableFromInline
package struct MoveCandidates<V: ValueFunction> {
    /// The four moves' outcomes.
    @usableFromInline package var up, right, down, left: MoveOutcome<V.Position>
    /// Four slots of ``ValueFunction/storedFeatureCount`` indices, in `Direction` order (a legal move's are written).
    @usableFromInline package let slots: UnsafeMutablePointer<Int32>

    @inlinable @inline(__always)
    package init(
        up: MoveOutcome<V.Position>, right: MoveOutcome<V.Position>, down: MoveOutcome<V.Position>, left: MoveOutcome<V.Position>,
        slots: UnsafeMutablePointer<Int32>
    ) {
        (self.up, self.right, self.down, self.left, self.slots) = (up, right, down, left, slots)
    }

    /// The slot of `direction`'s afterstate.
    @inlinable @inline(__always)
    package func slot(_ direction: Direction) -> UnsafeMutablePointer<Int32> { slots + direction.rawValue &* V.storedFeatureCount }
}

/// What ``ValueFunction/greedyMove(among:)`` chose.
@usableFromInline
package struct GreedyChoice<Position> {
    /// The move (`up` when no move is legal).
    @usableFromInline package var direction: Direction
    /// The chosen afterstate (the board itself when no move is legal).
    @usableFromInline package var afterstate: Position
    /// Its reward.
    @usableFromInline package var reward: Int64
    /// The largest tile its merges made (an exponent, 0 for none).
    @usableFromInline package var highestMerge: UInt8
    /// `reward + V(afterstate)`.
    @usableFromInline package var value: Float
    /// Whether any move is legal.
    @usableFromInline package var found: Bool

    @inlinable @inline(__always)
    package init(direction: Direction, afterstate: Position, reward: Int64, highestMerge: UInt8, value: Float, found: Bool) {
        (self.direction, self.afterstate, self.reward, self.highestMerge, self.value, self.found) =
            (direction, afterstate, reward, highestMerge, value, found)
    }
}
