import GymSystem

/// Draws a learning curve as a self-contained SVG: mean score and tile-reach
/// rates against games trained.
///
///     try LearningCurvePlot.writeSVG(rows: metrics.rows, title: "4x4, alpha 0.1", to: "curve.svg")
///
/// The chart has games on the x axis, the mean score on the left y axis and the
/// share of games reaching 2048, 4096, 8192 and 16 384 (0–100 %) on the right
/// one, each series in its own colour with a legend below the axes. Ticks fall
/// on 1-2-5 steps. The SVG uses no scripts, fonts or other files, so any
/// browser or image viewer shows it as it is. With fewer than two rows there is
/// no curve to draw, and the chart says so.
package enum LearningCurvePlot {
    static let width = 880.0
    static let height = 540.0
    /// The plot area.
    static let left = 90.0, right = 800.0, top = 60.0, bottom = 420.0

    /// The series drawn against the right axis: (tile, colour).
    static let rateSeries: [(tile: Int, colour: String)] = [
        (2048, "#2ca02c"), (4096, "#ff7f0e"), (8192, "#d62728"), (16384, "#9467bd"),
    ]
    static let scoreColour = "#1f77b4"

    /// The SVG document for `rows`.
    ///
    ///     let svg = LearningCurvePlot.svg(rows: metrics.rows, title: "g2048 train --games 100000")
    ///
    /// - Parameters:
    ///   - rows: the curve, in order of games; non-finite values are drawn as 0.
    ///   - title: the text above the chart (escaped for XML).
    ///   - markers: events to mark with a labelled vertical line at their game count (the switch to TC
    ///     learning, say); those outside the curve's games are left out.
    ///   - reference: a score to draw across the plot, labelled (optimal play's expected score, from a solution),
    ///     with the curve's share of it at its last point.
    /// - Returns: the whole document, from `<svg` to `</svg>` and a newline.
    /// - Complexity: O(rows + markers).
    package static func svg(
        rows: [MetricsRow], title: String, markers: [(games: Int, label: String)] = [],
        reference: (score: Double, label: String)? = nil
    ) -> String {
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="white"/>
            <text x="\(number(width / 2))" y="32" font-size="18" text-anchor="middle">\(escaped(title))</text>

            """
        guard rows.count >= 2 else {
            svg += frame()
            let note = rows.isEmpty ? "no data yet" : "only one row so far (\(rows[0].games) games)"
            svg += """
                <text x="\(number((left + right) / 2))" y="\(number((top + bottom) / 2))" font-size="14" \
                text-anchor="middle" fill="#555555">\(note): a curve needs at least 2 rows</text>
                </svg>

                """
            return svg
        }

        let games = rows.map { finite(Double($0.games)) }
        let xTicks = niceTicks(from: games.min()!, to: games.max()!)
        let scores = rows.map { finite($0.meanScore) }
        let yTicks = niceTicks(from: 0, to: max(scores.max()!, finite(reference?.score ?? 0), 1))
        let rateTicks = stride(from: 0.0, through: 100.0, by: 20.0).map { $0 }
        let xRange = xTicks.first!...xTicks.last!
        let yRange = yTicks.first!...yTicks.last!
        func x(_ value: Double) -> Double { left + (value - xRange.lowerBound) / span(xRange) * (right - left) }
        func y(_ value: Double, _ range: ClosedRange<Double>) -> Double {
            bottom - (value - range.lowerBound) / span(range) * (bottom - top)
        }

        // Grid and ticks.
        svg += "<g stroke=\"#e5e5e5\" stroke-width=\"1\">\n"
        for tick in yTicks {
            svg += "<line x1=\"\(number(left))\" y1=\"\(number(y(tick, yRange)))\" x2=\"\(number(right))\" y2=\"\(number(y(tick, yRange)))\"/>\n"
        }
        for tick in xTicks {
            svg += "<line x1=\"\(number(x(tick)))\" y1=\"\(number(top))\" x2=\"\(number(x(tick)))\" y2=\"\(number(bottom))\"/>\n"
        }
        svg += "</g>\n"
        svg += frame()
        let xStep = xTicks.count > 1 ? xTicks[1] - xTicks[0] : 1
        let yStep = yTicks.count > 1 ? yTicks[1] - yTicks[0] : 1
        svg += "<g text-anchor=\"middle\">\n"
        for tick in xTicks {
            svg += "<text x=\"\(number(x(tick)))\" y=\"\(number(bottom + 18))\">\(tickLabel(tick, step: xStep))</text>\n"
        }
        svg += "</g>\n<g text-anchor=\"end\">\n"
        for tick in yTicks {
            svg += "<text x=\"\(number(left - 6))\" y=\"\(number(y(tick, yRange) + 4))\">\(tickLabel(tick, step: yStep))</text>\n"
        }
        svg += "</g>\n<g text-anchor=\"start\">\n"
        for tick in rateTicks {
            svg += "<text x=\"\(number(right + 6))\" y=\"\(number(y(tick, 0...100) + 4))\">\(Int(tick)) %</text>\n"
        }
        svg += "</g>\n"

        // Axis titles.
        let middleY = number((top + bottom) / 2)
        svg += """
            <text x="\(number((left + right) / 2))" y="\(number(bottom + 42))" text-anchor="middle">games</text>
            <text x="24" y="\(middleY)" text-anchor="middle" transform="rotate(-90 24 \(middleY))">mean score (solid)</text>
            <text x="\(number(width - 24))" y="\(middleY)" text-anchor="middle" \
            transform="rotate(90 \(number(width - 24)) \(middleY))">games reaching the tile (dashed)</text>

            """

        // The curves: rates dashed under the solid score line.
        for series in rateSeries {
            let points = zip(games, rows).map { game, row in
                (x(game), y(100 * finite(row.reachRates[MetricsRow.tiles.firstIndex(of: series.tile)!]), 0...100))
            }
            svg += polyline(points, colour: series.colour, dashed: true, label: "reach-\(series.tile)")
        }
        svg += polyline(zip(games, scores).map { (x($0), y($1, yRange)) }, colour: scoreColour, dashed: false, label: "mean-score")

        // The reference: a dash-dotted line across the plot, its label and the last point's share of it above it.
        if let reference, reference.score > 0 {
            let at = y(finite(reference.score), yRange)
            let share = formatFixed(100 * scores.last! / reference.score, digits: 1)
            svg += "<line class=\"reference\" x1=\"\(number(left))\" y1=\"\(number(at))\" x2=\"\(number(right))\" y2=\"\(number(at))\" "
            svg += "stroke=\"#222222\" stroke-width=\"1.5\" stroke-dasharray=\"8 3 2 3\"/>\n"
            svg += "<text x=\"\(number(left + 6))\" y=\"\(number(at - 6))\" fill=\"#222222\">"
            svg += "\(escaped(reference.label)): \(number(reference.score)); the last point is \(share) % of it</text>\n"
        }

        // Markers: a thin dotted line across the plot area, its label at the top.
        for marker in markers where xRange.contains(Double(marker.games)) {
            let at = x(Double(marker.games))
            svg += "<line class=\"marker\" x1=\"\(number(at))\" y1=\"\(number(top))\" x2=\"\(number(at))\" y2=\"\(number(bottom))\" "
            svg += "stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n"
            svg += "<text x=\"\(number(at + 4))\" y=\"\(number(top + 14))\" fill=\"#555555\">\(escaped(marker.label))</text>\n"
        }

        // Legend, in one row under the axis title.
        let entries = [("mean score", scoreColour, false)] + rateSeries.map { ("reached \($0.tile)", $0.colour, true) }
        let legendY = bottom + 80
        var legendX = left
        svg += "<g>\n"
        for (label, colour, dashed) in entries {
            let dash = dashed ? " stroke-dasharray=\"6 3\"" : ""
            svg += """
                <line x1="\(number(legendX))" y1="\(number(legendY))" x2="\(number(legendX + 24))" y2="\(number(legendY))" \
                stroke="\(colour)" stroke-width="2.5"\(dash)/>
                <text x="\(number(legendX + 30))" y="\(number(legendY + 4))">\(label)</text>

                """
            legendX += 30 + Double(label.count) * 6.4 + 18
        }
        svg += "</g>\n</svg>\n"
        return svg
    }

    /// Writes ``svg(rows:title:markers:reference:)`` to `path`, atomically (a temporary file beside
    /// it, synced and renamed over it).
    ///
    ///     try LearningCurvePlot.writeSVG(rows: metrics.rows, title: "training", to: "curve.svg")
    ///
    /// - Throws: ``MetricsOutputError/cannotWrite(file:reason:)`` with the
    ///   system's reason; an existing file at `path` is then left as it was.
    package static func writeSVG(
        rows: [MetricsRow], title: String, markers: [(games: Int, label: String)] = [],
        reference: (score: Double, label: String)? = nil, to path: String
    ) throws(MetricsOutputError) {
        let bytes = Array(svg(rows: rows, title: title, markers: markers, reference: reference).utf8)
        do throws(FileError) { try AtomicFile.write(bytes, to: path) } catch { throw MetricsOutputError(error) }
    }

    // MARK: Pieces

    /// The plot area's border.
    static func frame() -> String {
        "<rect x=\"\(number(left))\" y=\"\(number(top))\" width=\"\(number(right - left))\" height=\"\(number(bottom - top))\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n"
    }

    static func polyline(_ points: [(Double, Double)], colour: String, dashed: Bool, label: String) -> String {
        let coordinates = points.map { "\(number($0.0)),\(number($0.1))" }.joined(separator: " ")
        let dash = dashed ? " stroke-dasharray=\"6 3\"" : ""
        return "<polyline class=\"\(label)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(dashed ? "1.5" : "2.5")\"\(dash) points=\"\(coordinates)\"/>\n"
    }

    /// Tick values covering `low...high` in 1-2-5 steps, about `count` of them.
    ///
    /// `niceTicks(from: 1_000, to: 97_000)` is 0, 20 000, … 100 000: the step is
    /// the 1, 2 or 5 times a power of ten nearest above the range over `count`,
    /// and the ends are rounded out to multiples of it.
    static func niceTicks(from low: Double, to high: Double, count: Int = 6) -> [Double] {
        let low = finite(low), high = max(finite(high), low)
        let range = high - low
        let step = niceStep(range > 0 ? range / Double(count) : max(abs(low), 1) / Double(count))
        let first = (low / step).rounded(.down)
        let last = range > 0 ? (high / step).rounded(.up) : first + 1
        // Below 1, divide by the step's exact integer inverse: 3 / 5 is 0.6, 3 × 0.2 is not.
        let inverse = (1 / step).rounded()
        return stride(from: first, through: last, by: 1).map { step < 1 ? $0 / inverse : $0 * step }
    }

    /// The smallest of 1, 2, 5 or 10 times a power of ten that is at least `rough`.
    static func niceStep(_ rough: Double) -> Double {
        let magnitude = decimalMagnitude(of: rough)
        let residual = rough / magnitude
        let factor: Double = residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10
        return factor * magnitude
    }

    /// A tick label: "0", "500", "2.5k", "20k", "1.5M", with no more decimals than the step needs.
    static func tickLabel(_ value: Double, step: Double) -> String {
        let units: [(Double, String)] = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        for (size, suffix) in units where step >= size / 10 && abs(value) >= size {
            return trimmed(formatFixed(value / size, digits: decimals(for: step / size))) + suffix
        }
        return trimmed(formatFixed(value, digits: decimals(for: step)))
    }

    /// Decimals needed to show multiples of `step`.
    static func decimals(for step: Double) -> Int {
        var decimals = 0, scaled = step
        while decimals < 6 && (scaled - scaled.rounded()).magnitude > 1e-9 * max(1, scaled.magnitude) {
            decimals += 1
            scaled *= 10
        }
        return decimals
    }

    /// `"2.50"` → `"2.5"`, `"3.0"` → `"3"`.
    static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = Substring(text)
        while text.last == "0" { text = text.dropLast() }
        if text.last == "." { text = text.dropLast() }
        return String(text)
    }

    /// A coordinate with one decimal.
    static func number(_ value: Double) -> String { formatFixed(finite(value), digits: 1) }

    static func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }

    static func span(_ range: ClosedRange<Double>) -> Double {
        range.upperBound > range.lowerBound ? range.upperBound - range.lowerBound : 1
    }

    /// `text` with XML's special characters escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
