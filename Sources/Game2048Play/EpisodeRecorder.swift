/// Writes episodes to a record file as they are played, one JSON line at a time.
///
///     let recorder = try EpisodeRecorder(path: "game.jsonl")
///     try recorder.begin(header)            // at each new game
///     try recorder.append(step)             // after each move
///     recorder.close()
///
/// Each line is written with one `write` call as soon as it is known, so a game
/// that is interrupted leaves a valid record of the moves made so far (at
/// worst a last line cut off, which ``EpisodeRecord/parse(_:)`` reports as
/// truncated). The file is created, or emptied if it exists, by the initializer.
public final class EpisodeRecorder {
    /// The file written.
    public let path: String
    var descriptor: Int32
    var stepNumber = 0

    /// Creates or empties the file.
    ///
    /// - Throws: ``SystemError`` when the file cannot be opened for writing.
    public init(path: String) throws(SystemError) {
        self.path = path
        descriptor = try SystemIO.createFile(path)
    }

    deinit { close() }

    /// Starts a new episode.
    public func begin(_ header: EpisodeHeader) throws(SystemError) {
        stepNumber = 0
        try write(header.jsonLine)
    }

    /// Appends a step to the current episode.
    public func append(_ step: EpisodeStep) throws(SystemError) {
        stepNumber += 1
        try write(step.jsonLine(number: stepNumber))
    }

    /// Closes the file; later writes fail.
    public func close() {
        guard descriptor >= 0 else { return }
        SystemIO.closeFile(descriptor)
        descriptor = -1
    }

    func write(_ line: String) throws(SystemError) {
        guard descriptor >= 0, SystemIO.writeAll(descriptor, line + "\n") else { throw SystemError("write", path) }
    }
}
