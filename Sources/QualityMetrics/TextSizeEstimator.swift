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
        let threshold = otsu(histogram)
        let total = Double(histogram.total)
        guard total > 0 else { return TextObservation(detected: false, strokeWidth: 0, inkFraction: 0, separability: 0) }
        let ink = histogram.fraction(atOrBelow: threshold)
        // Separability: between-class variance over total variance (1 = two spikes).
        let mean = histogram.mean
        var totalVariance = 0.0, inkSum = 0.0, inkCount = 0.0
        for (value, count) in histogram.counts.enumerated() {
            totalVariance += Double(count) * (Double(value) - mean) * (Double(value) - mean)
            if value <= threshold {
                inkSum += Double(value * count)
                inkCount += Double(count)
            }
        }
        var separability = 0.0
        if totalVariance > 0, inkCount > 0, inkCount < total {
            let m0 = inkSum / inkCount, m1 = (mean * total - inkSum) / (total - inkCount)
            separability = (inkCount * (total - inkCount) / total) * (m0 - m1) * (m0 - m1) / totalVariance
        }
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
        let detected = separability >= 0.6 && ink >= 0.01 && ink <= 0.4 && runCount >= 100 && histogram.percentile(0.5) > threshold + 40
        return TextObservation(detected: detected, strokeWidth: strokeWidth, inkFraction: ink, separability: separability)
    }

    /// Otsu's threshold: the level that maximises between-class variance.
    static func otsu(_ histogram: Histogram) -> Int {
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
