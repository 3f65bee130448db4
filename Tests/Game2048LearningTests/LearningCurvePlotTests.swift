import Testing
@testable import Game2048Training
import TestSupport

struct LearningCurvePlotTests {
    /// A plausible curve: the score and the rates rise with the games.
    static func curve(_ count: Int, interval: Int = 1_000) -> [MetricsRow] {
        (1...max(count, 1)).prefix(count).map { index in
            let progress = Double(index) / Double(max(count, 1))
            return MetricsRow(
                games: index * interval, moves: index * interval * 900, elapsedSeconds: Double(index) * 1.5,
                movesPerSecond: 600_000, meanScore: 5_000 + 95_000 * progress,
                reachRates: [progress, progress * 0.6, progress * 0.2, progress * 0.01, 0])
        }
    }

    /// The element names in `svg`, checked to open and close in nested order.
    /// Returns `nil` (and records why) if they do not.
    static func elements(of svg: String) -> [String]? {
        var stack: [String] = [], names: [String] = []
        var rest = Substring(svg)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else {
                Issue.record("unclosed '<'")
                return nil
            }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("/") {
                let name = String(tag.dropFirst())
                guard stack.popLast() == name else {
                    Issue.record("</\(name)> closes \(stack.last ?? "nothing")")
                    return nil
                }
            } else {
                let name = String(tag.prefix { $0 != " " && $0 != "/" && $0 != "\n" })
                names.append(name)
                if !tag.hasSuffix("/") { stack.append(name) }
            }
        }
        guard stack.isEmpty else {
            Issue.record("unclosed elements \(stack)")
            return nil
        }
        return names
    }

    /// Every number in the coordinate attributes and polyline points.
    static func coordinates(in svg: String) -> [Double?] {
        var values: [Double?] = []
        let attributes = ["x", "y", "x1", "y1", "x2", "y2", "width", "height", "points"]
        for attribute in attributes {
            for piece in svg.split(separator: " \(attribute)=\"").dropFirst() {
                let value = piece.prefix { $0 != "\"" }
                for number in value.split(whereSeparator: { $0 == " " || $0 == "," }) {
                    values.append(Double(number))
                }
            }
        }
        return values
    }

    @Test(arguments: [0, 1, 2, 3, 57])
    func svgIsWellFormedWithFiniteCoordinatesInsideTheCanvas(rowCount: Int) throws {
        let svg = LearningCurvePlot.svg(rows: Self.curve(rowCount), title: "4x4 default network")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        let names = try #require(Self.elements(of: svg))
        #expect(names.first == "svg")
        #expect(names.filter { $0 == "svg" }.count == 1)
        #expect(Set(names).isSubset(of: ["svg", "rect", "text", "g", "line", "polyline"]))
        let values = Self.coordinates(in: svg)
        #expect(!values.isEmpty)
        for value in values {
            let number = try #require(value)
            #expect(number.isFinite)
            #expect(number >= 0 && number <= LearningCurvePlot.width)
        }
        #expect(!svg.contains("href"))  // nothing external
    }

    @Test func curveHasOnePolylinePerSeriesAndALegendEntryForEach() {
        let svg = LearningCurvePlot.svg(rows: Self.curve(20), title: "run")
        #expect(svg.split(separator: "<polyline", omittingEmptySubsequences: false).count - 1 == 5)
        for label in ["mean-score", "reach-2048", "reach-4096", "reach-8192", "reach-16384"] {
            #expect(svg.contains("<polyline class=\"\(label)\""))
        }
        for label in ["mean score", "reached 2048", "reached 4096", "reached 8192", "reached 16384"] {
            #expect(svg.contains(">\(label)</text>"))
        }
        let colours = LearningCurvePlot.rateSeries.map(\.colour) + [LearningCurvePlot.scoreColour]
        #expect(Set(colours).count == colours.count)
        #expect(svg.contains(">games</text>"))
        #expect(svg.contains(">100 %</text>"))
    }

    @Test func polylinePointsRunLeftToRightInsideThePlotArea() throws {
        let svg = LearningCurvePlot.svg(rows: Self.curve(30), title: "run")
        let line = try #require(svg.split(separator: "\n").first { $0.contains("class=\"mean-score\"") })
        let points = try #require(line.split(separator: "points=\"").last?.prefix { $0 != "\"" })
        let pairs = points.split(separator: " ").map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(pairs.count == 30)
        let xs = pairs.map { $0[0] }, ys = pairs.map { $0[1] }
        #expect(xs == xs.sorted())
        #expect(ys == ys.sorted(by: >))  // rising score, falling y
        #expect(xs.allSatisfy { (LearningCurvePlot.left...LearningCurvePlot.right).contains($0) })
        #expect(ys.allSatisfy { (LearningCurvePlot.top...LearningCurvePlot.bottom).contains($0) })
    }

    @Test(arguments: [0, 1])
    func tooFewRowsGiveAnEmptyChartWithANote(rowCount: Int) {
        let svg = LearningCurvePlot.svg(rows: Self.curve(rowCount), title: "run")
        #expect(!svg.contains("<polyline"))
        #expect(svg.contains("a curve needs at least 2 rows"))
        #expect(svg.contains(rowCount == 0 ? "no data yet" : "only one row so far (1000 games)"))
    }

    @Test func nonFiniteValuesAreDrawnAsZero() throws {
        var rows = Self.curve(3)
        rows[1].meanScore = .nan
        rows[2].reachRates[0] = .infinity
        let svg = LearningCurvePlot.svg(rows: rows, title: "run")
        #expect(Self.elements(of: svg) != nil)
        for value in Self.coordinates(in: svg) { #expect(try #require(value).isFinite) }
    }

    @Test func markersInsideTheCurveAreDrawnWithTheirLabels() {
        let svg = LearningCurvePlot.svg(
            rows: Self.curve(10), title: "run", markers: [(games: 5_000, label: "TC <here>"), (games: 50_000, label: "beyond")])
        #expect(Self.elements(of: svg) != nil)
        #expect(svg.split(separator: "\n").filter { $0.contains("class=\"marker\"") }.count == 1)
        #expect(svg.contains(">TC &lt;here&gt;</text>"))
        #expect(!svg.contains(">beyond</text>"))
        // The line stands at game 5 000 of an axis from 0 to 10 000: the middle of the plot area.
        let middle = LearningCurvePlot.number((LearningCurvePlot.left + LearningCurvePlot.right) / 2)
        #expect(svg.contains("class=\"marker\" x1=\"\(middle)\""))
        #expect(!LearningCurvePlot.svg(rows: Self.curve(10), title: "run").contains("class=\"marker\""))
    }

    @Test func titleIsEscaped() {
        let svg = LearningCurvePlot.svg(rows: Self.curve(2), title: "alpha < 0.1 & \"quotes\"")
        #expect(svg.contains(">alpha &lt; 0.1 &amp; &quot;quotes&quot;</text>"))
        #expect(Self.elements(of: svg) != nil)
    }

    static let tickCases: [(Double, Double, [Double])] = [
        (1_000, 97_000, [0, 20_000, 40_000, 60_000, 80_000, 100_000]),
        (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1]),
        (0, 0.03, [0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03]),
        (0, 7, [0, 2, 4, 6, 8]),
        (0, 30_000, [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000]),
        (1_000_000, 1_010_000, [1_000_000, 1_002_000, 1_004_000, 1_006_000, 1_008_000, 1_010_000]),
        (3, 3, [3, 3.5]),
    ]

    @Test(arguments: tickCases)
    func ticksFallOnOneTwoFiveSteps(low: Double, high: Double, ticks: [Double]) {
        #expect(LearningCurvePlot.niceTicks(from: low, to: high) == ticks)
    }

    static let labelCases: [(Double, Double, String)] = [
        (0, 20_000, "0"), (20_000, 20_000, "20k"), (1_500, 500, "1.5k"), (500, 500, "500"),
        (2_500_000, 500_000, "2.5M"), (0.2, 0.2, "0.2"), (1_050, 50, "1050"), (3_000_000_000, 1e9, "3G"),
    ]

    @Test(arguments: labelCases)
    func tickLabelsAreShortAndExact(value: Double, step: Double, label: String) {
        #expect(LearningCurvePlot.tickLabel(value, step: step) == label)
    }

    @Test func writeSVGPutsTheDocumentInPlace() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("curve.svg")
        writeText("old", to: path)
        try LearningCurvePlot.writeSVG(rows: Self.curve(5), title: "run", to: path)
        #expect(readText(path) == LearningCurvePlot.svg(rows: Self.curve(5), title: "run"))
        #expect(directory.names == ["curve.svg"])
    }

    @Test func writeSVGIntoAMissingDirectoryFailsAndLeavesNothing() {
        let directory = TemporaryDirectory()
        let path = directory.file("missing/curve.svg")
        #expect(throws: MetricsOutputError.cannotWrite(file: path, reason: "No such file or directory")) {
            try LearningCurvePlot.writeSVG(rows: Self.curve(5), title: "run", to: path)
        }
        #expect(directory.names.isEmpty)
    }
}
