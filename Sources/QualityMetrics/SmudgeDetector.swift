import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something on the lens (a fingerprint, grease, raindrops, dust): fine detail lost in
/// the frequency domain, unevenly across the frame, with veiling glare that lifts
/// the shadows.
///
/// Per 64-pixel tile of the analysis image (Hann-windowed, mean removed), the radially
/// averaged power spectrum gives a log-log slope between 1/32 and 3/8 cycles per
/// pixel. Natural images fall off near −2; a smudge steepens it. The detector
/// combines the median slope, how uneven the slope is across the frame (a partial
/// smudge), and glare: the darkest tones lifted above black. It also reports softness
/// (the median tile edge width), how unevenly sharp the frame is, and soft islands
/// (tiles much softer than their neighbours, as under drops or a fingerprint).
///
/// Motion blur, defocus, fog and long exposures also steepen spectra and can score
/// high: use it together with `blur`. Size: measured on the analysis image. Cost: one
/// 64×64 FFT per textured tile (≤ 192 tiles).
public struct SmudgeDetector: Sendable {
    public var mapping: LogisticMapping

    /// Default from calibration: `imgquality calibrate Datasets/smudge/labels.csv --detector smudge`
    /// (logistic fit on the train split; `Reports/smudge/profile.json`).
    public static let defaultMapping = LogisticMapping(midpoint: 0.3396, slope: 6.1522)

    public init(mapping: LogisticMapping = SmudgeDetector.defaultMapping) {
        self.mapping = mapping
    }

    public static let descriptor = MetricDescriptor(
        name: "smudge",
        meaning: "confidence that something on the lens obscures the image",
        direction: "defect",
        fields: SmudgeObservation.descriptorFields,
        cost: "one 64×64 FFT per textured tile of the analysis image, and the shared tile analysis",
        caveats: "Motion blur, defocus, fog and long exposures also score high.",
        calibration: .init(measure: "evidence", meaning: "the blend of smudge cues before mapping"))

    static let tile = 64

    public func analyze(_ image: AnalysisImage) -> SmudgeObservation {
        analyze(image, tiles: TileAnalysis(image.luma))
    }

    /// - Parameter tiles: the tile analysis of `image.luma`.
    public func analyze(_ image: AnalysisImage, tiles: TileAnalysis) -> SmudgeObservation {
        let plane = image.luma
        let n = Self.tile
        let fft = FFT(size: n)
        let window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(n))) }
        // White noise of variance σ² puts σ²·(Σ window²)² of power in every bin.
        let windowEnergy = window.reduce(0) { $0 + Double($1) * Double($1) }
        let noiseFloor = tiles.noiseVariance * windowEnergy * windowEnergy
        var slopes: [Double] = [], highs: [Double] = []
        var re = [Float](repeating: 0, count: n * n), im = re
        var y0 = 0
        while y0 + n <= plane.height {
            var x0 = 0
            while x0 + n <= plane.width {
                var mean: Float = 0
                for y in 0..<n { for x in 0..<n { mean += Float(plane[x0 + x, y0 + y]) } }
                mean /= Float(n * n)
                var variance: Float = 0
                for y in 0..<n {
                    for x in 0..<n {
                        let v = Float(plane[x0 + x, y0 + y]) - mean
                        variance += v * v
                        re[y * n + x] = v * window[x] * window[y]
                        im[y * n + x] = 0
                    }
                }
                x0 += n
                guard (variance / Float(n * n)).squareRoot() >= 4 else { continue }
                fft.transform2D(real: &re, imaginary: &im)
                let (slope, high) = Self.radialProfile(re, im, size: n, noiseFloor: noiseFloor)
                slopes.append(slope)
                highs.append(high)
            }
            y0 += n
        }
        let veil = Self.veil(image)
        let softness = percentile(tiles.widths, 0.5)
        let widthSpread = tiles.widths.isEmpty ? 0 : log(max(percentile(tiles.widths, 0.9), 1e-3) / max(percentile(tiles.widths, 0.1), 1e-3))
        let islands = Self.softIslands(tiles)
        guard !slopes.isEmpty else {
            return SmudgeObservation(
                confidence: 0, spectralSlope: 0, slopeSpread: 0, highFrequency: 0, veil: veil, evidence: 0, softness: softness,
                widthSpread: widthSpread, softIslands: islands)
        }
        slopes.sort()
        highs.sort()
        let slope = percentile(slopes, 0.5)
        let spread = percentile(slopes, 0.75) - percentile(slopes, 0.25)
        let high = percentile(highs, 0.5)
        // A fixed blend of a steep spectrum, unevenness across the frame and glare; the
        // other cues are reported for calibration. `Scripts/measure/fit_smudge.py`
        // compares the blend with a logistic fit of every cue.
        let steep = ramp(-slope, from: 2.6, to: 4.2)
        let uneven = ramp(spread, from: 0.6, to: 1.6)
        let veiled = ramp(veil, from: 0.08, to: 0.3)
        let evidence = max(0, min(1, 0.55 * steep + 0.2 * uneven + 0.25 * veiled))
        return SmudgeObservation(
            confidence: mapping(evidence), spectralSlope: slope, slopeSpread: spread, highFrequency: high, veil: veil,
            evidence: evidence, softness: softness, widthSpread: widthSpread, softIslands: islands)
    }

    /// The share of textured tiles at least 1.8× softer than the median of their textured neighbours.
    static func softIslands(_ tiles: TileAnalysis) -> Double {
        let columns = tiles.values.columns, rows = tiles.values.rows
        var islands = 0, judged = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let width = tiles.grid[row * columns + column]
                guard width > 0 else { continue }
                var neighbours: [Double] = []
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let r = row + dy, c = column + dx
                        guard r >= 0, r < rows, c >= 0, c < columns else { continue }
                        let w = tiles.grid[r * columns + c]
                        if w > 0 { neighbours.append(w) }
                    }
                }
                guard neighbours.count >= 3 else { continue }
                judged += 1
                if width >= 1.8 * percentile(neighbours.sorted(), 0.5) { islands += 1 }
            }
        }
        return judged > 0 ? Double(islands) / Double(judged) : 0
    }

    /// The log-log slope of radially averaged power between radii 2 and 24 (of 32),
    /// and the share of power above radius 8.
    /// Noise power per FFT bin is `noiseFloor`: bins are corrected by it, and only radii
    /// whose power stands at least twice above it enter the slope (a blurred tile's high
    /// frequencies sink to the noise floor, which would otherwise flatten the slope).
    static func radialProfile(_ re: [Float], _ im: [Float], size n: Int, noiseFloor: Double = 0) -> (slope: Double, high: Double) {
        let half = n / 2
        var power = [Double](repeating: 0, count: half + 1), counts = [Double](repeating: 0, count: half + 1)
        for v in 0..<n {
            let fy = v <= half ? v : v - n
            for u in 0..<n {
                let fx = u <= half ? u : u - n
                let radius = Int((Double(fx * fx + fy * fy)).squareRoot().rounded())
                guard radius >= 1 && radius <= half else { continue }
                let p = Double(re[v * n + u]) * Double(re[v * n + u]) + Double(im[v * n + u]) * Double(im[v * n + u])
                power[radius] += p
                counts[radius] += 1
            }
        }
        var xs: [Double] = [], ys: [Double] = []
        var total = 0.0, high = 0.0
        for r in 1...half where counts[r] > 0 {
            let mean = power[r] / counts[r]
            let signal = max(0, power[r] - noiseFloor * counts[r])
            total += signal
            if r > half / 4 { high += signal }
            if r >= 2 && r <= 3 * half / 4 && mean >= 2 * noiseFloor {
                xs.append(log(Double(r)))
                ys.append(log(max(mean - noiseFloor, 1e-12)))
            }
        }
        guard xs.count >= 3 else {
            // Only the lowest frequencies stand above the noise: as steep as measurable.
            return (-8, total > 0 ? high / total : 0)
        }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        return (sxx > 0 ? sxy / sxx : 0, total > 0 ? high / total : 0)
    }

    /// The 2nd percentile of the darkest channel (or of luma without colour), 0–1.
    static func veil(_ image: AnalysisImage) -> Double {
        guard let rgb = image.rgb else { return Double(Histogram(image.luma).percentile(0.02)) / 255 }
        var darkest = PixelBuffer<UInt8>(width: rgb.width, height: rgb.height)
        for y in 0..<rgb.height {
            for x in 0..<rgb.width { darkest[x, y] = min(rgb[x, y, 0], rgb[x, y, 1], rgb[x, y, 2]) }
        }
        return Double(Histogram(darkest).percentile(0.02)) / 255
    }
}

/// The smudge detector's answer.
public struct SmudgeObservation: DetectorObservation {
    /// 0 = clean lens, 1 = clearly smudged.
    public var confidence = 0.0
    public var spectralSlope = 0.0
    public var slopeSpread = 0.0
    public var highFrequency = 0.0
    public var veil = 0.0
    /// Median noise-corrected edge width over textured tiles (analysis pixels).
    public var softness = 0.0
    /// ln(90th / 10th percentile) of tile edge widths: how unevenly sharp the frame is.
    public var widthSpread = 0.0
    /// Share of textured tiles at least 1.8× softer than the median of their textured
    /// neighbours: blur in patches (drops, a fingerprint), not in whole regions.
    public var softIslands = 0.0
    public var evidence = 0.0

    public init() {}

    public init(
        confidence: Double, spectralSlope: Double, slopeSpread: Double, highFrequency: Double, veil: Double, evidence: Double,
        softness: Double, widthSpread: Double, softIslands: Double
    ) {
        self.confidence = confidence
        self.spectralSlope = spectralSlope
        self.slopeSpread = slopeSpread
        self.highFrequency = highFrequency
        self.veil = veil
        self.evidence = evidence
        self.softness = softness
        self.widthSpread = widthSpread
        self.softIslands = softIslands
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that something on the lens obscures the image: 0 clean, 1 smudged", units: "probability", range: 0...1),
        .number("spectralSlope", \.spectralSlope, "median log-log slope of tile power spectra", units: "slope", range: -8...0),
        .number("slopeSpread", \.slopeSpread, "interquartile range of tile slopes (unevenness across the frame)", units: "slope", range: 0...8),
        .number("highFrequency", \.highFrequency, "median share of spectral power above 1/8 cycle per pixel", units: "fraction", range: 0...1),
        .number("veil", \.veil, "darkest tones' lift above black (2nd percentile of the darkest channel), 0–1", units: "fraction", range: 0...1),
        .number("softness", \.softness, "median noise-corrected edge width over textured tiles", units: "px", range: 0...64),
        .number("widthSpread", \.widthSpread, "ln(90th / 10th percentile) of tile edge widths", units: "ln ratio", range: 0...8),
        .number("softIslands", \.softIslands, "share of textured tiles 1.8× softer than their neighbours", units: "fraction", range: 0...1),
        .number("evidence", \.evidence, "blend of steep spectra, unevenness and veil before mapping", units: "score", range: 0...1),
    ]
}
