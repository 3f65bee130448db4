import GymCore

/// The games Gym2048 serves, declared once: the command line's `--game` reads this list, and so does every door
/// that makes a game by name.
///
///     Game(rawValue: "memorize")   // .memorize
public enum Game: String, CaseIterable, Sendable {
    /// 2048 (Gabriele Cirulli's rules, on any board from 2×2 to 8×8): the `Game2048` module.
    case twentyFortyEight = "2048"
    /// Memorize (Concentration), a partially observed card-matching game: the `Memorize` module.
    case memorize

    /// One line on the game, for helps.
    public var summary: String {
        switch self {
        case .twentyFortyEight: "slide and merge tiles (the default)"
        case .memorize: "turn two cards a move and match the pairs, from memory"
        }
    }

    /// The names, as a help lists them: "2048 or memorize".
    public static var names: String { allCases.map(\.rawValue).listedWithOr }
}
