import GymJSON

/// `g2048 rank show`: print a ranking service's table of one protocol, best mean first.
struct RankShowCommand: Command {
    static let spec = CommandSpec(
        name: "rank show",
        abstract: "Print a ranking service's table of one protocol, best mean score first.",
        discussion: """
            The table holds every verified submission of the protocol: its rank, team, agent, player, games,
            mean score with the half width of its 95 % interval, median, best score, the fraction of optimal play
            where the protocol's board is solved, and the date. --json prints the service's answer instead:
            {"protocol", "query", "rows"}, each row with every member the service keeps.

            Only http:// addresses: the service is 'python -m gym2048.rank serve'.
            """,
        options: RankService.options + [Self.protocolName.spec, Self.search.spec, Self.json.spec])

    static let protocolName = CommandOption.text("protocol", "name", help: "The protocol, e.g. 2048-4x4-v1.").shown("the service's first")
    static let search = CommandOption.text("search", "text", help: "Only the rows whose team or agent holds this text (any case).")
    static let json = CommandOption.flag("json", help: "Print the service's answer as JSON instead of a table.")

    var service: RankService
    var query: [(String, String)]
    var printsJSON: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        service = try RankService(arguments)
        query = [("protocol", try arguments[Self.protocolName]), ("q", try arguments[Self.search])].compactMap { name, value in value.map { (name, $0) } }
        printsJSON = try arguments[Self.json]
    }

    func run() throws -> Int32 {
        let answer = try service.call("GET", "/api/table", query: query)
        if printsJSON {
            Console.output(answer.serialized)
            return ExitCode.success
        }
        let rows = answer["rows"]?.array ?? []
        let search = answer["query"]?.string.flatMap { $0.isEmpty ? nil : " holding '\($0)'" } ?? ""
        let count = rows.count == 1 ? "1 submission" : "\(rows.isEmpty ? "no" : "\(rows.count)") submissions"
        Console.output("\(answer["protocol"]?.string ?? "?"): \(count)\(search)")
        if !rows.isEmpty { Console.output(RankTable.text(rows)) }
        return ExitCode.success
    }
}
