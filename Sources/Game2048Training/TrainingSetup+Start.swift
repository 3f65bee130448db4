import Game2048
import Game2048Network
import GymSystem

extension TrainingSetup {
    /// The network and metadata a run of `request` starts from, and its rules: the `--resume` file's, checked
    /// against what the request sets, or a new network's.
    ///
    /// - Throws: ``TrainingError/settings(_:)`` when the request contradicts the file, ``TrainingError/failure(_:)``
    ///   when a new network and its learner cannot fit in memory; the file's own errors.
    static func start(_ request: TrainingRequest) throws -> (network: NTupleNetwork, metadata: TrainingMetadata, rules: Rules) {
        guard let resume = request.resume else { return try (newNetwork(request), newMetadata(request), request.rules) }
        var (network, metadata) = try WeightsFile.load(from: resume)
        let rules = metadata.rules(rows: network.rows, cols: network.cols)
        try checkResumed(request, network: network, metadata: metadata, rules: rules)
        if let coherenceAlpha = request.coherenceAlpha { metadata.coherenceAlpha = coherenceAlpha }
        if let coherenceFrom = request.coherenceFrom { metadata.coherenceFrom = coherenceFrom }
        metadata.trainedRules = rules
        try request.checkTableShare(rules: rules)
        if let table = network.afterstates {
            if let tableShare = request.tableShare, tableShare < 1 {
                throw TrainingError.settings(
                    "--table-share \(formatFixed(tableShare, digits: 2)): --resume \(resume) holds an afterstate table (\(table.count) afterstates), "
                        + "over which its network no longer learns, so the whole run learns the table; leave --table-share out")
            }
        } else if TrainingSchedule.tableShare(asked: request.tableShare, rules: rules) > 0 {
            network.attachAfterstateTable()
        }
        // The file's learning rate and seed continue unless this run sets its own; the file then records them.
        if request.alphaGiven { metadata.alpha = request.alpha }
        if request.seedGiven { metadata.seed = request.seed }
        return (network, metadata, rules)
    }

    /// A new network for `request`, once its memory and its learner's are known to fit.
    static func newNetwork(_ request: TrainingRequest) throws(TrainingError) -> NTupleNetwork {
        let (rules, patterns, stages) = (request.rules, request.patterns, request.stages)
        if request.stageBoards == .downgraded && stages == nil {
            throw .settings("--stage-boards downgraded reads the boards of the stages past the first; it needs --stages")
        }
        let featureCount = NTupleNetwork.featureCount(
            patterns: patterns?.count ?? TuplePattern.defaults(rows: rules.rows, cols: rules.cols).patterns.count,
            rows: rules.rows, cols: rules.cols)
        let weights = NTupleNetwork.weightCount(rows: rules.rows, cols: rules.cols, patterns: patterns, stages: (stages?.count ?? 0) + 1)
        try checkMemory(
            NTupleNetwork.memoryBytes(weights: weights) + TDLearner.memoryBytes(weights: weights, method: learning(of: request)),
            for: "a new \(rules.sizeLabel) network with its learner", threads: request.threads + 1)
        // Optimism is a value per board, shared over the features that sum to it.
        return NTupleNetwork(
            rows: rules.rows, cols: rules.cols, patterns: patterns, valueCount: nil,
            initialValue: Float(request.optimism) / Float(featureCount), stageThresholds: stages ?? [],
            stageBoards: request.stageBoards ?? .plain,
            afterstates: TrainingSchedule.tableShare(asked: request.tableShare, rules: rules) > 0
                ? AfterstateTable(rows: rules.rows, cols: rules.cols) : nil)
    }

    /// A new network's metadata: no games yet, and the request's settings.
    static func newMetadata(_ request: TrainingRequest) -> TrainingMetadata {
        var metadata = TrainingMetadata(
            games: 0, moves: 0, seed: request.seed, alpha: request.alpha, initialValue: request.optimism, elapsedSeconds: 0,
            rulesVersion: Rules.version, spawnFourProbability: request.rules.spawnFourProbability)
        metadata.learning = learning(of: request)
        metadata.trainedRules = request.rules
        if let coherenceAlpha = request.coherenceAlpha { metadata.coherenceAlpha = coherenceAlpha }
        if let coherenceFrom = request.coherenceFrom { metadata.coherenceFrom = coherenceFrom }
        return metadata
    }

    /// A new network's learning method: as asked, else its board's default.
    static func learning(of request: TrainingRequest) -> LearningMethod {
        request.learning ?? TrainingRequest.defaultLearning(rows: request.rules.rows, cols: request.rules.cols).method
    }

    /// Refuses a request that would change what the resumed file is made of: its rules, board, stages, learning.
    static func checkResumed(_ request: TrainingRequest, network: NTupleNetwork, metadata: TrainingMetadata, rules: Rules)
        throws(TrainingError)
    {
        let resume = request.resume ?? ""
        let settings = RulesSettings(rules), asked = RulesSettings(request.rules)
        if let option = request.rulesGiven.first(where: { $0.value(in: asked) != $0.value(in: settings) }) {
            throw .settings(
                "--\(option.flag) differs from --resume \(resume), whose games were played with \(option.name) "
                    + "\(option.value(in: settings).flagText); leave it out to continue them")
        }
        if let size = request.size, size != (network.rows, network.cols) {
            throw .settings(
                "--rows/--cols say \(size.rows)x\(size.cols), but --resume \(resume) holds a \(network.rows)x\(network.cols) network; "
                    + "leave them out to continue it")
        }
        if let stages = request.stages, stages != network.stageThresholds {
            throw .settings(
                "--stages \(tilesText(stages)) differs from the stages of --resume \(resume) "
                    + "(\(network.stageThresholds.isEmpty ? "one stage" : tilesText(network.stageThresholds))); leave it out to continue them")
        }
        if let reading = request.stageBoards, reading != network.stageBoards {
            throw .settings(
                "--stage-boards \(reading.rawValue) differs from --resume \(resume), whose stages read \(network.stageBoards.rawValue) boards; "
                    + "leave it out to continue them")
        }
        if let learning = request.learning, learning != metadata.learning {
            throw .settings(
                "--learning \(learning.rawValue) differs from --resume \(resume), which learns by \(metadata.learning.rawValue); "
                    + "leave it out to continue")
        }
        if metadata.learning == .tc && request.alphaGiven {
            throw .settings("--alpha is TD's learning rate; --resume \(resume) learns by tc, which uses --tc-alpha")
        }
    }

    /// Stage thresholds as tiles: "16384,32768".
    public static func tilesText(_ exponents: [UInt8]) -> String { exponents.map { String(Board.value(ofExponent: $0)) }.joined(separator: ",") }
}
