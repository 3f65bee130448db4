import GymSystem

/// Writes episodes of one game to a record file as they are played, one JSON line at a time.
///
///     let recorder = try EpisodeRecorder<Game2048Episodes>(path: "game.jsonl")
///     try recorder.begin(header)            // at each new game
///     try recorder.append(step)             // after each move
///     recorder.gameOver()                   // 2048: when no legal move is left
///     try recorder.finish()                 // the last end line
///     recorder.close()
///
/// Each line is written with one `write` call as soon as it is known. An
/// episode's end line is written when the next one begins (a restart, with
/// `"last_episode":false`) or at ``finish()``, so a program killed before then
/// leaves a record that ``RecordedEpisode/parse(bytes:game:registry:)`` reports as truncated rather
/// than one that passes for complete. The file is created, or emptied if it
/// exists, by the initializer. The end line is the game's (``EpisodeFormat/end(steps:progress:isLastEpisode:)``),
/// from the same progress its reader checks it against.
package final class EpisodeRecorder<Format: EpisodeFormat> {
    /// The file written.
    package let path: String
    var descriptor: Int32
    var stepNumber = 0
    /// The open episode's progress; `nil` before the first episode and after its end line.
    var progress: Format.Progress? = nil

    /// Creates or empties the file.
    ///
    /// - Throws: `FileError` when the file cannot be opened for writing.
    /// Whether this recorder made the file (it did not exist before): only then may a failure remove it.
    let createdFile: Bool

    package init(path: String) throws(FileError) {
        self.path = path
        createdFile = !SystemIO.entryExists(path)
        descriptor = try SystemIO.createFile(path)
    }

    /// After a failed write (a full disk): closes the file and removes it if this recorder created
    /// it, so that a truncated record neither stays behind nor blocks the next run's `--record`.
    package func discard() {
        close()
        if createdFile { SystemIO.remove(path) }
    }

    deinit { close() }

    /// Starts a new episode.
    ///
    /// Ends the current episode first, if any, with an end line saying another follows.
    package func begin(_ header: Format.Header) throws(FileError) {
        if progress != nil { try writeEnd(isLastEpisode: false) }
        stepNumber = 0
        progress = Format.progress(at: header)
        try write(Format.jsonLine(header))
    }

    /// Appends a step to the current episode.
    package func append(_ step: Format.Step) throws(FileError) {
        stepNumber += 1
        if progress != nil { Format.advance(&progress!, by: step) }
        try write(Format.jsonLine(step, number: stepNumber))
    }

    /// Writes the end line of the last episode; call it once the game is left.
    package func finish() throws(FileError) {
        guard progress != nil else { return }
        try writeEnd(isLastEpisode: true)
    }

    func writeEnd(isLastEpisode: Bool) throws(FileError) {
        guard let progress else { return }
        self.progress = nil
        try write(Format.jsonLine(Format.end(steps: stepNumber, progress: progress, isLastEpisode: isLastEpisode)))
    }

    /// Closes the file; later writes fail. Call ``finish()`` first, or the record reads as truncated.
    package func close() {
        guard descriptor >= 0 else { return }
        SystemIO.closeFile(descriptor)
        descriptor = -1
    }

    func write(_ line: String) throws(FileError) {
        guard descriptor >= 0 else { throw FileError("write", path, reason: "the file is already closed") }
        if let code = SystemIO.writeAll(descriptor, line + "\n") { throw FileError("write", path, code: code) }
    }
}

extension EpisodeRecorder where Format == Game2048Episodes {
    /// Notes that the current episode is over (no legal move is left): its end line will say `game_over`.
    package func gameOver() { progress?.isOver = true }
}
