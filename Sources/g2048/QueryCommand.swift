import Game2048
import GymJSON
import Game2048Solver
import GymSystem

/// `g2048 query`: a solution file's answers on given boards: the optimal value, each action's value, the optimal
/// move.
struct QueryCommand: Command {
    static let spec = CommandSpec(
        name: "query",
        abstract: "Ask a solution file a board's optimal value and move, and each action's value.",
        discussion: """
            A board is JSON: rows of tile values (0 for an empty cell), '[[2,2,0],[0,4,0],[0,0,0]]', or one flat
            row-major list; --board gives one, --boards a file of one board a line (JSON lines). For each board the
            answer is its optimal value (the expected score to come under optimal play, or the chance of reaching
            the win tile for a solution of --objective win), each action's value (its reward plus the optimal value
            of its afterstate: the worth of playing it, then playing optimally) and the optimal move (the first of
            the best, in the order up, right, down, left). An agent's regret on a board is the value less its
            action's value. A board no game reaches (neither a starting board nor a spawn on an afterstate a game
            reaches) has no value: it is said, not given as 0. A board with no legal move is worth 0 (1 for the win objective when
            it holds the win tile).

            --json prints one JSON object a board: board, reachable, value, action_values (up, right, down, left;
            null where illegal) and optimal_action (0 up .. 3 left; null where none), the same figures as Python's
            Solution.values, action_values and moves and the C ABI's g2048_solution_values, _action_values and _moves.
            """,
        options: [Self.solution.spec, Self.board.spec, Self.boards.spec, Self.json.spec])

    static let solution = CommandOption.text("solution", "file", help: "A solution file written by 'g2048 solve'.")
    static let board = CommandOption.text("board", "json", help: "A board: rows of tile values, e.g. '[[2,2,0],[0,4,0],[0,0,0]]'.")
    static let boards = CommandOption.text("boards", "file", help: "A file of boards, one JSON board a line.")
    static let json = CommandOption.flag("json", help: "Print one JSON object a board.")

    var solutionPath: String
    var board: String?
    var boardsPath: String?
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let solutionPath = try arguments[Self.solution] else {
            throw UsageError("--solution <file> is required: the solution file ('g2048 solve') to ask")
        }
        self.solutionPath = solutionPath
        board = try arguments[Self.board]
        boardsPath = try arguments[Self.boards]
        guard (board == nil) != (boardsPath == nil) else {
            throw UsageError("give the boards to ask as --board '<json>' (one) or --boards <file> (one a line), not both or neither")
        }
        json = try arguments[Self.json]
    }

    func run() throws -> Int32 {
        let solution = try Solution.load(from: solutionPath)
        if let board {
            do throws(CommandFailure) { try answer(to: Array(board.utf8), in: solution) } catch {
                throw UsageError("--board: \(error.message)")
            }
            return ExitCode.success
        }
        let path = boardsPath!
        do throws(SystemIO.LineReadFailure<CommandFailure>) {
            try SystemIO.forEachLine(of: path) { (line, number, _) throws(CommandFailure) in
                do throws(CommandFailure) { try answer(to: line, in: solution) } catch {
                    throw CommandFailure(message: "\(path):\(number): \(error.message)")
                }
            }
        } catch {
            switch error {
            case .file(let failure): throw failure
            case .body(let failure): throw failure
            }
        }
        return ExitCode.success
    }

    /// Prints the answer on the board that `text` gives, or throws why it gives none.
    func answer(to text: some Collection<UInt8>, in solution: Solution) throws(CommandFailure) {
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch { throw CommandFailure(message: "not JSON: \(error)") }
        let board: Board
        do { board = try Board(json: value, rules: solution.rules) } catch { throw CommandFailure(message: error.description) }
        let answer = Answer(
            board: board, value: solution.value(of: board), actionValues: solution.actionValues(on: board),
            optimalMove: solution.optimalMove(on: board))
        Console.output(json ? answer.json.serialized : answer.text(objective: solution.objective))
    }

    /// A solution's answer on one board.
    struct Answer {
        var board: Board
        /// `nil` when no game reaches the board.
        var value: Double?
        var actionValues: [Double?]
        var optimalMove: Direction?

        var json: JSONValue {
            .object([
                ("board", JSONValue(board: board)),
                ("reachable", .bool(value != nil)),
                ("value", value.map(JSONValue.double) ?? .null),
                ("action_values", .array(actionValues.map { $0.map(JSONValue.double) ?? .null })),
                ("optimal_action", optimalMove.map { .integer(Int128($0.rawValue)) } ?? .null),
            ])
        }

        func text(objective: OptimalSolver.Objective) -> String {
            // Early in a game the moves differ by under a thousandth of a point: the score is mostly the final board's.
            let digits = objective == .score ? 4 : 6
            let rows = board.description.split(separator: "\n").map { "  " + $0 }
            guard let value else {
                return (rows + ["  not a board any game reaches under the solution's rules: it has no value"]).joined(separator: "\n")
            }
            let name = objective == .score ? "value (expected score to come)" : "value (chance of the win tile)"
            var lines = rows + ["  \(name.padding(32)) \(formatFixed(value, digits: digits))"]
            for direction in Direction.allCases {
                let worth = actionValues[direction.rawValue].map { formatFixed($0, digits: digits) } ?? "illegal"
                lines.append("  \(direction.name.padding(32)) \(worth)\(direction == optimalMove ? "   optimal" : "")")
            }
            if optimalMove == nil { lines.append("  no legal move: the game is over") }
            return lines.joined(separator: "\n")
        }
    }
}
