import Game2048JSON
import Game2048

extension BestScores {
    /// What ``load(directory:)`` found.
    public struct Loaded: Sendable {
        /// The scores read (empty when the file is missing or unusable).
        public var scores: BestScores
        /// A one-line problem to report on stderr, or `nil` when all went well
        /// (a missing file is not a problem: it is created on the first save).
        public var problem: String?
        /// Whether the file exists but is corrupted, so it should be replaced by a ``save()`` now.
        public var isCorrupted = false
    }

    /// The default directory: `$XDG_DATA_HOME/gym2048`, or `~/.local/share/gym2048`
    /// when `XDG_DATA_HOME` is unset, empty or relative (as the XDG Base Directory
    /// specification says to ignore a relative path).
    ///
    ///     BestScores.defaultDirectory(environment: ["HOME": "/home/me"])
    ///     // "/home/me/.local/share/gym2048"
    ///
    /// - Parameter environment: the variables to look at; `nil` reads the process environment.
    /// - Returns: the directory, or `nil` when neither variable gives an absolute path.
    public static func defaultDirectory(environment: [String: String]? = nil) -> String? {
        let lookup: (String) -> String? = { name in environment.map { $0[name] } ?? SystemIO.environment(name) }
        if let data = lookup("XDG_DATA_HOME"), data.hasPrefix("/") {
            return trimmingTrailingSlashes(data) + "/gym2048"
        }
        if let home = lookup("HOME"), home.hasPrefix("/") {
            return trimmingTrailingSlashes(home) + "/.local/share/gym2048"
        }
        return nil
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return String(path)
    }

    /// Reads the scores stored in `directory`.
    ///
    /// Never throws: a missing file gives an empty table; an unreadable or
    /// corrupted one gives an empty table and a ``Loaded/problem`` line such as
    /// `best-score file /x/best-scores.json is corrupted (expected an object at column 1); starting a new one`.
    /// The corrupted file is replaced by the next ``save()``.
    public static func load(directory: String) -> Loaded {
        var table = BestScores(directory: directory)
        let bytes: [UInt8]?
        do {
            bytes = try SystemIO.readFile(table.path, limit: 1 << 20)
        } catch {
            return Loaded(scores: table, problem: "\(error); best scores start from 0")
        }
        guard let bytes else { return Loaded(scores: table, problem: nil) }
        do {
            table.scores = try parse(bytes)
            return Loaded(scores: table, problem: nil)
        } catch {
            return Loaded(scores: table, problem: "best-score file \(table.path) is corrupted (\(error)); starting a new one",
                          isCorrupted: true)
        }
    }

    /// Why a best-score file could not be used.
    struct CorruptFile: Error, CustomStringConvertible {
        var description: String
    }

    /// The scores in a file's contents.
    static func parse(_ bytes: [UInt8]) throws(CorruptFile) -> [String: Int64] {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CorruptFile(description: "not UTF-8 text") }
        let json: JSONValue
        do { json = try JSONValue.parse(text: text) } catch { throw CorruptFile(description: error.description) }
        guard case .object = json else { throw CorruptFile(description: "expected an object, got \(json.summary)") }
        guard json["format"] == .string(format) else { throw CorruptFile(description: "\"format\" is not \"\(format)\"") }
        guard case .integer(let version)? = json["version"], version == BestScores.version else {
            throw CorruptFile(description: "\"version\" must be \(BestScores.version), got \(json["version"]?.summary ?? "nothing")")
        }
        guard case .object(let members)? = json["best"] else { throw CorruptFile(description: "\"best\" must be an object") }
        var scores: [String: Int64] = [:]
        for (key, value) in members {
            guard isSizeKey(key) else { throw CorruptFile(description: "\"\(key)\" is not a board size like \"4x4\"") }
            guard case .integer(let score) = value, score >= 0, score <= Int128(Int64.max) else {
                throw CorruptFile(description: "the score of \(key) must be an integer of 0 or more, got \(value.summary)")
            }
            scores[key] = Int64(score)
        }
        return scores
    }

    /// Whether `key` reads `<rows>x<cols>` with both in 2...8.
    static func isSizeKey(_ key: String) -> Bool {
        let parts = key.split(separator: "x", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { part in
            part.count == 1 && Int(part).map { Rules.sizeRange.contains($0) } == true
        }
    }

    /// The file's contents for the current scores, keys sorted.
    var fileContents: String {
        let members = scores.keys.sorted().map { ($0, JSONValue.integer(Int128(scores[$0]!))) }
        let json = JSONValue.object([
            ("format", .string(BestScores.format)),
            ("version", .integer(Int128(BestScores.version))),
            ("best", .object(members)),
        ])
        return json.serialized + "\n"
    }

    /// Writes the scores, merged with any better ones saved meanwhile, creating the directory if needed.
    ///
    /// The write is atomic (temporary file in the same directory, `fsync`,
    /// `rename`): it leaves no temporary file behind, and a corrupted file is
    /// replaced by a valid one.
    ///
    /// - Throws: ``SystemError`` when the directory or the file cannot be written.
    public mutating func save() throws(SystemError) {
        try SystemIO.makeDirectories(directory)
        if let bytes = try? SystemIO.readFile(path, limit: 1 << 20), let saved = try? BestScores.parse(bytes) {
            for (key, score) in saved where score > scores[key] ?? 0 { scores[key] = score }
        }
        try SystemIO.writeAtomically(Array(fileContents.utf8), to: path)
    }
}
