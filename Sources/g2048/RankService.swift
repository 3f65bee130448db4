import GymJSON
import GymSystem

/// The ranking service `g2048 rank` talks to: its address and timeout, and one call's JSON answer, or the service's
/// refusal as the error the command prints.
///
/// The service is `python -m gym2048.rank serve`: a JSON API whose refusals are
/// `{"error": reason}` with a 4xx status.
struct RankService {
    /// Where the service listens unless told otherwise (the port `gym2048.rank serve` takes by default).
    static let defaultURL = "http://127.0.0.1:8048"
    /// The environment variable that gives the address when `--url` does not.
    static let variable = "G2048_RANK_URL"

    static let url = CommandOption.parsed("url", "url", help: "The ranking service: an http:// address (https is not supported).") {
        text throws(UsageError) in
        do { return try HTTPURL(text) } catch { throw UsageError("--url: \(error)") }
    }.shown("$\(variable), else \(defaultURL)")
    static let timeout = CommandOption.integer(
        "timeout", "s", help: "Seconds the whole exchange with the service may take (verifying a large record takes seconds).",
        in: 1...3600
    ).defaulting(to: 300)

    /// The service's flags, for a command's spec.
    static var options: [OptionSpec] { [url.spec, timeout.spec] }

    /// The service's address.
    var base: HTTPURL
    /// Seconds a call may take.
    var timeout: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let given = try arguments[Self.url] {
            base = given
        } else {
            let text = SystemIO.environment(Self.variable).flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultURL
            do { base = try HTTPURL(text) } catch { throw UsageError("$\(Self.variable): \(error)") }
        }
        timeout = try arguments[Self.timeout]
    }

    /// The JSON answer of `method endpoint` with `query` (and `body`, a games record).
    ///
    /// - Throws: `HTTPError` when no whole answer came; ``CommandFailure`` with the service's reason when it refused
    ///   (any status but 2xx), or when its answer is not JSON.
    func call(_ method: String, _ endpoint: String, query: [(String, String)] = [], body: [UInt8] = []) throws -> JSONValue {
        let target = base.target(endpoint, query: query)
        let response = try HTTPClient.exchange(
            method, base, target: target, body: body, contentType: body.isEmpty ? nil : "application/x-ndjson", timeout: Double(timeout))
        let answer = try? JSONValue.parse(response.body)
        guard response.isSuccess else {
            let reason = answer?["error"]?.string ?? "\(response.reason): \(response.text.prefix(300))"
            throw CommandFailure(message: "refused by \(base) (HTTP \(response.status)): \(reason)")
        }
        guard let answer else {
            throw CommandFailure(message: "\(base) answered \(method) \(endpoint) with something that is not JSON: \(response.text.prefix(300))")
        }
        return answer
    }
}
