import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Under- and over-exposure from where the luma mass sits and what is clipped.
///
/// Under-exposure: dark mid-tones, much of the frame crushed near black, and no bright
/// tones left. A night scene with lit windows keeps bright highlights and a real tonal
/// range, which lowers the evidence. Over-exposure: highlights clipped *and* shadows lifted; a
/// well-exposed white page has clipped paper but keeps dark ink, so it is not
/// called over-exposed.
///
/// Size: histogram fractions do not depend on resolution. Cost: one histogram of
/// the analysis image.
public struct ExposureDetector: Sendable {
    public var under: LogisticMapping
    public var over: LogisticMapping

    /// Defaults from calibration: `imgquality calibrate Datasets/exposure/labels.csv --detector exposure`
    /// fits one mapping of the larger evidence (train split; `Reports/exposure/profile.json`).
    public static let defaultUnder = LogisticMapping(midpoint: 0.2489, slope: 9.8768)
    public static let defaultOver = defaultUnder

    public init(under: LogisticMapping = ExposureDetector.defaultUnder, over: LogisticMapping = ExposureDetector.defaultOver) {
        self.under = under
        self.over = over
    }

    public static let descriptor = MetricDescriptor(
        name: "exposure",
        meaning: "confidence that the image is badly exposed; direction says under or over",
        direction: "defect",
        fields: ExposureObservation.descriptorFields,
        cost: "one histogram of the analysis image, and the shared detail analysis and text estimate",
        caveats: "Deliberately low-key or high-key photographs read as badly exposed.",
        calibration: .init(measure: "evidence", meaning: "the larger of underEvidence and overEvidence"))

    public func analyze(_ image: AnalysisImage) -> ExposureObservation {
        let detail = DetailAnalysis(image.detail)
        let text = TextDetector.estimate(detail: image.detail, analysis: detail, scale: image.detailScale, measuresEdges: false)
        return analyze(image, detail: detail, colourfulness: image.rgb.map { Colourfulness(rgb: $0) }, text: text)
    }

    /// - Parameters:
    ///   - detail: the histogram and ink–paper split of `image.detail`.
    ///   - colourfulness: the analysis image's colourfulness, nil without colour.
    ///   - text: the text estimate of the same image (shared with the `text` detector).
    public func analyze(
        _ image: AnalysisImage, detail: DetailAnalysis, colourfulness: Colourfulness?, text: TextObservation
    ) -> ExposureObservation {
        let histogram = Histogram(image.luma)
        let median = Double(histogram.percentile(0.5))
        let p02 = Double(histogram.percentile(0.02)), p25 = Double(histogram.percentile(0.25))
        let p75 = Double(histogram.percentile(0.75)), p98 = Double(histogram.percentile(0.98))
        let shadowClip = histogram.fraction(atOrBelow: 8), highlightClip = histogram.fraction(atOrAbove: 250)

        // Under: dark mid-tones, crushed shadows, and no bright tones at all (the upper
        // range unused). A night scene with lit windows keeps its highlights, which
        // removes the last term.
        let darkMidtones = ramp(median, from: 110, to: 25)
        let darkUpperTones = ramp(p75, from: 150, to: 50)
        let crushed = ramp(shadowClip, from: 0.02, to: 0.4)
        let noHighlights = ramp(p98, from: 200, to: 100)
        let underEvidence = max(0, min(1, 0.35 * darkMidtones + 0.25 * darkUpperTones + 0.2 * crushed + 0.2 * noHighlights))

        // Over: highlights clipped (detail lost: necessary), with bright mid-tones and lifted shadows.
        // A bright image whose highlights are not clipped still holds its detail.
        let brightMidtones = ramp(median, from: 150, to: 235)
        let clipped = ramp(highlightClip, from: 0.005, to: 0.12)
        let liftedShadows = ramp(p02, from: 20, to: 110)
        let brightLowerTones = ramp(p25, from: 110, to: 220)
        var overEvidence = clipped * (0.4 + 0.3 * brightMidtones + 0.15 * liftedShadows + 0.15 * brightLowerTones)
        // A page is meant to be bright: over-exposed only when its ink is washed out.
        // Ink is measured at decode resolution, where thin strokes are not averaged away.
        let split = detail.split  // ink and paper, if a page
        let colourless = colourfulness.map { $0.value < 25 } ?? true
        // A page: short ink runs in regularly spaced lines, without colour.
        let isPage = text.detected && text.lineRegularity >= 0.25 && colourless
        // The ink's own level: the darker half of the ink class (edges of strokes are lighter).
        let inkLevel = isPage ? Double(detail.histogram.percentile(split.darkShare / 2)) : -1
        if isPage { overEvidence *= ramp(inkLevel, from: 90, to: 160) }

        let underConfidence = under(underEvidence), overConfidence = over(overEvidence)
        let direction: ExposureObservation.Direction
        let confidence = max(underConfidence, overConfidence)
        if confidence < 0.5 {
            direction = .ok
        } else {
            direction = underConfidence >= overConfidence ? .under : .over
        }
        return ExposureObservation(
            confidence: confidence, direction: direction, median: median, p02: p02, p98: p98,
            shadowClip: shadowClip, highlightClip: highlightClip, underEvidence: underEvidence, overEvidence: overEvidence,
            inkLevel: inkLevel)
    }
}

/// The exposure detector's answer.
public struct ExposureObservation: DetectorObservation {
    public enum Direction: String, Sendable, CaseIterable {
        case under, over, ok
    }

    /// 0 = well exposed, 1 = clearly badly exposed.
    public var confidence = 0.0
    public var direction = Direction.ok
    public var median = 0.0
    public var p02 = 0.0
    public var p98 = 0.0
    public var shadowClip = 0.0
    public var highlightClip = 0.0
    public var underEvidence = 0.0
    public var overEvidence = 0.0
    /// Mean level of the ink when the image is a page of dark marks on light paper, else −1.
    public var inkLevel = -1.0

    public init() {}

    public init(
        confidence: Double, direction: Direction, median: Double, p02: Double, p98: Double, shadowClip: Double,
        highlightClip: Double, underEvidence: Double, overEvidence: Double, inkLevel: Double
    ) {
        self.confidence = confidence
        self.direction = direction
        self.median = median
        self.p02 = p02
        self.p98 = p98
        self.shadowClip = shadowClip
        self.highlightClip = highlightClip
        self.underEvidence = underEvidence
        self.overEvidence = overEvidence
        self.inkLevel = inkLevel
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that the image is badly exposed: 0 well exposed, 1 badly", units: "probability", range: 0...1),
        .label("direction", \.direction, "under, over, or ok when the confidence is below 0.5"),
        .number("median", \.median, "median luma", units: "8-bit level", range: 0...255),
        .number("p02", \.p02, "2nd percentile of luma (the darkest tones)", units: "8-bit level", range: 0...255),
        .number("p98", \.p98, "98th percentile of luma (the brightest tones)", units: "8-bit level", range: 0...255),
        .number("shadowClip", \.shadowClip, "share of pixels at or below level 8", units: "fraction", range: 0...1),
        .number("highlightClip", \.highlightClip, "share of pixels at or above level 250", units: "fraction", range: 0...1),
        .number("underEvidence", \.underEvidence, "combined under-exposure evidence before mapping", units: "score", range: 0...1),
        .number("overEvidence", \.overEvidence, "combined over-exposure evidence before mapping", units: "score", range: 0...1),
        .number("inkLevel", \.inkLevel, "mean ink level when the image is a page of dark marks on paper, else −1", units: "8-bit level", range: -1...255),
    ]
}
