import GymJSON
import Game2048
import GymSystem

extension BestScores {
    /// What ``load(directory:)`` found.
    package struct Loaded: Sendable {
        /// The scores read (empty when the file is missing or unusable).
        package var scores: BestScores
        /// A one-line problem to report on stderr, or `nil` when all went well
        /// (a missing file is not a problem: it is created on the first save).
        package var problem: String?
        /// Whether the file exists but is corrupted, so it should be replaced by a ``save(lockWait:)`` now.
        package var isCorrupted = false
    }

    /// Why best scores could not be saved, in one line naming the file.
    package struct SaveError: Error, Hashable, Sendable, CustomStringConvertible {
        /// For example "cannot write /x/best-scores.json: No space left on device".
        package var description: String
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
    package static func defaultDirectory(environment: [String: String]? = nil) -> String? {
        let lookup: (String) -> String? = { name in environment.map { $0[name] } ?? SystemIO.environment(name) }
        if let data = lookup("XDG_DATA_HOME"), data.hasPrefix("/") {
            return trimmingTrailingSlashes(data) + "/gym2048"
        }
        if let home = lookup("HOME"), home.hasPrefix("/") {
            return trimmingTrailingSlashes(home) + "/.local/share/gym2048"
        }
        return nil
    }

    /// The directory of `agent`'s best scores: `agents/<agent>` inside `directory`, so that a watched agent's
    /// scores never replace the player's (`nil`: the player's own, `directory` itself).
    ///
    ///     BestScores.directory("/home/me/.local/share/gym2048", agent: "ntuple")
    ///     // "/home/me/.local/share/gym2048/agents/ntuple"
    package static func directory(_ directory: String, agent: String?) -> String {
        agent.map { directory + "/agents/" + $0 } ?? directory
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return String(path)
    }

    /// The largest best-score file read (far more than every size's score).
    static let sizeLimit = 1 << 20

    /// Where a corrupted file is moved before a new one is written: `best-scores.json.corrupted`,
    /// or `.corrupted-2`, `-3`, … when that is taken, so that every set-aside copy is kept.
    func corruptedCopyPath(_ number: Int) -> String { path + ".corrupted" + (number == 1 ? "" : "-\(number)") }

    /// The first name ``corruptedCopyPath(_:)`` gives that is free now.
    var freeCorruptedCopyPath: String {
        var number = 1
        while SystemIO.entryExists(corruptedCopyPath(number)) { number += 1 }
        return corruptedCopyPath(number)
    }
    /// The lock file that serializes saves.
    var lockPath: String { path + ".lock" }

    /// Reads the scores stored in `directory`.
    ///
    /// Never throws: a missing file gives an empty table; an unreadable or
    /// corrupted one gives an empty table and a ``Loaded/problem`` line such as
    /// `best-score file /x/best-scores.json is corrupted (expected an object at column 1); starting a new one
    /// (the old file is kept as /x/best-scores.json.corrupted)`.
    package static func load(directory: String) -> Loaded {
        var table = BestScores(directory: directory)
        let bytes: [UInt8]?
        do {
            bytes = try SystemIO.readFileIfPresent(table.path, limit: sizeLimit)
        } catch {
            return Loaded(scores: table, problem: "\(error); best scores start from 0")
        }
        guard let bytes else { return Loaded(scores: table, problem: nil) }
        do {
            try table.read(bytes)
            return Loaded(scores: table, problem: nil)
        } catch let error where error.isNewerVersion {
            return Loaded(scores: table, problem: "best-score file \(table.path) \(error); best scores will not be saved to it")
        } catch {
            return Loaded(
                scores: table,
                problem: "best-score file \(table.path) is corrupted (\(error)); starting a new one "
                    + "(the old file is kept as \(table.freeCorruptedCopyPath))", isCorrupted: true)
        }
    }

    /// Why a best-score file could not be used.
    struct CorruptFile: Error, CustomStringConvertible {
        var description: String
        /// The file is of a later version of the format: not corrupted, but not this build's to rewrite.
        var isNewerVersion = false
    }

    /// Reads a file's contents into this table: its scores and the members it does not know.
    mutating func read(_ bytes: [UInt8]) throws(CorruptFile) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CorruptFile(description: "not UTF-8 text") }
        let json: JSONValue
        do { json = try JSONValue.parse(text: text) } catch { throw CorruptFile(description: error.description) }
        guard case .object(let members) = json else { throw CorruptFile(description: "expected an object, got \(json.summary)") }
        guard json["format"] == .string(BestScores.format) else {
            throw CorruptFile(description: "\"format\" must be \"\(BestScores.format)\", got \(json["format"]?.summary ?? "nothing")")
        }
        guard case .integer(let version)? = json["version"], version >= 1 else {
            throw CorruptFile(description: "\"version\" must be \(BestScores.version), got \(json["version"]?.summary ?? "nothing")")
        }
        guard version <= BestScores.version else {
            throw CorruptFile(
                description: "was written by a newer g2048 (version \(version); this one reads version \(BestScores.version))",
                isNewerVersion: true)
        }
        guard case .object(let entries)? = json["best"] else {
            throw CorruptFile(description: "\"best\" must be an object, got \(json["best"]?.summary ?? "nothing")")
        }
        var scores: [String: Int64] = [:], otherScores: [String: JSONValue] = [:], otherMembers: [String: JSONValue] = [:]
        for (key, value) in entries {
            guard scores[key] == nil && otherScores[key] == nil else { throw CorruptFile(description: "\"\(key)\" appears twice") }
            guard BestScores.isSizeKey(key) else {
                otherScores[key] = BestScores.preserved(value)
                continue
            }
            guard case .integer(let score) = value, score >= 0, score <= Int128(Int64.max) else {
                throw CorruptFile(description: "the score of \(key) must be an integer from 0 to \(Int64.max), got \(value.summary)")
            }
            scores[key] = Int64(score)
        }
        for (key, value) in members where !["format", "version", "best"].contains(key) {
            guard otherMembers[key] == nil else { throw CorruptFile(description: "\"\(key)\" appears twice") }
            otherMembers[key] = BestScores.preserved(value)
        }
        self.scores = scores
        self.otherScores = otherScores
        self.otherMembers = otherMembers
    }

    /// A value to write back as it was read. A number too large for a double (`1e999`) parses as
    /// an infinity, which the writer would turn into `null`; it is kept as a number that reads back the same.
    static func preserved(_ value: JSONValue) -> JSONValue {
        switch value {
        case .double(let number) where !number.isFinite: .raw(Array((number < 0 ? "-1e999" : "1e999").utf8))
        case .array(let items): .array(items.map(preserved))
        case .object(let members): .object(members.map { ($0.0, preserved($0.1)) })
        default: value
        }
    }

    /// Whether `key` reads `<rows>x<cols>` with both in 2...8.
    static func isSizeKey(_ key: String) -> Bool {
        let parts = key.split(separator: "x", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { part in
                part.count == 1 && Int(part).map { Rules.sizeRange.contains($0) } == true
            }
    }

    /// The file's contents for the current scores, keys sorted, with the members kept from the file.
    var fileContents: String {
        var entries = scores.map { ($0.key, JSONValue.integer(Int128($0.value))) } + otherScores.map { ($0.key, $0.value) }
        entries.sort { $0.0 < $1.0 }
        let json = JSONValue.object(
            [
                ("format", .string(BestScores.format)),
                ("version", .integer(Int128(BestScores.version))),
                ("best", .object(entries)),
            ] + otherMembers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return json.serialized + "\n"
    }

    /// Writes the scores, merged with what was saved meanwhile, creating the directory if needed.
    ///
    /// Under an exclusive lock on `lockPath`, the file on disk is read again and
    /// each size keeps the higher score (members of the file this version does not
    /// know are kept); then the file is replaced atomically (temporary file in the
    /// same directory, `fsync`, `rename`, `fsync` of the directory; leftovers of
    /// killed saves are removed, and only a regular file is replaced). A corrupted file is moved to
    /// the first free ``corruptedCopyPath(_:)`` first; a file of a newer version is not touched.
    ///
    /// Another process holding the lock is waited for at most `lockWait` seconds: a game must not
    /// freeze behind a stuck process. After that the scores are saved without the lock (still
    /// merged with the file and replaced atomically, so nothing is corrupted; only a save made at
    /// that very moment by the holder could be overwritten), and the returned note says so.
    ///
    /// - Returns: a one-line note when the lock was not obtained, else `nil`.
    /// - Throws: ``SaveError`` naming the file when it cannot be read or written, or when it is
    ///   of a newer version.
    @discardableResult
    package mutating func save(lockWait: Double = 2) throws(SaveError) -> String? {
        do {
            try SystemIO.makeDirectories(directory)
            let lock = try SystemIO.lockExclusively(lockPath, waitingAtMost: lockWait)
            defer { if let lock { SystemIO.closeFile(lock) } }
            let note =
                lock == nil
                ? "another process held \(lockPath) for \(formatFixed(lockWait, digits: 1)) s; best scores saved without it" : nil
            if let bytes = try SystemIO.readFileIfPresent(path, limit: BestScores.sizeLimit) {
                var saved = BestScores(directory: directory)
                do {
                    try saved.read(bytes)
                    merge(saved)
                } catch let error where error.isNewerVersion {
                    throw SaveError(description: "best-score file \(path) \(error); not replaced")
                } catch {
                    var number = 1
                    while try !SystemIO.moveWithoutReplacing(path, to: corruptedCopyPath(number)) { number += 1 }
                }
            }
            try AtomicFile.write(Array(fileContents.utf8), to: path)
            return note
        } catch let error as SaveError {
            throw error
        } catch {
            throw SaveError(description: "\(error)")
        }
    }

    /// Takes the higher score of each size, and the members of `saved` this table does not have.
    mutating func merge(_ saved: BestScores) {
        for (key, score) in saved.scores where score > scores[key] ?? 0 { scores[key] = score }
        otherScores.merge(saved.otherScores) { mine, _ in mine }
        otherMembers.merge(saved.otherMembers) { mine, _ in mine }
    }
}
