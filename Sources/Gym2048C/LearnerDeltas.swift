// The learner's sparse deltas (gym2048.h): the weights that moved since the last export, as indices and changes,
// and their application to another learner, for training spread over processes.
import CGym2048
import Game2048Network

extension LearnerState {
    /// The indices of the weights whose bits differ from the last export, and each one's change since; `nil`
    /// before the first export.
    func delta() -> (indices: [Int64], changes: [Float])? {
        guard let exported else { return nil }
        var (indices, changes): ([Int64], [Float]) = ([], [])
        let weights = setup.network.weights
        for index in 0..<weights.count where weights[index].bitPattern != exported[index].bitPattern {
            indices.append(Int64(index))
            changes.append(weights[index] - exported[index])
        }
        return (indices, changes)
    }
}

@_cdecl("g2048_learner_delta")
public func g2048LearnerDelta(
    _ learner: Int64, _ indices: UnsafeMutablePointer<Int64>?, _ changes: UnsafeMutablePointer<Float>?, _ capacity: Int64,
    _ count: UnsafeMutablePointer<Int64>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let count else { throw .argument("count must not be NULL") }
        guard capacity >= 0 else { throw .argument("capacity must be 0 or more, got \(capacity)") }
        guard capacity == 0 || (indices != nil && changes != nil) else { throw .argument("indices and changes must not be NULL") }
        try box.value.withLock { state throws(CallError) in
            guard let (moved, deltas) = state.delta() else {
                throw .argument("no weights exported yet: a delta is the change since the last weights, set_weights, delta or apply_delta")
            }
            count.pointee = Int64(moved.count)
            // Too small a buffer gets the count only, and the export stays where it was: the caller asks again.
            guard moved.count <= capacity else { return }
            for (slot, index) in moved.enumerated() {
                (indices![slot], changes![slot]) = (index, deltas[slot])
                state.exported![Int(index)] = state.setup.network.weights[Int(index)]
            }
        }
    }
}

@_cdecl("g2048_learner_apply_delta")
public func g2048LearnerApplyDelta(
    _ learner: Int64, _ indices: UnsafePointer<Int64>?, _ changes: UnsafePointer<Float>?, _ count: Int64
) -> g2048_status {
    changeWeights(learner, indices, changes, count, names: "indices and changes") { $0 += $1 }
}

@_cdecl("g2048_learner_assign")
public func g2048LearnerAssign(
    _ learner: Int64, _ indices: UnsafePointer<Int64>?, _ values: UnsafePointer<Float>?, _ count: Int64
) -> g2048_status {
    changeWeights(learner, indices, values, count, names: "indices and values") { $0 = $1 }
}

/// Checks `count` indices and their numbers, then changes each weight, and the export with it (another learner's
/// change is no change of this one's to send back), by `change`: a delta's addition, or an assignment.
private func changeWeights(
    _ learner: Int64, _ indices: UnsafePointer<Int64>?, _ numbers: UnsafePointer<Float>?, _ count: Int64, names: String,
    change: (inout Float, Float) -> Void
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        try box.value.withLock { state throws(CallError) in
            let weights = state.setup.network.weights
            guard count >= 0, count <= Int64(weights.count) else {
                throw .argument("count must be 0 to the network's \(weights.count) weights, got \(count)")
            }
            guard count == 0 || (indices != nil && numbers != nil) else { throw .argument("\(names) must not be NULL") }
            for slot in 0..<Int(count) where !(0..<Int64(weights.count)).contains(indices![slot]) {
                throw .argument("indices[\(slot)] must be 0 to \(weights.count - 1), got \(indices![slot])")
            }
            if state.exported == nil { state.exported = weights.withBytes { Array($0.bindMemory(to: Float.self)) } }
            for slot in 0..<Int(count) {
                let index = Int(indices![slot])
                change(&weights[index], numbers![slot])
                change(&state.exported![index], numbers![slot])
            }
        }
    }
}
