/// One episode of a game replayed a step at a time from its header, as its record is read: what
/// ``ReplayViewer`` checks and shows, for any game.
///
/// A replayer rebuilds the environment from the header, resets it with the recorded seed and checks the start;
/// each recorded step must then reproduce exactly, and the end line must agree with the replay. The first
/// difference is a ``ReplayMismatch`` naming the step and the field.
package protocol EpisodeReplayer {
    /// The game's record lines.
    associatedtype Format: EpisodeFormat
    /// One position of the replay: the start, or the position after a step.
    associatedtype Position

    /// Resets an environment as `header` says and checks the start.
    init(_ header: Format.Header) throws(ReplayMismatch)
    /// The start position.
    var start: Position { get }
    /// Plays the next recorded step and checks what it gave.
    mutating func step(_ recorded: Format.Step) throws(ReplayMismatch) -> Position
    /// Checks the end line against the replay.
    func end(_ end: Format.End) throws(ReplayMismatch)

    /// The step that led to `position` (0 for the start).
    static func stepNumber(of position: Position) -> Int
    /// The seed `header` resets with.
    static func seed(of header: Format.Header) -> UInt64
    /// The header in a few words for a replay's title: size, seed, player (`4x4 · seed 42 · human`).
    static func title(of header: Format.Header) -> String
    /// How the replayed episode ended, for the summary line (`4x4, human, score 12, max tile 8`).
    static func summary(of header: Format.Header, last: Position) -> String
    /// The screen of `position` under `title`, in an episode of `lastStep` steps.
    static func frame(_ position: Position, title: String, lastStep: Int) -> Frame
}
