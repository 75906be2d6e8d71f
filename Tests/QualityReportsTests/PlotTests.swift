import Foundation
import Testing

@testable import QualityReports

@Suite("Plot axes and SVG plots")
struct PlotTests {
    /// The blur dataset's edge widths run from 0.43 to 24.7 with the threshold at 1.33: a
    /// linear axis puts the threshold at 4% of the width.
    @Test func valuesSpanningDecadesGetALogarithmicAxisWithRoundEnds() {
        let axis = PlotAxis.fitting([0.43, 1.33, 24.7])
        #expect(axis.scale == .logarithmic)
        #expect(axis.range == 0.2...50)
        #expect(axis.ticks() == [0.2, 0.5, 1, 2, 5, 10, 20, 50])
        // The threshold now sits about a third of the way along, not at 4%.
        #expect(axis.fraction(1.33) > 0.3 && axis.fraction(1.33) < 0.4, "\(axis.fraction(1.33))")
        #expect(abs(PlotAxis.logarithmic(1...100).fraction(10) - 0.5) < 1e-12)
    }

    @Test func narrowOrNonPositiveValuesKeepALinearAxis() {
        #expect(PlotAxis.fitting([0.4, 0.9, 7.9]).scale == .linear)  // a span under 20×
        #expect(PlotAxis.fitting([0, 0.5, 24.7]).scale == .linear)  // a zero has no logarithm
        #expect(PlotAxis.fitting([-3.2, 0.1, 5.1]).scale == .linear)
        #expect(PlotAxis.fitting([-3.2, 0.1, 5.1]).range == -4...6)
    }

    /// Linear ticks are multiples of 1, 2 or 5 × 10ᵏ, never 9.75 or 19.5 (quarters of 39).
    @Test func linearTicksAreRound() {
        #expect(PlotAxis.fitting([0, 39], integers: true).ticks(integers: true) == [0, 10, 20, 30, 40])
        #expect(PlotAxis.linear(0...1).ticks() == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(PlotAxis.fitting([0, 3], integers: true).ticks(integers: true) == [0, 1, 2, 3])
        #expect(PlotAxis.linear(0.43...24.7).ticks() == [5, 10, 15, 20])
        for range in [0.0...39, 0.43...24.7, -3.2...5.1, 0...1, 0.0012...0.0047, 1200...4800] {
            let ticks = PlotAxis.linear(range).ticks()
            #expect(ticks.count >= 3 && ticks.count <= 11, "\(range): \(ticks)")
            // Evenly spaced by a step whose label is one digit, 1, 2 or 5, and all multiples of it.
            let step = ticks[1] - ticks[0]
            let digits = PlotAxis.label(step).filter { $0.isNumber && $0 != "0" }
            #expect(["1", "2", "5"].contains(digits), "\(range): step \(step)")
            for tick in ticks {
                #expect(abs(tick / step - (tick / step).rounded()) < 1e-9, "\(range): \(tick)")
                #expect(PlotAxis.label(tick).count <= 6, "\(range): \(PlotAxis.label(tick))")
            }
        }
    }

    @Test func logarithmicTicksThinOutOverManyDecades() {
        #expect(PlotAxis.logarithmic(0.001...1000).ticks() == [0.001, 0.01, 0.1, 1, 10, 100, 1000])
        #expect(PlotAxis.logarithmic(0.3...40).ticks() == [0.5, 1, 2, 5, 10, 20])
    }

    @Test func binsAreEqualOnTheAxisScale() {
        let bins = PlotAxis.logarithmic(1...100).bins(2)
        #expect(bins.count == 2 && abs(bins[0].upper - 10) < 1e-9 && bins[1].upper == 100)
        #expect(PlotAxis.linear(0...10).bins(4).map(\.upper) == [2.5, 5, 7.5, 10])
    }

    /// The numbers of the SVG element that starts with `prefix` (`<line x1=`…), in order.
    func numbers(after prefix: String, in svg: String) -> [Double] {
        guard let start = svg.range(of: prefix) else { return [] }
        let element = svg[start.lowerBound...].prefix { $0 != ">" }
        return element.split(whereSeparator: { $0 == "\"" }).enumerated().filter { $0.offset % 2 == 1 }.compactMap { Double($0.element) }
    }

    /// The marker's label was drawn above the plot at the y axis's maximum; it must sit
    /// inside the plot area, beside its line.
    @Test func aMarkersLabelSitsBesideItsLine() throws {
        var plot = SVGPlot(title: "t", xLabel: "edgeWidth", yLabel: "images", x: .fitting([0.43, 24.7]), y: .linear(0...40))
        plot.bars([(0.4, 0.5, 14)], colour: "#1f6fb2", label: "good (0)")
        plot.verticalMarker(at: 1.33, label: "threshold")
        let svg = plot.svg
        let line = numbers(after: "<line x1=\"\(String(format: "%.1f", plot.x(1.33)))\"", in: svg)
        let text = numbers(after: "<text class=\"marker\"", in: svg)
        try #require(line.count >= 4 && text.count >= 2, "\(svg)")
        #expect(abs(text[0] - line[0]) <= 5, "label at x \(text[0]), line at \(line[0])")
        #expect(text[0] > plot.plotLeft + 10, "the label must not sit over the y axis's labels")
        #expect(text[1] > plot.plotTop && text[1] < plot.plotBottom, "label at y \(text[1]) outside \(plot.plotTop)…\(plot.plotBottom)")
        #expect(svg.contains(">threshold</text>") && svg.contains("log scale"))
        #expect(!svg.contains("9.75") && !svg.contains("19.5") && !svg.contains("29.2"))

        // Near the right edge the label goes to the line's left, so it stays inside.
        var right = SVGPlot(title: "t", xLabel: "x", yLabel: "y", xRange: 0...1, yRange: 0...1)
        right.verticalMarker(at: 0.95, label: "chosen")
        let placed = numbers(after: "<text class=\"marker\"", in: right.svg)
        #expect(placed.first.map { $0 < right.x(0.95) } == true, "\(placed)")
    }

    @Test func theLegendTakesRowsAboveThePlotAreaNotInsideIt() {
        var plot = SVGPlot(title: "t", xLabel: "x", yLabel: "y", xRange: 0...1, yRange: 0...1)
        let emptyTop = plot.plotTop
        plot.line([(0, 0), (1, 1)], colour: "#000", label: "a long legend entry that fills most of a row")
        let oneRow = plot.plotTop
        plot.line([(0, 1), (1, 0)], colour: "#111", label: "another long legend entry for a second row")
        #expect(oneRow > emptyTop && plot.plotTop > oneRow)
        // Drawn after the legend grew, the curve starts at the final plot area's bottom.
        #expect(plot.svg.contains("points=\"\(String(format: "%.1f", plot.x(0))),\(String(format: "%.1f", plot.plotBottom))"))
    }
}
