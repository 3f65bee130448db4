import Testing
@testable import Game2048

struct ObservationEncodingTests {
    static let sample = board(2, 2, [2, 0, 0, 8])

    @Test func exponentsAndValuesAreRowMajor() {
        #expect(Self.sample.encoded(.exponents) == [1, 0, 0, 3])
        #expect(Self.sample.encoded(.values) == [2, 0, 0, 8])
        #expect(board(2, 3, [0, 4, 2048, 2, 0, 0]).encoded(.exponents) == [0, 2, 11, 1, 0, 0])
    }

    @Test func oneHotIsChannelMajorWithPlaneZeroForEmptyCells() {
        #expect(
            Self.sample.encoded(.oneHot(channels: 4)) == [
                0, 1, 1, 0,  // plane 0: empty
                1, 0, 0, 0,  // plane 1: 2
                0, 0, 0, 0,  // plane 2: 4
                0, 0, 0, 1,  // plane 3: 8
            ])
    }

    @Test func oneHotClampsLargeExponentsIntoTheLastPlane() {
        #expect(
            Self.sample.encoded(.oneHot(channels: 3)) == [
                0, 1, 1, 0,
                1, 0, 0, 0,
                0, 0, 0, 1,  // 8 (exponent 3) shares the last plane
            ])
        #expect(
            Self.sample.encoded(.oneHot(channels: 2)) == [
                0, 1, 1, 0,
                1, 0, 0, 1,
            ])
    }

    @Test func oneHotMarksExactlyOnePlanePerCell() {
        var rng = Xoshiro256StarStar(seed: 60)
        for size in allSizes {
            let b = randomBoard(rows: size.rows, cols: size.cols, exponents: 1...20, emptyShare: 0.3, using: &rng)
            let channels = 16
            let encoded = b.encoded(.oneHot(channels: channels))
            let cells = b.cellCount
            #expect(encoded.count == channels * cells)
            for cell in 0..<cells {
                let planes = (0..<channels).filter { encoded[$0 * cells + cell] == 1 }
                #expect(planes == [min(Int(b[cell]), channels - 1)])
            }
        }
    }

    @Test(arguments: [ObservationEncoding.exponents, .values, .oneHot(channels: 5)])
    func encodeIntoWritesOnlyItsOwnRange(encoding: ObservationEncoding) {
        let size = encoding.count(rows: 2, cols: 2)
        let offset = 3
        var buffer = [Float](repeating: -1, count: offset + 2 * size + 2)
        // Stale values inside the target range must be overwritten, zeros included.
        for i in offset..<(offset + size) { buffer[i] = 7 }
        Self.sample.encode(encoding, into: &buffer, at: offset)
        #expect(Array(buffer[offset..<(offset + size)]) == Self.sample.encoded(encoding))
        #expect(buffer[..<offset].allSatisfy { $0 == -1 })
        #expect(buffer[(offset + size)...].allSatisfy { $0 == -1 })
    }

    @Test func countsAndNames() {
        #expect(ObservationEncoding.exponents.count(rows: 3, cols: 5) == 15)
        #expect(ObservationEncoding.values.count(rows: 4, cols: 4) == 16)
        #expect(ObservationEncoding.oneHot(channels: 18).count(rows: 4, cols: 4) == 288)
        #expect(ObservationEncoding.exponents.name == "exponents")
        #expect(ObservationEncoding.values.name == "values")
        #expect(ObservationEncoding.oneHot(channels: 3).name == "onehot")
    }

    /// Each encoding describes itself (shape, dtype, bounds) the way Gymnasium's observation space does.
    @Test(arguments: [
        (ObservationEncoding.exponents, [2, 3], ObservationDType.uint8, 7),
        (.values, [2, 3], .int64, 128), (.oneHot(channels: 4), [4, 2, 3], .uint8, 1),
    ])
    func describesItsSpace(encoding: ObservationEncoding, shape: [Int], dtype: ObservationDType, high: Int) {
        #expect(encoding.shape(rows: 2, cols: 3) == shape)
        #expect(encoding.dtype == dtype)
        #expect(encoding.high(largestExponent: 7) == high)
        #expect(encoding.count(rows: 2, cols: 3) == shape.reduce(1, *))
    }

    /// The bytes are the values, little-endian in the dtype's width: the same values the floats hold.
    @Test(arguments: [ObservationEncoding.exponents, .values, .oneHot(channels: 5)])
    func bytesHoldTheEncodedValues(encoding: ObservationEncoding) {
        var bytes: [UInt8] = []
        encoding.appendBytes(of: Self.sample, to: &bytes)
        let width = encoding.dtype.byteCount
        #expect(bytes.count == Self.sample.encoded(encoding).count * width)
        let values = stride(from: 0, to: bytes.count, by: width).map { start in
            (0..<width).reduce(0) { $0 | Int(bytes[start + $1]) << (8 * $1) }
        }
        #expect(values.map(Float.init) == Self.sample.encoded(encoding))
    }
}

/// The float forms of one-hot: the same planes in the same order (channels first), as 32-bit floats, shaped or
/// flat.
struct FloatOneHotEncodingTests {
    @Test func theFloatFormsHoldTheOneHotPlanesChannelsFirst() throws {
        let board = try Board(rows: 2, cols: 2, values: [2, 0, 8, 2048])  // exponents 1, 0, 3, 11
        let planes = board.encoded(.oneHot(channels: 4))
        #expect(board.encoded(.oneHotFlat(channels: 4)) == planes && board.encoded(.oneHotFloat32(channels: 4)) == planes)
        #expect(ObservationEncoding.oneHot(channels: 4).shape(rows: 2, cols: 3) == [4, 2, 3])
        #expect(ObservationEncoding.oneHotFloat32(channels: 4).shape(rows: 2, cols: 3) == [4, 2, 3])
        #expect(ObservationEncoding.oneHotFlat(channels: 4).shape(rows: 2, cols: 3) == [24])
        // Plane k, cell c at k * 4 + c; exponent 11 shares the last plane with exponent 3.
        #expect(Array(planes[12..<16]) == [0, 0, 1, 1] && Array(planes[0..<4]) == [0, 1, 0, 0])
        #expect(ObservationEncoding.oneHotFlat(channels: 4).dtype == .float32 && ObservationDType.float32.byteCount == 4)
    }

    @Test func theBufferWriterWritesFloats() throws {
        let exponents: [UInt8] = [1, 0, 3, 11]
        var out = [Float](repeating: -1, count: 16)
        exponents.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBytes { target in
                ObservationEncoding.oneHotFloat32(channels: 4).write(
                    exponents: source.baseAddress!, boards: 1, cells: 4, to: target.baseAddress!)
            }
        }
        let board = try Board(rows: 2, cols: 2, exponents: exponents)
        #expect(out == board.encoded(.oneHotFloat32(channels: 4)))
    }
}
