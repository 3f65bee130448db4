import GymCore
import GymSystem

/// One environment of a declared game played a step at a time, every episode written to a record as it goes:
/// what `g2048 play` drives for any game but 2048, a person's or a player's actions alike.
///
///     var play = try DeclaredPlay(game: memorize, values: values, player: "human", recordPath: "m.jsonl")
///     play.reset(seed: 8)
///     let outcome = try play.step(3)
///     play.finish()
package struct DeclaredPlay {
    /// The game.
    package let game: GameDeclaration
    /// Its options' values.
    package let values: [String: OptionValue]
    /// Who plays: `human`, or a player's name.
    package let player: String
    /// The made game (one environment, which never resets itself).
    package private(set) var instance: any GameInstance
    /// Its results after the last reset or step.
    package private(set) var results: GameResults
    /// The last step's outcome in the current episode (`nil` right after a reset).
    package private(set) var outcome: StepOutcome?
    /// The record being written.
    package let recorder: EpisodeRecorder<DeclaredEpisodes>?
    /// The first failed write of the record: what follows is not recorded, and the cut file is removed.
    package private(set) var failure: FileError? = nil

    /// A game of `values` (which `make` accepts), recorded at `recordPath` when one is given.
    ///
    /// - Throws: `OptionRefusal` for values that make no game, `FileError` when the record cannot be created.
    package init(game: GameDeclaration, values: [String: OptionValue], player: String, recordPath: String?) throws {
        self.game = game
        self.values = game.defaults.merging(values) { $1 }
        self.player = player
        instance = try game.make(values, count: 1, autoresetMode: .disabled)
        results = GameResults(space: instance.space, count: 1)
        recorder = try recordPath.map { path throws(FileError) in try EpisodeRecorder<DeclaredEpisodes>(path: path) }
    }

    /// Whether the current episode has ended.
    package var isOver: Bool { outcome.map { $0.terminated || $0.truncated } ?? false }

    /// Starts an episode from `seed`, and records its header.
    package mutating func reset(seed: UInt64) {
        instance.reset(seeds: [seed])
        results.read(instance)
        outcome = nil
        let recorded = instance.recorded
        let header = DeclaredHeader(game: game, seed: seed, config: values, player: player, members: recorded?.startMembers(at: 0) ?? [])
        record { recorder throws(FileError) in try recorder.begin(header) }
        recorder?.note(endMembers: recorded?.endMembers(at: 0) ?? [], outcome: .stopped)
    }

    /// Takes `action`, and records the step.
    ///
    /// - Throws: `GameRefusal` for an action the game's rules refuse, whatever its invalid-action policy (a person
    ///   is told why, and no step is taken); nothing changed.
    @discardableResult
    package mutating func step(_ action: Int) throws(GameRefusal) -> StepOutcome {
        if let reason = instance.refusal(of: action, at: 0) { throw .illegalAction(index: 0, reason: reason) }
        var game = instance
        try [Int64(action)].withUnsafeBufferPointer { actions throws(GameRefusal) in try game.step(actions: actions) }
        instance = game
        results.read(instance)
        let outcome = results.outcome(at: 0)
        self.outcome = outcome
        let recorded = instance.recorded
        let step = DeclaredStep(
            layout: self.game.recordLayout, action: action, reward: outcome.reward, members: recorded?.stepMembers(at: 0, after: action) ?? [])
        record { recorder throws(FileError) in try recorder.append(step) }
        recorder?.note(endMembers: recorded?.endMembers(at: 0) ?? [], outcome: DeclaredEnd.Outcome(outcome))
        return outcome
    }

    /// Writes with the recorder, if any; a failure is kept.
    mutating func record(_ write: (EpisodeRecorder<DeclaredEpisodes>) throws(FileError) -> Void) {
        guard let recorder, failure == nil else { return }
        do { try write(recorder) } catch { failure = error }
    }

    /// Ends the record (its last end line) and closes it; a failed write removes the cut record and is thrown.
    package mutating func finish() throws(FileError) {
        if failure == nil { record { recorder throws(FileError) in try recorder.finish() } }
        if let failure {
            recorder?.discard()
            throw failure
        }
        recorder?.close()
    }
}
