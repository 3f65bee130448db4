// The solution functions of gym2048.h: a `g2048 solve` file loaded in-process, answering on a batch of boards the
// optimal value of each action (regret and Q-errors follow from them), of each board, and its optimal move.
import CGym2048
import Game2048
import GymJSON
import Game2048Solver
import GymServer
import Glibc

/// A solution handle's box: a read-only solution (calls need no lock), and the process that loaded it.
final class SolutionBox: OwnedBox {
    let solution: Solution
    let owner: pid_t

    init(_ solution: Solution) {
        self.solution = solution
        owner = Handles.processID
    }
}

@_cdecl("g2048_solution_load")
public func g2048SolutionLoad(_ path: UnsafePointer<CChar>?, _ solution: UnsafeMutablePointer<Int64>?) -> g2048_status {
    call { () throws(CallError) in
        guard let path else { throw .argument("path must not be NULL") }
        guard let solution else { throw .argument("solution must not be NULL") }
        do throws(SolutionFileError) {
            solution.pointee = Handles.add(box: SolutionBox(try Solution.load(from: String(cString: path))))
        } catch {
            throw .argument(error.description)
        }
    }
}

@_cdecl("g2048_solution_destroy")
public func g2048SolutionDestroy(_ solution: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(solution, as: SolutionBox.self) }
}

@_cdecl("g2048_solution_info")
public func g2048SolutionInfo(_ solution: Int64, _ info: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(solution, as: SolutionBox.self)
        guard let info else { throw .argument("info must not be NULL") }
        let solved = box.solution
        let text = JSONValue.object([
            ("rows", .integer(Int128(solved.rules.rows))), ("cols", .integer(Int128(solved.rules.cols))),
            ("afterstates", .integer(Int128(solved.afterstateCount))), ("expected_score", .double(solved.expectedScore)),
            ("objective", .string(solved.objective.rawValue)),
            ("rules", JSONValue(rules: solved.rules)),
        ]).serialized
        info.pointee = ThreadText.answer(text)
    }
}

@_cdecl("g2048_solution_action_values")
public func g2048SolutionActionValues(
    _ solution: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ values: UnsafeMutablePointer<Double>?
) -> g2048_status {
    answering(solution, exponents, count, values, named: "values") { solved, index, board, values in
        for (action, value) in solved.actionValues(on: board).enumerated() { values[4 * index + action] = value ?? .nan }
    }
}

@_cdecl("g2048_solution_values")
public func g2048SolutionValues(
    _ solution: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ values: UnsafeMutablePointer<Double>?
) -> g2048_status {
    answering(solution, exponents, count, values, named: "values") { solved, index, board, values in
        values[index] = solved.value(of: board) ?? .nan
    }
}

@_cdecl("g2048_solution_moves")
public func g2048SolutionMoves(
    _ solution: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ moves: UnsafeMutablePointer<Int8>?
) -> g2048_status {
    answering(solution, exponents, count, moves, named: "moves") { solved, index, board, moves in
        moves[index] = actionCode(solved.optimalMove(on: board))
    }
}

/// A solution's answers on `count` boards into `output` (the argument `name`), `answer` writing each board's. A
/// solution is read-only, so unlike a player's calls these take no lock.
private func answering<Answer>(
    _ solution: Int64, _ exponents: UnsafePointer<UInt8>?, _ count: Int64, _ output: UnsafeMutablePointer<Answer>?,
    named name: String, _ answer: (Solution, Int, Board, UnsafeMutablePointer<Answer>) -> Void
) -> g2048_status {
    call { () throws(CallError) in
        let solved = try Handles.box(solution, as: SolutionBox.self).solution
        let given = try boards(
            exponents, count: count, rows: solved.rules.rows, cols: solved.rules.cols, answeringInto: output, named: name)
        for (index, board) in given.enumerated() { answer(solved, index, board, output!) }
    }
}
