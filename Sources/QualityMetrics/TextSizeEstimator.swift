import ImageKernels
import ImagingCore

/// How large text is, in full-resolution pixels: the typical stroke width of dark
/// marks on a light ground.
///
/// Recognisers fail on text that is simply too small, however sharp. On a centre
/// crop of the image at decode resolution (up to 1 024 × 1 024), Otsu's threshold
/// separates ink from paper; the median length of horizontal dark runs is the stroke
/// width (vertical strokes dominate Latin and Cyrillic text). Times the decode
/// scale, that gives full-resolution pixels. Body text has x-heights of roughly five
/// stroke widths; Tesseract reads x-heights from about 10 pixels up.
public enum TextSizeEstimator {
    public static let descriptor = MetricDescriptor(
        name: "text",
        meaning: "whether dark text-like marks are present, and their stroke width",
        direction: "measure",
        fields: [
            .init("detected", "dark marks on a light ground found (Otsu separability and ink share)", units: "bool", range: 0...1),
            .init("strokeWidth", "median horizontal run of ink, full-resolution pixels", units: "px", range: 0...256),
            .init("inkFraction", "share of ink pixels in the crop", units: "fraction", range: 0...1),
        ],
        cost: "one threshold and one run-length pass over a ≤ 1024² crop",
        caveats: "Light text on dark grounds is not measured.")

    public static func estimate(detail: PixelBuffer<UInt8>, scale: Double) -> TextObservation {
        let histogram = Histogram(detail)
        let split = OtsuSplit(histogram)
        let threshold = split.threshold
        let ink = split.darkShare, separability = split.separability
        var runs = [Int](repeating: 0, count: 65)
        var runCount = 0
        for y in 0..<detail.height {
            var length = 0
            var touchesEdge = true
            for x in 0..<detail.width {
                if Int(detail[x, y]) <= threshold {
                    length += 1
                } else {
                    if length > 0 && !touchesEdge && length <= 64 {
                        runs[length] += 1
                        runCount += 1
                    }
                    length = 0
                    touchesEdge = false
                }
            }
        }
        var strokeWidth = 0.0
        if runCount > 0 {
            var running = 0
            for (length, count) in runs.enumerated() {
                running += count
                if running * 2 >= runCount {
                    strokeWidth = Double(length) * scale
                    break
                }
            }
        }
        // Text is many short runs: strokes, not a dark foreground.
        let runsPerRow = Double(runCount) / Double(max(1, detail.height))
        let detected = split.looksLikeInkOnPaper && runCount >= 100 && runsPerRow >= 2 && strokeWidth / scale <= 16
        return TextObservation(detected: detected, strokeWidth: strokeWidth, inkFraction: ink, separability: separability)
    }

    /// Otsu's threshold: the level that maximises between-class variance.
    public static func otsu(_ histogram: Histogram) -> Int {
        let total = Double(histogram.total)
        let sum = Double(histogram.counts.enumerated().reduce(0) { $0 + $1.offset * $1.element })
        var weight0 = 0.0, sum0 = 0.0, best = 0.0, threshold = 127
        for t in 0..<255 {
            weight0 += Double(histogram.counts[t])
            guard weight0 > 0 else { continue }
            let weight1 = total - weight0
            guard weight1 > 0 else { break }
            sum0 += Double(t * histogram.counts[t])
            let m0 = sum0 / weight0, m1 = (sum - sum0) / weight1
            let between = weight0 * weight1 * (m0 - m1) * (m0 - m1)
            if between > best {
                best = between
                threshold = t
            }
        }
        return threshold
    }
}

/// The text size estimate.
public struct TextObservation: Sendable, Equatable {
    public var detected: Bool
    /// Full-resolution pixels.
    public var strokeWidth: Double
    public var inkFraction: Double
    public var separability: Double
}

/// A histogram split in two by Otsu's threshold: ink and paper, when it is a page.
public struct OtsuSplit: Sendable, Equatable {
    public var threshold: Int
    public var darkMean: Double
    public var brightMean: Double
    /// Share of samples at or below the threshold.
    public var darkShare: Double
    /// Between-class variance over total variance: 1 for two spikes, near 0 for one blob.
    public var separability: Double

    public init(_ histogram: Histogram) {
        threshold = TextSizeEstimator.otsu(histogram)
        let total = Double(histogram.total)
        var darkCount = 0.0, darkSum = 0.0, allSum = 0.0
        for (value, count) in histogram.counts.enumerated() {
            allSum += Double(value * count)
            if value <= threshold {
                darkCount += Double(count)
                darkSum += Double(value * count)
            }
        }
        let mean = total > 0 ? allSum / total : 0
        var variance = 0.0
        for (value, count) in histogram.counts.enumerated() { variance += Double(count) * (Double(value) - mean) * (Double(value) - mean) }
        darkMean = darkCount > 0 ? darkSum / darkCount : 0
        brightMean = total > darkCount ? (allSum - darkSum) / (total - darkCount) : 0
        darkShare = total > 0 ? darkCount / total : 0
        if variance > 0, darkCount > 0, darkCount < total {
            separability = (darkCount * (total - darkCount) / total) * (darkMean - brightMean) * (darkMean - brightMean) / variance
        } else {
            separability = 0
        }
    }

    /// Dark marks (1–40% of the area) on a light, well separated ground: a page of text.
    public var looksLikeInkOnPaper: Bool {
        separability >= 0.6 && darkShare >= 0.01 && darkShare <= 0.4 && brightMean >= 140 && brightMean - darkMean >= 50
    }
}
