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
    /// The one-hot planes as 32-bit floats, channels first (`channels × rows × cols`) as ``oneHot(channels:)``
    /// and ``oneHotFlat(channels:)``: what a convolutional network (PyTorch's order) takes without a conversion.
    case oneHotFloat32(channels: Int)
    /// The one-hot values as 32-bit floats, in one flat vector in ``oneHot(channels:)``'s order.
    case oneHotFlat(channels: Int)

    /// The number of values one board of `rows × cols` encodes to.
    @inlinable
    public func count(rows: Int, cols: Int) -> Int {
        shape(rows: rows, cols: cols).reduce(1, *)
    }

    /// The dimensions of one encoded board: `[rows, cols]`, or `[channels, rows, cols]` for one-hot
    /// (Gymnasium's `observation_space.shape`).
    public func shape(rows: Int, cols: Int) -> [Int] {
        switch self {
        case .exponents, .values: [rows, cols]
        case .oneHot(let channels): [channels, rows, cols]
        case .oneHotFloat32(let channels): [channels, rows, cols]
        case .oneHotFlat(let channels): [channels * rows * cols]
        }
    }

    /// The type of one encoded value.
    public var dtype: ObservationDType {
        switch self {
        case .exponents, .oneHot: .uint8
        case .values: .int64
        case .oneHotFloat32, .oneHotFlat: .float32
        }
    }

    /// The largest value a board whose tiles are at most 2^`largestExponent` encodes to;
    /// the smallest is always 0 (Gymnasium's `observation_space.high` and `low`).
    public func high(largestExponent: UInt8) -> Int {
        switch self {
        case .exponents: Int(largestExponent)
        case .values: Board.value(ofExponent: largestExponent)
        case .oneHot, .oneHotFloat32, .oneHotFlat: 1
        }
    }

    /// The most decimal digits one value can take: what a text form of the encoding must make room for.
    public var maxDigits: Int {
        switch self {
        case .exponents: 2  // exponents are at most 50
        case .values: 19  // a 64-bit tile value
        case .oneHot, .oneHotFloat32, .oneHotFlat: 1
        }
    }

    /// Calls `body` with every value of `board`, in order: row-major, channel-major for one-hot.
    @inlinable
    public func forEachValue(of board: Board, _ body: (Int) throws -> Void) rethrows {
        try forEachValue(cells: board.cellCount, exponent: { board.storage[$0] }, body)
    }

    /// Calls `body` with every value of the board whose cell `i` holds `exponent(i)`, in order.
    /// The one writer of the encoding: its floats, its text, its bytes and its buffers are all written from this.
    @inlinable
    func forEachValue(cells: Int, exponent: (Int) -> UInt8, _ body: (Int) throws -> Void) rethrows {
        switch self {
        case .exponents:
            for cell in 0..<cells { try body(Int(exponent(cell))) }
        case .values:
            for cell in 0..<cells { try body(Board.value(ofExponent: exponent(cell))) }
        case .oneHot(let channels), .oneHotFloat32(let channels), .oneHotFlat(let channels):
            for plane in 0..<channels {
                for cell in 0..<cells { try body(min(Int(exponent(cell)), channels - 1) == plane ? 1 : 0) }
            }
        }
    }

    /// Writes `boards` boards of `cells` exponents each (`exponents`, board-major) in this encoding at
    /// `target`, one ``dtype`` value each in native byte order: the in-process doors' observation buffers.
    ///
    /// - Precondition: `target` has room for `boards × count(rows:cols:)` values of ``dtype``.
    /// - Complexity: O(`boards × count(rows:cols:)`).
    @inlinable
    public func write(exponents: UnsafePointer<UInt8>, boards: Int, cells: Int, to target: UnsafeMutableRawPointer) {
        let perBoard = count(rows: 1, cols: cells)
        for board in 0..<boards {
            let source = exponents + board * cells
            var index = board * perBoard
            switch dtype {
            case .uint8:
                let out = target.assumingMemoryBound(to: UInt8.self)
                forEachValue(
                    cells: cells, exponent: { source[$0] },
                    { value in
                        out[index] = UInt8(truncatingIfNeeded: value)
                        index += 1
                    })
            case .int64:
                let out = target.assumingMemoryBound(to: Int64.self)
                forEachValue(
                    cells: cells, exponent: { source[$0] },
                    { value in
                        out[index] = Int64(value)
                        index += 1
                    })
            case .float32:
                let out = target.assumingMemoryBound(to: Float.self)
                forEachValue(
                    cells: cells, exponent: { source[$0] },
                    { value in
                        out[index] = Float(value)
                        index += 1
                    })
            }
        }
    }

    /// Appends the values of `board` as ``dtype``'s little-endian bytes to `bytes`.
    public func appendBytes(of board: Board, to bytes: inout [UInt8]) {
        let width = dtype.byteCount
        let isFloat = dtype == .float32
        forEachValue(of: board) { value in
            let bits = isFloat ? Int(Float(value).bitPattern) : value
            for byte in 0..<width { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * byte))) }
        }
    }

    /// The encoding's name as the protocol and CLI spell it: `exponents`, `values` or `onehot`.
    public var name: String {
        switch self {
        case .exponents: "exponents"
        case .values: "values"
        case .oneHot: "onehot"
        case .oneHotFloat32: "onehot_float32"
        case .oneHotFlat: "onehot_flat"
        }
    }
}

/// The type of one value of an ``ObservationEncoding``, named as NumPy names it.
public enum ObservationDType: String, Hashable, Sendable {
    /// One unsigned byte.
    case uint8
    /// A signed 64-bit integer.
    case int64
    /// A 32-bit float.
    case float32

    /// The bytes of one value.
    public var byteCount: Int {
        switch self {
        case .uint8: 1
        case .int64: 8
        case .float32: 4
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
        precondition(
            offset >= 0 && offset + encoding.count(rows: rows, cols: cols) <= buffer.count,
            "buffer too small for \(encoding.name) observation at offset \(offset)")
        if case .oneHot(let channels) = encoding {
            precondition(channels >= 2, "one-hot needs at least 2 channels, got \(channels)")
        }
        var index = offset
        encoding.forEachValue(of: self) { value in
            buffer[index] = Float(value)
            index += 1
        }
    }
}
