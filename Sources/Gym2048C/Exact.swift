// The exact-evaluation functions of gym2048.h: a policy outside Swift evaluated on a solution's board, the caller
// driving the loop (begin, then next / boards / answer until no board is left, then result), so that the policy is
// asked a whole layer of boards at a time and no callback crosses the ABI.
import CGym2048
import Game2048
import Game2048Solver
import Glibc
import Synchronization

/// An evaluation handle's box: the evaluator and the batch it gave last, behind a lock.
final class ExactBox: OwnedBox {
    struct State {
        var evaluator: PolicyEvaluator
        /// The boards of the last batch, until answered.
        var batch: [Board]? = nil
        var done = false
    }

    let state: Mutex<State>
    let owner: pid_t

    init(_ evaluator: sending PolicyEvaluator) {
        state = Mutex(State(evaluator: evaluator))
        owner = Handles.processID
    }
}

@_cdecl("g2048_exact_begin")
public func g2048ExactBegin(_ solution: Int64, _ symmetric: Int32, _ threads: Int32, _ evaluation: UnsafeMutablePointer<Int64>?)
    -> g2048_status
{
    call { () throws(CallError) in
        let box = try Handles.box(solution, as: SolutionBox.self)
        guard let evaluation else { throw .argument("evaluation must not be NULL") }
        guard (0...1).contains(symmetric) else { throw .argument("symmetric must be 0 or 1, got \(symmetric)") }
        guard (1...256).contains(threads) else { throw .argument("threads must be 1 to 256, got \(threads)") }
        let evaluator = PolicyEvaluator(solution: box.solution, symmetric: symmetric == 1, threads: Int(threads))
        evaluation.pointee = Handles.add(box: ExactBox(evaluator))
    }
}

@_cdecl("g2048_exact_destroy")
public func g2048ExactDestroy(_ evaluation: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(evaluation, as: ExactBox.self) }
}

@_cdecl("g2048_exact_next")
public func g2048ExactNext(_ evaluation: Int64, _ count: UnsafeMutablePointer<Int64>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(evaluation, as: ExactBox.self)
        guard let count else { throw .argument("count must not be NULL") }
        try box.state.withLock { state throws(CallError) in
            if let batch = state.batch {
                count.pointee = Int64(batch.count)  // asked again before answering: the same batch
                return
            }
            guard !state.done, let boards = state.evaluator.nextBoards() else {
                state.done = true
                count.pointee = 0
                return
            }
            state.batch = boards
            count.pointee = Int64(boards.count)
        }
    }
}

@_cdecl("g2048_exact_boards")
public func g2048ExactBoards(_ evaluation: Int64, _ boards: UnsafeMutablePointer<UInt8>?, _ masks: UnsafeMutablePointer<UInt8>?)
    -> g2048_status
{
    call { () throws(CallError) in
        let box = try Handles.box(evaluation, as: ExactBox.self)
        try box.state.withLock { state throws(CallError) in
            guard let batch = state.batch else { throw .argument("no batch is waiting: call g2048_exact_next first") }
            guard let boards else { throw .argument("boards must not be NULL") }
            let cells = state.evaluator.solution.rules.cellCount
            for (index, board) in batch.enumerated() {
                for (cell, exponent) in board.exponents.enumerated() { boards[index * cells + cell] = exponent }
            }
            if let masks {
                for (index, legal) in state.evaluator.legalMoves.enumerated() {
                    for direction in Direction.allCases { masks[4 * index + direction.rawValue] = legal.contains(direction) ? 1 : 0 }
                }
            }
        }
    }
}

@_cdecl("g2048_exact_answer")
public func g2048ExactAnswer(_ evaluation: Int64, _ moves: UnsafePointer<Int8>?, _ count: Int64) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(evaluation, as: ExactBox.self)
        try box.state.withLock { state throws(CallError) in
            guard let batch = state.batch else { throw .argument("no batch is waiting: call g2048_exact_next first") }
            guard count == Int64(batch.count) else { throw .argument("count must be the batch's \(batch.count) boards, got \(count)") }
            guard count == 0 || moves != nil else { throw .argument("moves must not be NULL") }
            var chosen: [ActionMask] = []
            chosen.reserveCapacity(batch.count)
            for index in 0..<batch.count {
                let move = moves![index]
                guard let direction = Direction(rawValue: Int(move)) else {
                    throw .argument("move \(index) must be an action 0 to 3, got \(move)")
                }
                chosen.append(ActionMask(direction))
            }
            do throws(PolicyMoveError) { try state.evaluator.answer(chosen) } catch { throw .argument(error.description) }
            state.batch = nil
        }
    }
}

@_cdecl("g2048_exact_progress")
public func g2048ExactProgress(
    _ evaluation: Int64, _ layers: UnsafeMutablePointer<Int64>?, _ totalLayers: UnsafeMutablePointer<Int64>?,
    _ work: UnsafeMutablePointer<Int64>?, _ totalWork: UnsafeMutablePointer<Int64>?, _ reached: UnsafeMutablePointer<Int64>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(evaluation, as: ExactBox.self)
        guard let layers, let totalLayers, let work, let totalWork, let reached else {
            throw .argument("layers, total_layers, work, total_work and reached must not be NULL")
        }
        box.state.withLock { state in
            let (progress, solution) = (state.evaluator.progress, state.evaluator.solution)
            layers.pointee = Int64(progress.layers)
            totalLayers.pointee = Int64(progress.totalLayers)
            work.pointee = Int64(solution.afterstates(beforeLayer: progress.layers))
            totalWork.pointee = Int64(solution.afterstates(beforeLayer: progress.totalLayers))
            reached.pointee = Int64(progress.afterstates)
        }
    }
}

@_cdecl("g2048_exact_result")
public func g2048ExactResult(
    _ evaluation: Int64, _ player: UnsafePointer<CChar>?, _ report: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(evaluation, as: ExactBox.self)
        guard let player else { throw .argument("player must not be NULL") }
        guard let report else { throw .argument("report must not be NULL") }
        let text = try box.state.withLock { state throws(CallError) -> String in
            guard state.done else { throw .argument("boards are still waiting for moves: call g2048_exact_next until it gives 0") }
            let solution = state.evaluator.solution
            return state.evaluator.result().json(player: String(cString: player), board: solution.rules.sizeLabel, objective: solution.objective)
        }
        report.pointee = ThreadText.answer(text)
    }
}
