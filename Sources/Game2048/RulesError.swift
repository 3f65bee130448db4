/// A configuration value out of range, or a board that doesn't fit the rules.
///
///     do { _ = try Rules(rows: 99) } catch { print(error) }
///     // rows must be an integer from 2 to 8, got 99
///
/// Each case carries the offending value. ``field`` names the parameter and
/// ``rule`` states the constraint and the value received, so the CLI
/// (`--rows …`) and the protocol (`"rows" …`) can name the field in their own
/// spelling and still say the same thing.
public enum RulesError: Error, Hashable, Sendable {
    /// Rows outside 2...8.
    case rows(Int)
    /// Columns outside 2...8.
    case cols(Int)
    /// A spawn probability outside 0...1 (or NaN).
    case spawnFourProbability(Double)
    /// Initial tiles outside 1...cells.
    case initialTiles(Int, cells: Int)
    /// A win tile that is not a power of two from 4 to 2^50.
    case winTile(Int)
    /// A step limit below 1.
    case maxSteps(Int)
    /// A negative penalty for `InvalidActionPolicy/terminate(penalty:)`.
    case penalty(Int64)
    /// A board whose cell count doesn't match rows × cols.
    case boardShape(expected: Int, got: Int)
    /// A board of another size than the rules': `rows × cols` given where `expectedRows × expectedCols` was needed.
    case boardSize(rows: Int, cols: Int, expectedRows: Int, expectedCols: Int)
    /// A tile value that is neither 0 (empty) nor a power of two from 2 to 2^50.
    case tileValue(Int, cell: Int)
    /// A tile exponent above 50.
    case tileExponent(Int, cell: Int)
    /// A tile of exponent `exponent` in a board given to an environment whose
    /// ``Rules/largestExponent`` is `largest`.
    case tileAboveLargest(exponent: Int, cell: Int, largest: Int)

    /// A parameter of ``Rules`` (or the board given with them) that an error can be about.
    public enum Field: String, Hashable, Sendable, CaseIterable {
        case rows, cols, spawnFourProbability, initialTiles, winTile, maxSteps, penalty, board
    }

    /// The parameter at fault; its raw value is its Swift spelling (`rows`, `spawnFourProbability`, `board`).
    public var field: Field {
        switch self {
        case .rows: .rows
        case .cols: .cols
        case .spawnFourProbability: .spawnFourProbability
        case .initialTiles: .initialTiles
        case .winTile: .winTile
        case .maxSteps: .maxSteps
        case .penalty: .penalty
        case .boardShape, .boardSize, .tileValue, .tileExponent, .tileAboveLargest: .board
        }
    }

    /// The constraint and the value received, without the field name.
    public var rule: String {
        switch self {
        case .rows(let n), .cols(let n): "must be \(OptionConstraint.expectation(integersIn: Rules.sizeRange)), got \(n)"
        case .spawnFourProbability(let p): "must be \(OptionConstraint.expectation(numbersIn: Rules.spawnFourProbabilityRange)), got \(p)"
        case .initialTiles(let n, let cells): "must be \(OptionConstraint.expectation(integersIn: 1...cells)), got \(n)"
        case .winTile(let n): "must be a power of two from \(Rules.winTileRange.lowerBound) to 2^\(Rules.maxExponent), got \(n)"
        case .maxSteps(let n): "must be at least \(Rules.maxStepsRange.lowerBound), got \(n)"
        case .penalty(let n): "must be \(Rules.penaltyRange.lowerBound) or more, got \(n)"
        case .boardShape(let expected, let got): "must have \(expected) cells, got \(got)"
        case .boardSize(let rows, let cols, let expectedRows, let expectedCols):
            "must be \(expectedRows)x\(expectedCols), got \(rows)x\(cols)"
        case .tileValue(let v, let cell):
            "cell \(cell) must be 0 or a power of two from 2 to 2^\(Rules.maxExponent), got \(v)"
        case .tileExponent(let e, let cell): "cell \(cell) must hold an exponent from 0 to \(Rules.maxExponent), got \(e)"
        case .tileAboveLargest(let e, let cell, let largest):
            "cell \(cell) must hold at most \(Board.value(ofExponent: UInt8(largest))) (2^\(largest), the largest tile this board size can make), got 2^\(e)"
        }
    }
}

extension RulesError: CustomStringConvertible {
    /// `field` followed by `rule`, for example "rows must be an integer from 2 to 8, got 99".
    public var description: String { "\(field.rawValue) \(rule)" }
}
