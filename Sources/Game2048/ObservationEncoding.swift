/// How a board is turned into numbers for a learner.
///
///     let board = try Board(rows: 2, cols: 2, values: [2, 0, 0, 8])
///     board.encoded(.exponents)              // [1, 0, 0, 3]
///     board.encoded(.values)                 // [2, 0, 0, 8]
///     board.encoded(.oneHot(channels: 4))    // 4 planes of 2×2: plane k marks exponent k
///
/// All encodings are row-major. ``oneHot(channels:)`` is channel-major
/// (`channels × rows × cols`, the layout of a convolutional network's input);
/// exponents at or above `channels - 1` share the last plane.
public enum ObservationEncoding: Hashable, Sendable {
    /// One number per cell: 0 for empty, `k` for the tile 2^k.
    case exponents
    /// One number per cell: the tile's value, 0 for empty.
    case values
    /// `channels` planes of 0/1; plane `k` marks the cells holding exponent `k`
    /// (plane 0 marks empty cells). `channels` is 2 or more.
    case oneHot(channels: Int)

    /// The number of values one board of `rows × cols` encodes to.
    @inlinable
    public func count(rows: Int, cols: Int) -> Int {
        switch self {
        case .exponents, .values: rows * cols
        case .oneHot(let channels): channels * rows * cols
        }
    }

    /// The encoding's name as the protocol and CLI spell it: `exponents`, `values` or `onehot`.
    public var name: String {
        switch self {
        case .exponents: "exponents"
        case .values: "values"
        case .oneHot: "onehot"
        }
    }
}

extension Board {
    /// The board in `encoding`, as floating-point numbers ready for a network.
    ///
    /// - Precondition: a one-hot encoding has at least 2 channels.
    /// - Complexity: O(`encoding.count(rows:cols:)`).
    public func encoded(_ encoding: ObservationEncoding) -> [Float] {
        var output = [Float](repeating: 0, count: encoding.count(rows: rows, cols: cols))
        encode(encoding, into: &output, at: 0)
        return output
    }

    /// Writes the board in `encoding` into `buffer`, starting at `offset`, without allocating.
    ///
    /// Vector environments call this once per environment to fill one flat batch buffer.
    ///
    /// - Precondition: `buffer` has room for `encoding.count(rows:cols:)` values at `offset`.
    public func encode(_ encoding: ObservationEncoding, into buffer: inout [Float], at offset: Int) {
        let cells = cellCount
        precondition(offset >= 0 && offset + encoding.count(rows: rows, cols: cols) <= buffer.count,
                     "buffer too small for \(encoding.name) observation at offset \(offset)")
        switch encoding {
        case .exponents:
            for cell in 0..<cells { buffer[offset + cell] = Float(storage[cell]) }
        case .values:
            for cell in 0..<cells { buffer[offset + cell] = Float(Board.value(ofExponent: storage[cell])) }
        case .oneHot(let channels):
            precondition(channels >= 2, "one-hot needs at least 2 channels, got \(channels)")
            for index in offset..<(offset + channels * cells) { buffer[index] = 0 }
            for cell in 0..<cells {
                let plane = min(Int(storage[cell]), channels - 1)
                buffer[offset + plane * cells + cell] = 1
            }
        }
    }
}
