import GymSystem

extension RecordedEpisode {
    /// Reads every episode of a record file.
    ///
    ///     let episodes = try EpisodeRecord.load(from: "game.jsonl")
    ///
    /// - Throws: ``RecordError`` naming the file: unreadable ("cannot open game.jsonl:
    ///   No such file or directory"), not UTF-8, or malformed as ``parse(bytes:game:registry:)`` reports.
    package static func load(from path: String) throws(RecordError) -> [RecordedEpisode] {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try SystemIO.readFile(path) } catch { throw RecordError(line: 0, error.description) }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw RecordError(line: 0, "not UTF-8 text", file: path)
        }
        do {
            return try parse(bytes: bytes)
        } catch {
            var error = error
            error.file = path
            throw error
        }
    }
}
