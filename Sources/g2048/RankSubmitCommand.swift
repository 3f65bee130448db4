import GymJSON
import GymSystem

/// `g2048 rank submit`: upload a games record to the ranking service, which replays every game before it keeps
/// the record, and print the row it got.
struct RankSubmitCommand: Command {
    static let spec = CommandSpec(
        name: "rank submit",
        abstract: "Upload a games record to a ranking service, which replays it, and print the row it ranks.",
        discussion: """
            The record is one written by 'g2048 eval --protocol NAME --record FILE' (or gym2048.evaluate(...,
            record=FILE)), sent as it is. The service replays every game through the engine and keeps only a
            record that replays exactly, played under one of its protocols; it answers with the record's rank
            and row (the mean score with the half width of its 95 % interval, the median, the best score).

            A refusal (a game that does not replay, a record played otherwise than its protocol says, one
            already ranked, a name too long) is printed on stderr with the service's reason, and the exit status
            is 1; so is a service that cannot be reached or does not answer within --timeout.

            Only http:// addresses: the service is 'python -m gym2048.rank serve'.
            """,
        options: RankService.options + [Self.team.spec, Self.agent.spec, Self.description.spec],
        positional: "file")

    static let team = CommandOption.text("team", "name", help: "Your team's name, as the table shows it (required).")
    static let agent = CommandOption.text("agent", "name", help: "The agent's name, as the table shows it (required).")
    static let description = CommandOption.text("description", "text", help: "How the agent plays, in a sentence.")

    var service: RankService
    var path: String
    var fields: [(String, String)]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        service = try RankService(arguments)
        guard let path = arguments.positionals.first else { throw UsageError("missing <file>: the games record to submit") }
        self.path = path
        guard let team = try arguments[Self.team] else { throw UsageError("missing --team <name>") }
        guard let agent = try arguments[Self.agent] else { throw UsageError("missing --agent <name>") }
        fields = [("team", team), ("agent", agent)]
        if let description = try arguments[Self.description] { fields.append(("description", description)) }
    }

    func run() throws -> Int32 {
        // Read whole before the connection opens: a file that cannot be read costs the service nothing, and its size
        // is known (the service refuses a body over its limit before reading it, and says the limit).
        let body = try SystemIO.readFile(path)
        guard !body.isEmpty else { throw CommandFailure(message: "\(path) is empty: there is no record to submit") }
        let answer = try service.call("POST", "/api/submissions", query: fields, body: body)
        guard let row = answer["row"], let rank = answer["rank"]?.integer else {
            throw CommandFailure(message: "\(service.base) answered without a rank and a row: \(answer.serialized.prefix(300))")
        }
        let protocolName = row["protocol"]?.string ?? "?"
        let identifier = answer["id"]?.integer.map { " \($0)" } ?? ""
        Console.output("submission\(identifier): rank \(rank) in \(protocolName), every game replayed")
        Console.output(RankTable.text([row]))
        return ExitCode.success
    }
}
