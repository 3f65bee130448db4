import Game2048
import GymPlay

/// A game played through a ``PlaySession`` with pseudo-random keys, and what it produced.
struct PlayedGame {
    var records: [EpisodeRecord] = []
    /// The board after the start and after each legal move, per episode.
    var boards: [[Board]] = []
    var session: PlaySession
    var isOver = false

    /// Plays `moves` random moves (refused ones included) on a `rows × cols` board from `seed`.
    init(rows: Int = 4, cols: Int = 4, seed: UInt64 = 42, moves: Int = 300, keySeed: UInt64 = 7, restartEvery: Int? = nil) {
        // With `restartEvery`, a game that ends early is restarted at once too.
        session = PlaySession(
            configuration: PlayConfiguration(rows: rows, cols: cols, seed: seed),
            bestScores: BestScores(directory: "/unused"))
        var rng = Xoshiro256StarStar(seed: keySeed)
        collect(session.start())
        for index in 0..<moves {
            if let restartEvery, index > 0, index % restartEvery == 0 {
                collect(session.handle(.restart))
                continue
            }
            if session.phase == .over {
                guard restartEvery != nil else { break }
                collect(session.handle(.restart))
                continue
            }
            collect(session.handle(.move(Direction(rawValue: rng.uniform(below: 4))!)))
        }
        endLastEpisode(isLast: true)
    }

    /// Gives the last episode its end line, as ``EpisodeRecorder`` writes it.
    mutating func endLastEpisode(isLast: Bool) {
        guard let last = records.last, last.end == nil else { return }
        records[records.count - 1].end = EpisodeEnd(
            steps: last.steps.count, score: last.steps.last?.score ?? 0,
            outcome: isOver ? .gameOver : .stopped, isLastEpisode: isLast)
    }

    mutating func collect(_ events: [PlayEvent]) {
        for event in events {
            switch event {
            case .started(let header):
                endLastEpisode(isLast: false)
                isOver = false
                records.append(EpisodeRecord(header: header))
                boards.append([header.board])
            case .moved(let step):
                records[records.count - 1].steps.append(step)
                boards[boards.count - 1].append(session.environment!.board)
            case .gameOver:
                isOver = true
            default: break
            }
        }
    }
}
