import Game2048

/// Why a JSON value is not a board of the rules: the message, which the caller words into its own error (a
/// JSON-RPC error, a usage error).
public struct BoardJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, starting with "board".
    public let description: String
}

extension Board {
    /// The board a JSON value gives, as every door takes one: `rows` lists of `cols` tile values (0 for an empty
    /// cell, else 2, 4, 8, …), or one flat list of rows·cols values, row-major; checked against `rules` (its size
    /// and its largest tile).
    ///
    ///     try Board(json: JSONValue.parse(Array("[[2,2,0],[0,4,0],[0,0,0]]".utf8)), rules: try Rules(rows: 3, cols: 3))
    ///
    /// - Throws: ``BoardJSONError``, naming the shape expected and what was received.
    public init(json value: JSONValue, rules: Rules) throws(BoardJSONError) {
        let rows = rules.rows, cols = rules.cols
        let expected = "board must be a \(rows)x\(cols) list of tile values (0 or 2, 4, 8, …)"
        guard let list = value.array else { throw BoardJSONError(description: "\(expected), got \(value.typeName)") }
        var flat: [JSONValue] = []
        if list.count == rows, list.allSatisfy({ $0.array != nil }) {
            for row in list {
                guard row.array!.count == cols else { throw BoardJSONError(description: "\(expected), got a row of \(row.array!.count)") }
                flat += row.array!
            }
        } else if list.count == rows * cols {
            flat = list
        } else {
            // Named as given: a flat list's items are values, not rows.
            let rowCount = list.count(where: { $0.array != nil })
            let given =
                rowCount == list.count
                ? "\(list.count) rows"
                : rowCount == 0
                    ? "a flat list of \(list.count) values (a flat \(rows)x\(cols) board has \(rows * cols))"
                    : "a list of \(list.count) items, rows and values mixed"
            throw BoardJSONError(description: "\(expected), got \(given)")
        }
        var values: [Int] = []
        for item in flat {
            guard case .integer(let v) = item, v >= 0, v <= Int128(1) << Int(Rules.maxExponent) else {
                throw BoardJSONError(description: "\(expected), got \(item.brief)")
            }
            values.append(Int(v))
        }
        do {
            self = try Board(rows: rows, cols: cols, values: values)
            try Environment.validate(self, for: rules)
        } catch {
            throw BoardJSONError(description: "board \(error.rule)")
        }
    }
}

extension JSONValue {
    /// `board` as `Board(json:rules:)` reads it: rows of tile values, 0 for an empty cell.
    public init(board: Board) {
        let values = board.values
        self = .array((0..<board.rows).map { row in .array(values[(row * board.cols)..<((row + 1) * board.cols)].map { .integer(Int128($0)) }) })
    }

    /// A short rendering of a received value for error messages, truncated to stay one line.
    public var brief: String {
        // JSON has no spelling for NaN or infinity (a number like 1e999 parses to infinity): name them, not `null`.
        if case .double(let number) = self, !number.isFinite { return "\(number)" }
        let text = serialized
        return text.count <= 40 ? text : String(text.prefix(37)) + "..."
    }
}
