import Foundation

/// A small SVG line/bar chart with axes, for self-contained reports (no scripts, no links).
///
/// The legend sits in a row of its own between the title and the plot area, so it never
/// covers a curve or a marker's label.
package struct SVGPlot {
    package var title: String
    package var xLabel: String
    package var yLabel: String
    package var xAxis: PlotAxis
    package var yAxis: PlotAxis
    /// Whether the y values are counts (ticks at whole numbers only).
    package var yCounts = false
    package var width = 440.0
    package var height = 310.0
    private var layers: [(SVGPlot) -> String] = []
    private var legend: [(text: String, colour: String)] = []
    private let margin = (left: 52.0, right: 14.0, top: 26.0, bottom: 44.0)
    private static let legendRowHeight = 14.0

    package init(title: String, xLabel: String, yLabel: String, x: PlotAxis, y: PlotAxis) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.xAxis = x
        self.yAxis = y
    }

    package init(title: String, xLabel: String, yLabel: String, xRange: ClosedRange<Double>, yRange: ClosedRange<Double>) {
        self.init(title: title, xLabel: xLabel, yLabel: yLabel, x: .linear(xRange), y: .linear(yRange))
    }

    /// The legend's entries laid out in rows that fit the width: (row, x offset) for each.
    private var legendLayout: [(row: Int, offset: Double)] {
        var layout: [(Int, Double)] = []
        var row = 0, offset = 0.0
        let available = width - margin.left - margin.right
        for entry in legend {
            // About 6 px a character at font size 10, plus the swatch and a gap.
            let entryWidth = 14 + Double(entry.text.count) * 6 + 14
            if offset > 0 && offset + entryWidth > available {
                row += 1
                offset = 0
            }
            layout.append((row, offset))
            offset += entryWidth
        }
        return layout
    }

    /// The plot area's top edge, below the title and the legend's rows.
    package var plotTop: Double {
        let rows = legend.isEmpty ? 0 : (legendLayout.map(\.row).max() ?? 0) + 1
        return margin.top + Double(rows) * Self.legendRowHeight
    }
    package var plotBottom: Double { height - margin.bottom }
    package var plotLeft: Double { margin.left }
    package var plotRight: Double { width - margin.right }

    package func x(_ value: Double) -> Double { plotLeft + xAxis.fraction(value) * (plotRight - plotLeft) }
    package func y(_ value: Double) -> Double { plotBottom - yAxis.fraction(value) * (plotBottom - plotTop) }

    // Drawing calls keep closures that write their SVG when `svg` is asked for: where the
    // plot area starts depends on how many rows the legend takes, known only at the end.

    package mutating func line(_ points: [(Double, Double)], colour: String, label: String? = nil, dashed: Bool = false) {
        guard !points.isEmpty else { return }
        layers.append { plot in
            let path = points.map { "\(number(plot.x($0.0))),\(number(plot.y($0.1)))" }.joined(separator: " ")
            return "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"5 4\"" : "") points=\"\(path)\"/>\n"
        }
        if let label { legend.append((label, colour)) }
    }

    package mutating func dots(_ points: [(Double, Double)], colour: String, label: String? = nil) {
        layers.append { plot in
            points.map { "<circle cx=\"\(number(plot.x($0.0)))\" cy=\"\(number(plot.y($0.1)))\" r=\"3.5\" fill=\"\(colour)\"/>\n" }.joined()
        }
        if let label { legend.append((label, colour)) }
    }

    /// Vertical bars from `low` to `high` at `x` (intervals around a point), with short caps.
    package mutating func errorBars(_ bars: [(x: Double, low: Double, high: Double)], colour: String) {
        layers.append { plot in
            bars.map { bar in
                let px = plot.x(bar.x), top = plot.y(bar.high), bottom = plot.y(bar.low)
                return "<path d=\"M\(number(px)),\(number(top))V\(number(bottom))M\(number(px - 3)),\(number(top))h6M\(number(px - 3)),\(number(bottom))h6\" stroke=\"\(colour)\" stroke-width=\"1\" fill=\"none\"/>\n"
            }.joined()
        }
    }

    /// Bars from `lower` to `upper` on x with height `value`.
    package mutating func bars(_ bins: [(lower: Double, upper: Double, value: Double)], colour: String, label: String? = nil) {
        layers.append { plot in
            bins.filter { $0.value > 0 }.map { bin in
                let left = plot.x(bin.lower), right = plot.x(bin.upper), top = plot.y(bin.value), bottom = plot.y(plot.yAxis.range.lowerBound)
                return "<rect x=\"\(number(left))\" y=\"\(number(top))\" width=\"\(number(max(0.5, right - left)))\" height=\"\(number(max(0, bottom - top)))\" fill=\"\(colour)\" fill-opacity=\"0.55\"/>\n"
            }.joined()
        }
        if let label { legend.append((label, colour)) }
    }

    /// A dashed vertical line at `value` with `label` inside the plot area, at its top, beside
    /// the line: to its right, or to its left when the line is in the right third.
    package mutating func verticalMarker(at value: Double, label: String) {
        layers.append { plot in
            let px = plot.x(value), top = plot.y(plot.yAxis.range.upperBound)
            let onRight = px > plot.plotLeft + (plot.plotRight - plot.plotLeft) * 2 / 3
            // A white outline keeps the text legible over bars and curves.
            return "<line x1=\"\(number(px))\" x2=\"\(number(px))\" y1=\"\(number(top))\" y2=\"\(number(plot.y(plot.yAxis.range.lowerBound)))\" stroke=\"#444\" stroke-dasharray=\"3 3\"/>\n"
                + "<text class=\"marker\" x=\"\(number(onRight ? px - 4 : px + 4))\" y=\"\(number(top + 12))\" font-size=\"10\" text-anchor=\"\(onRight ? "end" : "start")\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(htmlEscaped(label))</text>\n"
        }
    }

    /// Small text at a data point, offset by (`dx`, `dy`) pixels.
    package mutating func note(_ text: String, at point: (Double, Double), dx: Double = 0, dy: Double = -8, colour: String = "#444") {
        layers.append { plot in
            "<text x=\"\(number(plot.x(point.0) + dx))\" y=\"\(number(plot.y(point.1) + dy))\" font-size=\"9\" text-anchor=\"middle\" fill=\"\(colour)\" stroke=\"white\" stroke-width=\"2\" paint-order=\"stroke\">\(htmlEscaped(text))</text>\n"
        }
    }

    package var svg: String {
        var out = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(htmlEscaped(title))\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"\(Int(width / 2))\" y=\"16\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\">\(htmlEscaped(title))</text>\n"
        for (entry, place) in zip(legend, legendLayout) {
            let lx = plotLeft + place.offset, ly = margin.top + Double(place.row) * Self.legendRowHeight
            out += "<rect x=\"\(number(lx))\" y=\"\(number(ly - 1))\" width=\"10\" height=\"10\" fill=\"\(entry.colour)\"/>"
            out += "<text x=\"\(number(lx + 14))\" y=\"\(number(ly + 8))\" font-size=\"10\">\(htmlEscaped(entry.text))</text>\n"
        }
        let left = plotLeft, right = plotRight, top = plotTop, bottom = plotBottom
        out += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(right - left)\" height=\"\(bottom - top)\" fill=\"none\" stroke=\"#999\"/>\n"
        for tick in xAxis.ticks() {
            let px = number(x(tick))
            out += "<line x1=\"\(px)\" x2=\"\(px)\" y1=\"\(number(bottom))\" y2=\"\(number(bottom + 4))\" stroke=\"#999\"/>"
            out += "<text x=\"\(px)\" y=\"\(number(bottom + 15))\" font-size=\"10\" text-anchor=\"middle\">\(PlotAxis.label(tick))</text>\n"
        }
        for tick in yAxis.ticks(integers: yCounts) {
            let py = number(y(tick))
            out += "<line x1=\"\(left)\" x2=\"\(right)\" y1=\"\(py)\" y2=\"\(py)\" stroke=\"#eee\"/>"
            out += "<text x=\"\(number(left - 4))\" y=\"\(number(y(tick) + 3))\" font-size=\"10\" text-anchor=\"end\">\(PlotAxis.label(tick))</text>\n"
        }
        func scaleNote(_ axis: PlotAxis) -> String { axis.scale == .logarithmic ? ", log scale" : "" }
        out += "<text x=\"\(Int((left + right) / 2))\" y=\"\(Int(height - 8))\" font-size=\"11\" text-anchor=\"middle\">\(htmlEscaped(xLabel + scaleNote(xAxis)))</text>\n"
        out += "<text x=\"12\" y=\"\(Int((top + bottom) / 2))\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(Int((top + bottom) / 2)))\">\(htmlEscaped(yLabel + scaleNote(yAxis)))</text>\n"
        out += layers.map { $0(self) }.joined()
        return out + "</svg>"
    }
}

/// A pixel coordinate for SVG, to a tenth.
private func number(_ v: Double) -> String { ReportNumber.fixed(v, 1) }

/// Text safe inside HTML and SVG, in content and in quoted attribute values.
package func htmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(character)
        }
    }
    return out
}
