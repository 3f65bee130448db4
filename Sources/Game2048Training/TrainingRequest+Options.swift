import Game2048
import Game2048Network

/// The settings of a request as they are given (`g2048 train`'s flags, a library's options): their ranges, and the
/// readings of those given as text, refused in the flags' words.
extension TrainingRequest {
    /// TD's `alpha` and TC's `tc_alpha`: above 1 a rate overshoots every target it moves toward, and the weights diverge.
    public static let learningRates: ClosedRange<Double> = 1e-9...1
    /// A new network's optimistic value of a board.
    public static let optimisms: ClosedRange<Double> = 0...1e9
    /// The shares of a run: `tc_from`, `table_share`.
    public static let fractions: ClosedRange<Double> = 0...1
    /// `restart`: the chance that a game which ended starts again where it first held its largest tile. Below 1, so
    /// that new games keep coming.
    public static let restartChances: ClosedRange<Double> = 0...0.99
    /// `restart_from`: the smallest tile a restart point holds, a power of two (any tile a merge makes: 4 and up).
    public static let restartTiles = Rules.winTileRange
    /// Whether `tile` is a restart tile: a power of two in ``restartTiles``, as a win tile is.
    public static func isRestartTile(_ tile: Int) -> Bool { Rules.isWinTile(tile) }
    /// Self-play threads.
    public static let threadCounts: ClosedRange<Int> = 1...256
    /// Games a thread plays at once.
    public static let laneCounts: ClosedRange<Int> = 1...64

    /// Chooses a new network's patterns: by name (`network`, a 4×4 network of `TuplePattern.networkNames`) or as
    /// cell lists (`patterns`, e.g. "0,1,2,3;4,5,6,7"), neither for a resumed network, which has its own, nor an
    /// optimistic value (`optimismGiven`).
    ///
    /// - Throws: ``TrainingError/settings(_:)`` naming the flag.
    public mutating func choosePatterns(named network: String?, cells patterns: String?, optimismGiven: Bool) throws(TrainingError) {
        if let resume {
            // What a network is made of comes from the file; only a setting that could apply is accepted.
            if patterns != nil { throw .settings("--patterns cannot change a resumed network (the file has its own)") }
            if optimismGiven {
                throw .settings("--optimistic sets the weights of a new network; --resume \(resume) continues the weights it holds")
            }
        }
        if let network {
            guard let named = TuplePattern.named(network) else {
                throw .settings("--network must be one of \(TuplePattern.networkNames.joined(separator: ", ")), got '\(network)'")
            }
            guard rules.rows == 4 && rules.cols == 4 else {
                throw .settings("--network \(network) is a network for 4x4 boards, not \(rules.sizeLabel); give other boards --patterns")
            }
            if patterns != nil { throw .settings("--network and --patterns both choose the patterns; give one") }
            if let resume { throw .settings("--network cannot change a resumed network (--resume \(resume) has its own)") }
            self.patterns = named
        }
        if let patterns {
            let valueCount = TuplePattern.defaults(rows: rules.rows, cols: rules.cols).valueCount
            do { self.patterns = try TuplePattern.parse(patterns, rows: rules.rows, cols: rules.cols, valueCount: valueCount) } catch {
                throw .settings("--patterns: \(error.message)")
            }
        }
    }

    /// Parses stage thresholds (`--stages`): tiles separated by commas, as tile exponents.
    ///
    /// - Throws: ``TrainingError/settings(_:)`` for a tile that is not a power of two from 4 up (32 768 on 4×4),
    ///   thresholds that do not ascend, or too many of them.
    public static func stages(parsing text: String, rows: Int, cols: Int) throws(TrainingError) -> [UInt8] {
        var exponents: [UInt8] = []
        let highest = rows == 4 && cols == 4 ? 15 : Int(Rules.maxExponent)
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let tile = Int(item), tile >= 4, tile.nonzeroBitCount == 1, tile.trailingZeroBitCount <= highest else {
                throw .settings(
                    "--stages takes tiles, powers of two from 4 to \(Board.value(ofExponent: UInt8(min(highest, 62)))) on a \(rows)x\(cols) board, "
                        + "separated by commas; got '\(item)' in '\(text)'")
            }
            exponents.append(UInt8(tile.trailingZeroBitCount))
        }
        if let problem = NTupleNetwork.stageProblem(exponents, rows: rows, cols: cols) {
            throw .settings("--stages \(TrainingSetup.tilesText(exponents)): \(problem)")
        }
        return exponents
    }
}
