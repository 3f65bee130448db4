/// Subcommands under one word, as `git remote add`: `g2048 rank submit`, `g2048 rank show`.
///
/// A grouped command is an ordinary ``Command`` whose spec is named with the group's word first (`rank submit`), so
/// its usage line, help and tests are every other command's; the group only gives the word, its abstract in the
/// tool's overview, and the overview of its own that `g2048 rank` and `g2048 rank --help` print.
struct CommandGroup {
    /// The group's word, e.g. `rank`.
    var name: String
    /// The one-sentence abstract the tool's overview shows for the group.
    var abstract: String
    /// The group's commands, in help order; each one's spec is named `<name> <subcommand>`.
    var commands: [any Command.Type]

    /// The subcommand words, e.g. `submit`.
    var subcommands: [String] { commands.map { String($0.spec.name.dropFirst(name.count + 1)) } }

    /// The command `word` names in this group, if any.
    func command(_ word: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == "\(name) \(word)" }
    }

    /// What `g2048 <group>` and `g2048 <group> --help` print.
    var overview: String {
        let width = (subcommands.map(\.count).max() ?? 0) + 2
        return """
            OVERVIEW: \(abstract)

            USAGE: g2048 \(name) <subcommand> [options]

            SUBCOMMANDS:
            \(zip(subcommands, commands).map { "  " + $0.padding(width) + $1.spec.abstract }.joined(separator: "\n"))

            OPTIONS:
              -h, --help  Show help information.

              See 'g2048 \(name) <subcommand> --help' for a subcommand's options.
            """
    }
}
