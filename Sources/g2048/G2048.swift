import Game2048
import GymCore
import GymGames
import GymServer
import GymSystem

/// A subcommand: its spec, validation (in `init`), and its work (`run`).
protocol Command {
    /// What the command accepts and its help text.
    static var spec: CommandSpec { get }
    /// Validates the parsed arguments; throws before any work starts.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Validates the parsed arguments of a run whose games are `registry`'s (`replay` reads any of them).
    init(_ arguments: ParsedArguments, registry: GameRegistry) throws(UsageError)
    /// Does the work and returns the exit code; a thrown error prints `error: …` and exits 1.
    func run() throws -> Int32
    /// Whether the command's results are the files it writes (`train`, `solve`), its standard output only a report
    /// of them: it runs with standard output closed. A command whose results are printed is refused then, before
    /// its work (``G2048/refusingClosedStandardOutput()``).
    static var resultsAreFiles: Bool { get }
}

extension Command {
    static var resultsAreFiles: Bool { false }
    init(_ arguments: ParsedArguments, registry: GameRegistry) throws(UsageError) { try self.init(arguments) }
}

/// The `g2048` tool: it only lists and dispatches its subcommands.
@main
enum G2048 {
    /// The tool's version.
    static let version = Gym2048Version.current

    /// Every subcommand, in help order, those of a group (`rank submit`) among them.
    static var commands: [any Command.Type] {
        [
            DemoCommand.self, TrainCommand.self, EvalCommand.self, SolveCommand.self, QueryCommand.self, ServeCommand.self, BenchCommand.self,
            PlayCommand.self, ReplayCommand.self, RankSubmitCommand.self, RankShowCommand.self,
        ]
    }

    /// The groups of subcommands under one word.
    static var groups: [CommandGroup] {
        [
            CommandGroup(
                name: "rank", abstract: "Submit a games record to a ranking service, or print its table.",
                commands: [RankSubmitCommand.self, RankShowCommand.self])
        ]
    }

    /// The overview's rows: each command, and each group once, where its first command is.
    static var overviewRows: [(name: String, abstract: String)] {
        var rows: [(name: String, abstract: String)] = []
        for command in commands {
            guard let group = groups.first(where: { command.spec.name.hasPrefix($0.name + " ") }) else {
                rows.append((command.spec.name, command.spec.abstract))
                continue
            }
            if !rows.contains(where: { $0.name == group.name }) { rows.append((group.name, group.abstract)) }
        }
        return rows
    }

    static var overview: String {
        """
        OVERVIEW: Gym2048, a headless 2048 environment for reinforcement learning.

        USAGE: g2048 <subcommand> [options]

        SUBCOMMANDS:
        \(overviewRows.map { "  " + $0.name.padding(12) + $0.abstract }.joined(separator: "\n"))

        OPTIONS:
          --version   Show the version.
          -h, --help  Show help information.

          See 'g2048 <subcommand> --help' for a subcommand's options.
        """
    }

    static func main() {
        SystemIO.reserveStandardDescriptors()
        // A write past `ulimit -f` then fails with a message (a save keeps what it replaces) instead of killing us.
        SystemProcess.ignore(SystemProcess.fileSizeExceeded)
        SystemProcess.exit(checkedOutput(run(Array(CommandLine.arguments.dropFirst()))))
    }

    /// `code`, or a failure when something written to standard output was lost (a full disk, a closed
    /// pipe): the results are not where the user asked for them, though the command succeeded.
    static func checkedOutput(_ code: Int32) -> Int32 {
        // A command that failed has said why already (serve names its stdout itself). A closed standard output
        // was refused before any work, but by a command whose results are files, whose report alone is lost.
        guard code == ExitCode.success, let failure = SystemIO.standardOutputFailure,
            !SystemIO.closedStandardDescriptors.contains(SystemIO.standardOutput)
        else { return code }
        Console.error("error: \(FileError("write", "standard output", code: failure)); the results printed there are lost")
        return ExitCode.failure
    }

    /// A failure when standard output is closed (`>&-`), said once, before the work whose results would have
    /// nowhere to go (and not after it, which would call finished work a failure); `nil` when it is open.
    static func refusingClosedStandardOutput() -> Int32? {
        guard SystemIO.closedStandardDescriptors.contains(SystemIO.standardOutput) else { return nil }
        Console.error("error: standard output is closed; the results have nowhere to go (give the command a stdout)")
        return ExitCode.failure
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit code; `--game` names a game
    /// of `registry` (a game of one's own is run by the generic commands once its declaration is added).
    static func run(_ arguments: [String], registry: GameRegistry = .standard) -> Int32 {
        // Plain `g2048` is how a newcomer asks what the tool does: the overview, on stdout, and success.
        // The overview, the help and the version are results printed.
        if arguments.first.map({ ["-h", "--help", "help", "--version"].contains($0) }) ?? true, let refused = refusingClosedStandardOutput() {
            return refused
        }
        guard let first = arguments.first else {
            Console.output(overview)
            return ExitCode.success
        }
        switch first {
        case "-h", "--help", "help":
            let named = arguments.dropFirst().prefix(2).joined(separator: " ")
            if first == "help", let command = commands.first(where: { $0.spec.name == named }) {
                Console.output(command.spec.help)
            } else if first == "help", arguments.count > 1, let group = groups.first(where: { $0.name == arguments[1] }) {
                Console.output(group.overview)
            } else {
                Console.output(overview)
            }
            return ExitCode.success
        case "--version":
            Console.output("g2048 \(version) (rules version \(Rules.version))")
            return ExitCode.success
        default:
            var rest = Array(arguments.dropFirst())
            var name = first
            if let group = groups.first(where: { $0.name == first }) {
                // `g2048 rank` alone asks what the group does, as plain `g2048` asks what the tool does.
                guard let word = rest.first, !["-h", "--help"].contains(word) else {
                    if let refused = refusingClosedStandardOutput() { return refused }
                    Console.output(group.overview)
                    return ExitCode.success
                }
                guard group.command(word) != nil else {
                    Console.error("error: unknown subcommand '\(first) \(word)' (\(group.subcommands.joined(separator: " or ")))\nsee 'g2048 \(first) --help'")
                    return ExitCode.usage
                }
                name = "\(first) \(word)"
                rest.removeFirst()
            }
            guard let command = commands.first(where: { $0.spec.name == name }) else {
                Console.error("error: unknown subcommand '\(first)'\nsee 'g2048 --help'")
                return ExitCode.usage
            }
            // `--game` picks the game before the arguments are parsed: 2048's commands are the tool's own, any
            // other game's are the generic ones, their flags read from its declaration.
            do throws(UsageError) {
                let game = try GameFlag.game(in: rest, registry: registry)
                if game.name != GameFlag.twentyFortyEight, let generic = GameFlag.command(first) {
                    return run(spec: generic.spec(for: game, registry: registry), resultsAreFiles: false, rest) { arguments throws(UsageError) in
                        let instance = try generic.init(arguments, game: game)
                        return instance.run
                    }
                }
                var spec = command.spec
                if let index = spec.options.firstIndex(where: { $0.name == GameFlag.option.flag }) { spec.options[index] = GameFlag.spec(registry) }
                return run(spec: spec, resultsAreFiles: command.resultsAreFiles, rest) { arguments throws(UsageError) in
                    let instance = try command.init(arguments, registry: registry)
                    return instance.run
                }
            } catch {
                Console.error("error: \(error.message)\nusage: \(command.spec.usage)\nsee 'g2048 \(name) --help'")
                return ExitCode.usage
            }
        }
    }

    /// Parses, validates and runs one subcommand.
    static func run(_ command: any Command.Type, _ arguments: [String]) -> Int32 {
        run(spec: command.spec, resultsAreFiles: command.resultsAreFiles, arguments) { arguments throws(UsageError) in
            let instance = try command.init(arguments)
            return instance.run
        }
    }

    /// Parses `arguments` against `spec`, validates them with `make` (which gives the work to do) and does the work.
    static func run(
        spec: CommandSpec, resultsAreFiles: Bool, _ arguments: [String], make: (ParsedArguments) throws(UsageError) -> () throws -> Int32
    ) -> Int32 {
        do throws(UsageError) {
            let parsed = try parseArguments(arguments, spec: spec)
            if parsed.helpRequested {
                if let refused = refusingClosedStandardOutput() { return refused }
                Console.output(spec.help)
                return ExitCode.success
            }
            let work = try make(parsed)
            if !resultsAreFiles, let refused = refusingClosedStandardOutput() { return refused }
            let outcome: Result<Int32, any Error>
            do { outcome = .success(try work()) } catch { outcome = .failure(error) }
            switch outcome {
            case .success(let code): return code
            // A contradiction only the input files reveal (a --resume file of another size) is still a usage error.
            case .failure(let error as UsageError): throw error
            case .failure(let error):
                Console.error("error: \(error)")
                return ExitCode.failure
            }
        } catch {
            Console.error("error: \(error.message)\nusage: \(spec.usage)\nsee 'g2048 \(spec.name) --help'")
            return ExitCode.usage
        }
    }
}

/// Output helpers: results on stdout, everything else on stderr.
enum Console {
    /// Where results go: standard output, or the file a test running the tool in its own process gives.
    @TaskLocal static var outputDescriptor = SystemIO.standardOutput
    /// Where everything else goes.
    @TaskLocal static var errorDescriptor = SystemIO.standardError

    /// Writes a line to stdout, unbuffered.
    static func output(_ text: String) { write(text + "\n", to: outputDescriptor) }

    /// Writes a line to stderr.
    static func error(_ text: String) { write(text + "\n", to: errorDescriptor) }

    /// Writes all of `text` to a file descriptor.
    static func write(_ text: String, to descriptor: Int32) {
        SystemIO.writeAll(descriptor, text)
    }
}

extension String {
    /// The string padded with spaces to at least `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
