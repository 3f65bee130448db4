import Game2048
import Game2048Network

/// A `g2048 train` network that values boards and picks moves for boards given to it, as `g2048 eval` plays them
/// (the same ``SearchPlayer`` with the same defaults): how other languages use a trained network, through the
/// C ABI, as a baseline, a teacher or an opponent.
///
///     var player = try TrainedPlayer(loading: "weights.bin")
///     let move = player.move(on: board, depth: 0)     // greedy over afterstates, as `g2048 eval` plays
public struct TrainedPlayer {
    /// The network.
    public let network: NTupleNetwork
    /// What the weights file says of its training.
    public let metadata: TrainingMetadata
    /// The rules the network was trained under (its weights file's), which a search assumes for the spawns.
    public let rules: Rules
    /// The tile exponent from which a search downgrades boards (see `TileDowngrade`): the weights file's, else
    /// `TileDowngrade.defaultLimit`, as `g2048 eval` chooses it without `--downgrade`.
    public let downgradeLimit: UInt8?
    /// One search per depth asked for, kept between calls as `g2048 eval` keeps one per game.
    var searches: [Int: SearchPlayer] = [:]

    /// The deepest search a move may ask for: each layer multiplies the work by the empty cells.
    public static let depths = 0...8

    /// A player of `network`, trained as `metadata` says.
    public init(network: NTupleNetwork, metadata: TrainingMetadata) {
        self.network = network
        self.metadata = metadata
        rules = metadata.rules(rows: network.rows, cols: network.cols)
        downgradeLimit = TileDowngrade.limit(given: nil, recorded: metadata.downgradeLimit)
    }

    /// Loads a weights file written by `g2048 train`.
    ///
    /// - Throws: what `WeightsFile.load(from:)` throws for a missing, truncated or forged file.
    public init(loading path: String) throws(WeightsFileError) {
        let (network, metadata) = try WeightsFile.load(from: path)
        self.init(network: network, metadata: metadata)
    }

    /// The network's value of `board` (an afterstate's expected score to come, as trained).
    public func value(of board: Board) -> Float { network.value(of: board) }

    /// The move `g2048 eval --depth depth` makes on `board`, or `nil` when no move is legal.
    ///
    /// - Precondition: `depth` is in ``depths``; the board is the network's size.
    public mutating func move(on board: Board, depth: Int) -> Direction? {
        let (network, limit, rules) = (self.network, downgradeLimit, self.rules)
        // Mutated in place in the dictionary: a search's caches are not copied on each call.
        return searches[
            depth,
            default: SearchPlayer(
                network: network, depth: depth, nodeBudget: Expectimax.defaultNodeBudget,
                pruneBelow: Expectimax.defaultPruneBelow, downgradeLimit: limit)
        ].action(on: board, rules: rules)
    }
}
