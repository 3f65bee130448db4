import GymCore
import GymGames
import GymJSON

extension GameRegistry {
    /// The games as data, for the in-process doors (`g2048_games` in C, Python's environment ids): one object per
    /// game with its `name`, `summary` and `options` (each with `name`, `flag`, the constraint's members as
    /// `g2048_options` gives them, `default` and `help`), and the door's own options every game takes.
    public var json: JSONValue {
        .object([
            (
                "games",
                .array(
                    games.map { game in
                        .object([
                            ("name", .string(game.name)), ("summary", .string(game.summary)),
                            (
                                "options",
                                .array(
                                    game.options.map { option in
                                        .object(
                                            [("name", .string(option.name)), ("flag", .string("--" + option.flag))] + option.constraint.tableMembers
                                                + [("default", JSONValue(option.defaultValue)), ("help", .string(option.help))])
                                    })
                            ),
                        ])
                    })
            ),
            ("door_options", .array(DeclaredSession.doorOptions.map { .string($0.name) })),
        ])
    }
}
