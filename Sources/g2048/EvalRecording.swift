import Game2048
import Game2048Search
import GymCore
import GymGames
import GymPlay
import GymSystem

/// `eval --protocol` and `eval --record`, for every game: the games of a published evaluation protocol, and a
/// games record of what was played (seeds and actions), as a ranking takes it.
enum EvalRecording {
    static let protocolFlag = CommandOption.text(
        "protocol", "name",
        help: "Play an evaluation protocol's games (its board, rules, number of games and seeds): \(EvaluationProtocol.names).")
    static let record = CommandOption.text("record", "file", help: "Write every game (seed and actions) to this games record.")
    static let force = CommandOption.flag("force", help: "Replace an existing --record file.")

    static var specs: [OptionSpec] { [protocolFlag.spec, record.spec, force.spec] }

    static let discussion = """
        --protocol NAME plays a published evaluation protocol's games: its board and rules, and its list of \
        seeds (game i from the i-th seed of the protocol's seed), so that every player evaluated under it played \
        the same games. --record FILE writes every game played, its seed and its actions, as a games record \
        (docs/RECORDS.md) that 'g2048 replay --check' and a ranking replay; recorded games are played through the \
        environment, move by move.
        """

    /// The protocol `--protocol` names, for `game`; `fixed` are the flags it sets, refused beside it when given.
    static func evaluationProtocol(_ arguments: ParsedArguments, game: GameDeclaration, fixed: [(flag: String, given: Bool)]) throws(UsageError)
        -> EvaluationProtocol?
    {
        guard let name = try arguments[protocolFlag] else { return nil }
        guard let named = EvaluationProtocol.named(name) else {
            throw UsageError("--protocol: unknown protocol \"\(name)\" (the protocols are \(EvaluationProtocol.names))")
        }
        guard named.game.name == game.name else {
            throw UsageError("--protocol \(name) is a protocol of \(named.game.name): add --game \(named.game.name)")
        }
        if let given = fixed.first(where: \.given) {
            throw UsageError("--protocol \(name) sets the board, the rules, the games and their seeds: drop --\(given.flag)")
        }
        return named
    }

    /// Claims `--record`'s file before any game is played (see `OutputFiles`).
    static func claim(_ path: String?, force: Bool, inputs: [OutputFiles.Input]) throws(OutputFileError) -> OutputClaim {
        try OutputFiles.claim(path.map { [.init(flag: "record", path: $0)] } ?? [], inputs: inputs, force: force, command: "eval")
    }

    /// Writes the games record of `actions` (game i's from `seeds[i]`) atomically to `path`.
    static func write(
        _ path: String, game: GameDeclaration, values: [String: OptionValue], protocol evaluation: EvaluationProtocol?, player: String,
        seeds: [UInt64], actions: [[Int]]
    ) throws {
        let record = try GamesRecord(
            game: game, values: values, protocolName: evaluation?.name, player: player,
            played: zip(seeds, actions).map { ($0, $1) })
        try record.checkWritten()
        try AtomicFile.write(Array(record.text.utf8), to: path)
        Console.error("recorded \(actions.count) games (\(record.games.reduce(0) { $0 + $1.result.steps }) moves) to \(path)")
    }
}

/// One game's actions, written by the thread that plays it and read once all games are played.
final class ActionLog: @unchecked Sendable {
    var actions: [Int] = []
}

/// A 2048 player that writes down every move it makes: `eval --record`.
struct RecordingPlayer: Player {
    var player: any Player
    let log: ActionLog
    var name: String { player.name }

    mutating func action(on board: Board, rules: Rules) -> Direction? {
        let action = player.action(on: board, rules: rules)
        if let action { log.actions.append(action.rawValue) }
        return action
    }
}
