#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EpisodeRecord {
    /// Reads every episode of a record file.
    ///
    ///     let episodes = try EpisodeRecord.load(from: "game.jsonl")
    ///
    /// - Throws: ``RecordError`` naming the file: unreadable ("cannot read game.jsonl:
    ///   No such file or directory"), not UTF-8, or malformed as ``parse(_:)`` reports.
    public static func load(from path: String) throws(RecordError) -> [EpisodeRecord] {
        let bytes: [UInt8]?
        do {
            bytes = try SystemIO.readFile(path)
        } catch {
            throw RecordError(line: 0, error.description)
        }
        guard let bytes else { throw RecordError(line: 0, SystemError("read", path, code: ENOENT).description) }
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
