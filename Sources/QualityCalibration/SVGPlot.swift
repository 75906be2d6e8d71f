import Foundation

/// A small SVG line/bar chart with axes, for self-contained reports (no scripts, no links).
struct SVGPlot {
    var title: String
    var xLabel: String
    var yLabel: String
    var xRange: ClosedRange<Double>
    var yRange: ClosedRange<Double>
    var width = 420.0
    var height = 300.0
    private var body = ""
    private var legend: [(String, String)] = []
    private let margin = (left: 52.0, right: 14.0, top: 30.0, bottom: 44.0)

    init(title: String, xLabel: String, yLabel: String, xRange: ClosedRange<Double>, yRange: ClosedRange<Double>) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.xRange = xRange.lowerBound == xRange.upperBound ? xRange.lowerBound...(xRange.lowerBound + 1) : xRange
        self.yRange = yRange.lowerBound == yRange.upperBound ? yRange.lowerBound...(yRange.lowerBound + 1) : yRange
    }

    func x(_ value: Double) -> Double {
        margin.left + (value - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * (width - margin.left - margin.right)
    }

    func y(_ value: Double) -> Double {
        height - margin.bottom - (value - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * (height - margin.top - margin.bottom)
    }

    static func number(_ v: Double) -> String { String(format: "%.1f", v) }

    mutating func line(_ points: [(Double, Double)], colour: String, label: String? = nil, dashed: Bool = false) {
        guard !points.isEmpty else { return }
        let path = points.map { "\(Self.number(x($0.0))),\(Self.number(y($0.1)))" }.joined(separator: " ")
        body += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"5 4\"" : "") points=\"\(path)\"/>\n"
        if let label { legend.append((label, colour)) }
    }

    mutating func dots(_ points: [(Double, Double)], colour: String, label: String? = nil) {
        for p in points {
            body += "<circle cx=\"\(Self.number(x(p.0)))\" cy=\"\(Self.number(y(p.1)))\" r=\"3.5\" fill=\"\(colour)\"/>\n"
        }
        if let label { legend.append((label, colour)) }
    }

    /// Bars from `lower` to `upper` on x with height `value`.
    mutating func bars(_ bins: [(lower: Double, upper: Double, value: Double)], colour: String, label: String? = nil) {
        for bin in bins where bin.value > 0 {
            let left = x(bin.lower), right = x(bin.upper), top = y(bin.value), bottom = y(yRange.lowerBound)
            body += "<rect x=\"\(Self.number(left))\" y=\"\(Self.number(top))\" width=\"\(Self.number(max(0.5, right - left)))\" height=\"\(Self.number(max(0, bottom - top)))\" fill=\"\(colour)\" fill-opacity=\"0.55\"/>\n"
        }
        if let label { legend.append((label, colour)) }
    }

    mutating func verticalMarker(at value: Double, label: String) {
        let px = Self.number(x(value))
        body += "<line x1=\"\(px)\" x2=\"\(px)\" y1=\"\(Self.number(y(yRange.upperBound)))\" y2=\"\(Self.number(y(yRange.lowerBound)))\" stroke=\"#444\" stroke-dasharray=\"3 3\"/>\n"
        body += "<text x=\"\(px)\" y=\"\(Self.number(margin.top - 4))\" font-size=\"10\" text-anchor=\"middle\">\(escape(label))</text>\n"
    }

    var svg: String {
        var out = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(escape(title))\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"\(Int(width / 2))\" y=\"16\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\">\(escape(title))</text>\n"
        let left = margin.left, right = width - margin.right, top = margin.top, bottom = height - margin.bottom
        out += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(right - left)\" height=\"\(bottom - top)\" fill=\"none\" stroke=\"#999\"/>\n"
        for i in 0...4 {
            let fx = xRange.lowerBound + Double(i) / 4 * (xRange.upperBound - xRange.lowerBound)
            let fy = yRange.lowerBound + Double(i) / 4 * (yRange.upperBound - yRange.lowerBound)
            out += "<text x=\"\(Self.number(x(fx)))\" y=\"\(Self.number(bottom + 14))\" font-size=\"10\" text-anchor=\"middle\">\(Self.tick(fx))</text>\n"
            out += "<text x=\"\(Self.number(left - 4))\" y=\"\(Self.number(y(fy) + 3))\" font-size=\"10\" text-anchor=\"end\">\(Self.tick(fy))</text>\n"
            out += "<line x1=\"\(left)\" x2=\"\(right)\" y1=\"\(Self.number(y(fy)))\" y2=\"\(Self.number(y(fy)))\" stroke=\"#eee\"/>\n"
        }
        out += "<text x=\"\(Int((left + right) / 2))\" y=\"\(Int(height - 8))\" font-size=\"11\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        out += "<text x=\"12\" y=\"\(Int((top + bottom) / 2))\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(Int((top + bottom) / 2)))\">\(escape(yLabel))</text>\n"
        out += body
        for (index, entry) in legend.enumerated() {
            let ly = top + 12 + Double(index) * 14
            out += "<rect x=\"\(Self.number(right - 120))\" y=\"\(Self.number(ly - 8))\" width=\"10\" height=\"10\" fill=\"\(entry.1)\"/>"
            out += "<text x=\"\(Self.number(right - 106))\" y=\"\(Self.number(ly + 1))\" font-size=\"10\">\(escape(entry.0))</text>\n"
        }
        return out + "</svg>"
    }

    static func tick(_ v: Double) -> String {
        if abs(v) >= 100 { return String(format: "%.0f", v) }
        if abs(v) >= 10 { return String(format: "%.1f", v) }
        return String(format: "%.2f", v)
    }
}

/// Text safe inside HTML and SVG.
func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
