// The learner functions of gym2048.h: the network `g2048 train` trains, made from its settings and trained in-process
// a call at a time, its weights read, replaced and saved as the command saves them.
import CGym2048
import Game2048
import Game2048Network
import Game2048Training
import GymJSON
import GymPlay
import GymServer
import GymSystem
import Glibc
import Synchronization

/// A learner's state between calls: its setup (the network, the learner and their settings) and the counters of
/// the games it trained, as `g2048 train` keeps them.
struct LearnerState: Sendable {
    var setup: TrainingSetup
    var metrics: TrainingMetrics
    /// Seconds trained so far, earlier runs' (a resumed file's) included.
    var seconds: Double
    /// The weights at the last export (`weights`, `set_weights`, `delta`, `apply_delta`), from which a delta is
    /// measured: none before the first, so that a learner whose weights never leave keeps no copy of them.
    var exported: [Float]? = nil
    /// The games trained since the last report (`g2048_learner_games`), for a driver that combines several
    /// learners' work to count them as its own (`g2048_learner_record`).
    var unreported = GamesReport()

    /// The metadata a save writes: the setup's with the counters so far.
    var metadata: TrainingMetadata {
        setup.metadata(
            counted: metrics.metadata(base: setup.base, downgradeCeiling: setup.downgradeSuggestionCeiling, elapsedSeconds: seconds))
    }

    /// Trains `games` more games (if set), for `seconds` (if set), on `threads` threads; returns the report of them.
    mutating func train(games: Int?, seconds: Double?, threads: Int) throws(CallError) -> JSONValue {
        let counted = metadata
        let run: TrainingSetup
        do throws(TrainingError) {
            run = try TrainingSetup(continuing: setup, from: counted, games: games, seconds: seconds, threads: threads)
        } catch {
            throw .argument(error.message)
        }
        let start = SystemClock.monotonicSeconds(), secondsBefore = self.seconds
        let state = Mutex((metrics: metrics, score: Int64(0), moves: 0, games: 0, scored: 0, report: unreported))
        let hooks = TrainingRun.Hooks(
            metadata: { counted },
            game: { result, _ in
                let elapsed = secondsBefore + SystemClock.monotonicSeconds() - start
                state.withLock { state in
                    _ = state.metrics.record(result, elapsedSeconds: elapsed)
                    (state.moves, state.games) = (state.moves + result.moves, state.games + 1)
                    if !result.restarted { (state.score, state.scored) = (state.score + result.score, state.scored + 1) }
                    state.report.add(result)
                }
            })
        let outcome: TrainingRun.Outcome
        do { outcome = try run.trainingRun.run(hooks) } catch { throw CallError(.internalError("training failed: \(error)")) }
        let elapsed = SystemClock.monotonicSeconds() - start
        let played = state.withLock { $0 }
        (setup, metrics, self.seconds, unreported) = (run, played.metrics, secondsBefore + elapsed, played.report)
        unreported.seconds += elapsed
        if case .diverged(let game) = outcome.halt {
            throw CallError(.internalError(TrainingError.diverged(at: game, "set weights or make a new learner").message))
        }
        return .object([
            ("games", .integer(Int128(played.games))), ("moves", .integer(Int128(played.moves))), ("seconds", .double(elapsed)),
            ("mean_score", played.scored == 0 ? .null : .double(Double(played.score) / Double(played.scored))),
            ("total_games", .integer(Int128(played.metrics.games))),
        ])
    }
}

/// The games a learner trained since it last reported them: their count, moves and seconds, and the last of them
/// (at most a metrics window's), in the order they ended.
struct GamesReport: Sendable {
    var games = 0, moves = 0, seconds = 0.0
    var last: [GameResult] = []
    /// How many of its games a report carries one by one: the window from which `g2048 train` suggests the tile
    /// to downgrade from, and reports its last games' mean.
    static let kept = 1_000

    init() {}

    mutating func add(_ result: GameResult) {
        (games, moves) = (games + 1, moves + result.moves)
        // A restarted game counts, but is no game from the start for the window (`TrainingMetrics.record`).
        if result.restarted { return }
        if last.count == Self.kept { last.removeFirst() }
        last.append(result)
    }

    /// `{"games": …, "moves": …, "seconds": …, "last": [[score, max_tile, moves], …]}`.
    var json: JSONValue {
        let games: [JSONValue] = last.map { result in
            .array([.integer(Int128(result.score)), .integer(Int128(result.maxTile)), .integer(Int128(result.moves))])
        }
        return .object([
            ("games", .integer(Int128(self.games))), ("moves", .integer(Int128(moves))), ("seconds", .double(seconds)),
            ("last", .array(games)),
        ])
    }

    /// A report as `json` writes it, checked: whole numbers in range (read as every JSON input is, by `JSONReader`),
    /// and what only a report can contradict: `last` no longer than `games` and than `kept`, each entry a triple, every
    /// tile a power of two, its moves within `moves`.
    init(parsing text: String) throws(CallError) {
        let reader: JSONReader
        do throws(JSONParseError) { reader = JSONReader(try JSONValue.parse(Array(text.utf8))) } catch {
            throw .argument("games report: \(error)")
        }
        func reading<Value>(_ read: () throws(JSONReadError) -> Value) throws(CallError) -> Value {
            do throws(JSONReadError) { return try read() } catch { throw .argument("games report: \(Fields(reader: reader, line: 0).error(error).reason)") }
        }
        let counts = 0...Int128(Int.max)
        let entries = try reading { () throws(JSONReadError) in
            try reader.allowOnly(["games", "moves", "seconds", "last"])
            (games, moves) = (Int(try reader.member("games").integer(in: counts)), Int(try reader.member("moves").integer(in: counts)))
            seconds = try reader.member("seconds").number(in: 0...Double.greatestFiniteMagnitude)
            return try reader.member("last").array()
        }
        guard entries.count <= min(games, Self.kept) else {
            throw .argument("games report: last holds \(entries.count) games, more than its \(games) games or \(Self.kept)")
        }
        for entry in entries {
            let triple = try reading { () throws(JSONReadError) in try entry.array() }
            guard triple.count == 3 else {
                throw .argument("games report: \"\(entry.path)\" must be [score, max_tile, moves], got \(entry.value.serialized)")
            }
            let (score, tile, moves) = try reading { () throws(JSONReadError) in
                (try triple[0].integer(in: counts), Int(try triple[1].integer(in: 2...(1 << 20))), try triple[2].integer(in: counts))
            }
            guard tile & (tile - 1) == 0 else { throw .argument("games report: \"\(triple[1].path)\" must be a power of two, got \(tile)") }
            last.append(GameResult(score: Int64(score), maxTile: tile, moves: Int(moves)))
        }
        guard last.reduce(0, { $0 + $1.moves }) <= moves else { throw .argument("games report: last has more moves than the \(moves) of all") }
    }
}

/// A learner handle's box: its state behind a lock (calls take turns), and the process that made it.
typealias LearnerBox = LockedBox<LearnerState>

@_cdecl("g2048_learner_make")
public func g2048LearnerMake(_ options: UnsafePointer<CChar>?, _ learner: UnsafeMutablePointer<Int64>?) -> g2048_status {
    call { () throws(CallError) in
        guard let learner else { throw .argument("learner must not be NULL") }
        let request = try LearnerOptions(try json(options, name: "options") ?? .object([])).request()
        let setup: TrainingSetup
        do { setup = try TrainingSetup(request) } catch let error as TrainingError { throw .argument(error.message) } catch {
            throw .argument("\(error)")
        }
        let base = setup.base
        let metrics = TrainingMetrics(gamesBefore: base.games, movesBefore: base.moves, secondsBefore: base.elapsedSeconds)
        learner.pointee = Handles.add(box: LearnerBox(LearnerState(setup: setup, metrics: metrics, seconds: base.elapsedSeconds)))
    }
}

@_cdecl("g2048_learner_destroy")
public func g2048LearnerDestroy(_ learner: Int64) -> g2048_status {
    call { () throws(CallError) in try Handles.remove(learner, as: LearnerBox.self) }
}

@_cdecl("g2048_learner_train")
public func g2048LearnerTrain(
    _ learner: Int64, _ games: Int64, _ seconds: Double, _ threads: Int32, _ report: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let report else { throw .argument("report must not be NULL") }
        guard games >= 0 else { throw .argument("games must be 0 or more, got \(games)") }
        guard seconds.isFinite, seconds >= 0, seconds <= 1e9 else { throw .argument("seconds must be a finite number from 0 to 1e9, got \(seconds)") }
        guard games > 0 || seconds > 0 else { throw .argument("games or seconds must be set: with neither, training would never end") }
        guard TrainingRequest.threadCounts.contains(Int(threads)) else {
            throw .argument("threads must be \(OptionConstraint.expectation(integersIn: TrainingRequest.threadCounts)), got \(threads)")
        }
        let answer = try box.value.withLock { state throws(CallError) in
            try state.train(games: games > 0 ? Int(games) : nil, seconds: seconds > 0 ? seconds : nil, threads: Int(threads))
        }
        report.pointee = ThreadText.answer(answer.serialized)
    }
}

@_cdecl("g2048_learner_save")
public func g2048LearnerSave(_ learner: Int64, _ path: UnsafePointer<CChar>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let path else { throw .argument("path must not be NULL") }
        try box.value.withLock { state throws(CallError) in
            do throws(WeightsFileError) {
                try WeightsFile.save(state.setup.network, metadata: state.metadata, to: String(cString: path))
            } catch {
                throw CallError(.internalError(error.description))
            }
        }
    }
}

@_cdecl("g2048_learner_games")
public func g2048LearnerGames(_ learner: Int64, _ report: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let report else { throw .argument("report must not be NULL") }
        let text = box.value.withLock { state in
            defer { state.unreported = GamesReport() }
            return state.unreported.json.serialized
        }
        report.pointee = ThreadText.answer(text)
    }
}

@_cdecl("g2048_learner_record")
public func g2048LearnerRecord(_ learner: Int64, _ report: UnsafePointer<CChar>?, _ seconds: Double) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let report else { throw .argument("report must not be NULL") }
        guard seconds >= 0, seconds.isFinite else { throw .argument("seconds must be a number of at least 0, got \(seconds)") }
        let games = try GamesReport(parsing: String(cString: report))
        box.value.withLock { state in
            state.metrics.count(games: games.games - games.last.count, moves: games.moves - games.last.reduce(0) { $0 + $1.moves })
            state.seconds += seconds
            for result in games.last { _ = state.metrics.record(result, elapsedSeconds: state.seconds) }
        }
    }
}

@_cdecl("g2048_learner_info")
public func g2048LearnerInfo(_ learner: Int64, _ info: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> g2048_status {
    call { () throws(CallError) in
        let box = try Handles.box(learner, as: LearnerBox.self)
        guard let info else { throw .argument("info must not be NULL") }
        let text = box.value.withLock { state in
            let (network, metadata) = (state.setup.network, state.metadata)
            return JSONValue.object([
                ("weights", .integer(Int128(network.weights.count))), ("rows", .integer(Int128(network.rows))),
                ("cols", .integer(Int128(network.cols))), ("patterns", .integer(Int128(network.patterns.count))),
                ("games", .integer(Int128(metadata.games))), ("moves", .integer(Int128(metadata.moves))),
                ("learning", .string(metadata.learning.rawValue)),
            ]).serialized
        }
        info.pointee = ThreadText.answer(text)
    }
}

/// `body` on the network of `learner` under its lock, once `count` is its number of weights and `weights` not NULL;
/// the weights it leaves are the learner's last export.
func withWeights(_ learner: Int64, _ weights: UnsafeRawPointer?, count: Int64, _ body: (WeightStorage, UnsafeRawPointer) -> Void)
    throws(CallError)
{
    let box = try Handles.box(learner, as: LearnerBox.self)
    try box.value.withLock { state throws(CallError) in
        let stored = state.setup.network.weights
        guard count == Int64(stored.count) else { throw .argument("count must be the network's \(stored.count) weights, got \(count)") }
        guard let weights else { throw .argument("weights must not be NULL") }
        body(stored, weights)
        state.exported = stored.withBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

@_cdecl("g2048_learner_weights")
public func g2048LearnerWeights(_ learner: Int64, _ weights: UnsafeMutablePointer<Float>?, _ count: Int64) -> g2048_status {
    call { () throws(CallError) in
        try withWeights(learner, weights, count: count) { stored, out in
            stored.withBytes { UnsafeMutableRawPointer(mutating: out).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }
}

@_cdecl("g2048_learner_set_weights")
public func g2048LearnerSetWeights(_ learner: Int64, _ weights: UnsafePointer<Float>?, _ count: Int64) -> g2048_status {
    call { () throws(CallError) in
        try withWeights(learner, weights, count: count) { stored, given in
            stored.withMutableBytes { $0.baseAddress!.copyMemory(from: given, byteCount: $0.count) }
        }
    }
}
