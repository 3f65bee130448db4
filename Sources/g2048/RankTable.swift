import GymJSON
import GymSystem

/// The ranking's rows as text: one line each under a header, in aligned columns.
///
///     rank  team   agent  player  games  mean                median    max     date
///     1     lab A  ntn-8  ntuple  1000   152034.2 ± 2011.0  149820.0  356412  2026-11-29
///
/// The columns are members of the service's rows (`GET /api/table`): the mean is given with the half width of its 95 %
/// interval, the fraction of optimal play only when a row has it (a protocol whose board is solved).
enum RankTable {
    /// One column: its header and how a row's cell is written.
    static let columns: [(header: String, cell: @Sendable (JSONValue) -> String)] = [
        ("rank", { integer($0["rank"]) }),
        ("team", { $0["team"]?.string ?? "" }),
        ("agent", { $0["agent"]?.string ?? "" }),
        ("player", { $0["player"]?.string ?? "" }),
        ("games", { integer($0["games"]) }),
        (
            "mean",
            { row in
                let (mean, low, high) = (row["mean"]?.number, row["ci_low"]?.number, row["ci_high"]?.number)
                guard let mean else { return "" }
                return formatFixed(mean, digits: 1) + ((low.flatMap { low in high.map { ($0 - low) / 2 } }).map { " ± " + formatFixed($0, digits: 1) } ?? "")
            }
        ),
        ("median", { $0["median"]?.number.map { formatFixed($0, digits: 1) } ?? "" }),
        ("max", { $0["max"]?.number.map { formatFixed($0, digits: 0) } ?? "" }),
        ("optimal", { $0["optimal_fraction"]?.number.map { formatFixed(100 * $0, digits: 2) + " %" } ?? "" }),
        ("date", { String(($0["created"]?.string ?? "").prefix(10)) }),
    ]

    /// The columns shown only when a row has a value in them: the fraction of optimal play is measured only on a
    /// protocol whose board is solved.
    static let optional: Set<String> = ["optimal"]

    /// The header and one line per row, the columns two spaces apart, no trailing spaces.
    static func text(_ rows: [JSONValue]) -> String {
        let columns = columns.filter { column in !optional.contains(column.header) || rows.contains { !column.cell($0).isEmpty } }
        let lines = [columns.map(\.header)] + rows.map { row in columns.map { $0.cell(row) } }
        let widths = columns.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { line in
            var text = ""
            for (cell, width) in zip(line, widths) { text += cell + String(repeating: " ", count: width - cell.count + 2) }
            return String(text.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }

    /// An integer member as text ("" when absent).
    private static func integer(_ value: JSONValue?) -> String { value?.integer.map { "\($0)" } ?? "" }
}
