import Game2048
import GymJSON

/// The best score reached on each board size, kept in a small file under the user's data directory.
///
///     var best = BestScores.load(directory: BestScores.defaultDirectory()!).scores
///     best.record(1_234, rows: 4, cols: 4)     // true: a new best for 4x4
///     best[rows: 4, cols: 4]                   // 1234
///     try best.save()
///
/// Scores are keyed by the board's `Rules.sizeLabel` (`"4x4"`, `"3x5"`), as
/// the Tile2048 app keeps one best score per size. The file is
/// `best-scores.json` in ``directory``:
///
///     {"format":"gym2048-best-scores","version":1,"best":{"3x3":612,"4x4":20316}}
///
/// ``save(lockWait:)`` holds an exclusive lock (`flock` on `best-scores.json.lock` beside
/// the file) while it reads what is on disk, keeps the higher score of each size
/// (another game may have saved since this one loaded), and writes atomically: a
/// temporary file, `fsync`, then a rename, so the file is always either the old
/// or the new version and two games saving at once lose nothing. (A lock another
/// process keeps for more than 2 s is given up on, and the save says so: a game
/// never waits longer.) Members this version does not know (other keys at the top
/// or inside `best`) are kept as they are. A file that cannot be parsed is reported
/// by ``load(directory:)``; the next save moves it aside to `best-scores.json.corrupted`
/// (or `-2`, `-3`, …: every copy is kept) and starts a new one. A file of a newer
/// version is left alone. None of this stops a game.
package struct BestScores: Hashable, Sendable {
    /// The file's name inside ``directory``.
    package static let fileName = "best-scores.json"
    /// The `format` member of the file.
    package static let format = "gym2048-best-scores"
    /// The version of the file's layout.
    package static let version = 1

    /// The directory holding the file.
    package let directory: String
    /// The best score per size label.
    package internal(set) var scores: [String: Int64]
    /// Members of `best` that are not a board size this version knows, kept as read.
    var otherScores: [String: JSONValue] = [:]
    /// Top-level members other than `format`, `version` and `best`, kept as read.
    var otherMembers: [String: JSONValue] = [:]

    /// Creates an empty table stored in `directory` (nothing is read or written yet).
    package init(directory: String, scores: [String: Int64] = [:]) {
        self.directory = directory
        self.scores = scores
    }

    /// The path of the file.
    package var path: String { directory + "/" + BestScores.fileName }

    /// The best score on a board size (0 when none was recorded).
    package subscript(rows rows: Int, cols cols: Int) -> Int64 {
        scores[BestScores.key(rows: rows, cols: cols)] ?? 0
    }

    /// Records a score; keeps it if it beats the size's best.
    ///
    /// - Returns: whether it is a new best.
    @discardableResult
    package mutating func record(_ score: Int64, rows: Int, cols: Int) -> Bool {
        let key = BestScores.key(rows: rows, cols: cols)
        guard score > scores[key] ?? 0 else { return false }
        scores[key] = score
        return true
    }

    /// The key of a board size: `"4x4"`, the same label as `Rules.sizeLabel`.
    package static func key(rows: Int, cols: Int) -> String { "\(rows)x\(cols)" }
}
