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
            record=FILE)), sent as it is, once the service said it takes a record of its size. The service replays every game through the engine and keeps only a
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
        // The file is checked before the service is asked anything, and its size against the limit the service
        // states before it is read: a record the service would refuse unread is neither read nor sent.
        let (descriptor, status) = try openRegularFile(path)
        defer { SystemIO.closeFile(descriptor) }
        guard status.size > 0 else { throw CommandFailure(message: "\(path) is empty: there is no record to submit") }
        let limits = try service.call("GET", "/api/protocols")["limits"]
        guard let limit = limits?["max_body_bytes"]?.integer else {
            throw CommandFailure(message: "\(service.base) does not state the largest record it takes (limits.max_body_bytes of /api/protocols)")
        }
        guard status.size <= limit else {
            func size(_ bytes: Int) -> String { bytes < 1024 ? "\(bytes) bytes" : "\(byteSize(bytes)) (\(bytes) bytes)" }
            throw CommandFailure(
                message: "\(path) is \(size(status.size)); the ranking at \(service.base) takes records of at most \(size(Int(clamping: limit)))")
        }
        let body = try SystemIO.read(descriptor, count: status.size, path: path)
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
