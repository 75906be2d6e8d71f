import ImageCodecs
import ImagingCore

/// The detectors imgquality runs.
public enum DetectorKind: String, Sendable, CaseIterable, Codable {
    case blur, smudge, exposure, aesthetic, text

    public var descriptor: MetricDescriptor {
        switch self {
        case .blur: BlurDetector.descriptor
        case .smudge: SmudgeDetector.descriptor
        case .exposure: ExposureDetector.descriptor
        case .aesthetic: AestheticsDetector.descriptor
        case .text: TextSizeEstimator.descriptor
        }
    }
}

/// Everything the detectors found in one image. A detector not run is nil.
public struct QualityReport: Sendable, Equatable {
    public var fullSize: ImageSize
    public var blur: BlurObservation?
    public var smudge: SmudgeObservation?
    public var exposure: ExposureObservation?
    public var aesthetic: AestheticsObservation?
    public var text: TextObservation?
}

/// Runs the detectors on an analysis image.
///
/// ```swift
/// let image = try ImageDecoder(options: QualityAnalyzer.decodeOptions()).decode(contentsOf: path)
/// let report = QualityAnalyzer().analyze(AnalysisImage(image))
/// print(report.blur?.confidence ?? 0)
/// ```
public struct QualityAnalyzer: Sendable {
    public var detectors: Set<DetectorKind>
    public var blur: BlurDetector
    public var smudge: SmudgeDetector
    public var exposure: ExposureDetector
    public var aesthetics: AestheticsDetector

    public init(
        detectors: Set<DetectorKind> = Set(DetectorKind.allCases), blur: BlurDetector = BlurDetector(),
        smudge: SmudgeDetector = SmudgeDetector(), exposure: ExposureDetector = ExposureDetector(),
        aesthetics: AestheticsDetector = AestheticsDetector()
    ) {
        self.detectors = detectors
        self.blur = blur
        self.smudge = smudge
        self.exposure = exposure
        self.aesthetics = aesthetics
    }

    /// Decode options that give the detectors what they need and no more: colour only
    /// when a colour cue is wanted, and JPEGs decoded at the smallest DCT scale whose
    /// shorter side still covers the analysis and detail sizes.
    public static func decodeOptions(for detectors: Set<DetectorKind> = Set(DetectorKind.allCases), base: DecodeOptions = DecodeOptions()) -> DecodeOptions {
        var options = base
        options.wantsRGB = detectors.contains(.smudge) || detectors.contains(.aesthetic)
        options.scale = .atLeast(shortSide: detectors.contains(.text) ? 1536 : 768)
        return options
    }

    public func analyze(_ image: AnalysisImage) -> QualityReport {
        var report = QualityReport(fullSize: image.fullSize)
        // The aesthetic score uses blur and exposure, so it runs them when asked alone.
        // Legibility (text) weighs the line pitch against blur.
        let needsBlur = detectors.contains(.blur) || detectors.contains(.aesthetic) || detectors.contains(.text)
        let needsExposure = detectors.contains(.exposure) || detectors.contains(.aesthetic)
        // Per-tile measurements and the text estimate are computed once and shared.
        let tiles = needsBlur || detectors.contains(.smudge) ? BlurDetector.tileWidths(image.luma) : nil
        let text = needsExposure || detectors.contains(.text)
            ? TextSizeEstimator.estimate(detail: image.detail, scale: image.detailScale, measuresEdges: detectors.contains(.text)) : nil
        let blurResult = needsBlur ? blur.analyze(image, tiles: tiles!) : nil
        let exposureResult = needsExposure ? exposure.analyze(image, text: text!) : nil
        if detectors.contains(.blur) { report.blur = blurResult }
        if detectors.contains(.exposure) { report.exposure = exposureResult }
        if detectors.contains(.smudge) { report.smudge = smudge.analyze(image, tiles: tiles!) }
        if detectors.contains(.aesthetic), let blurResult, let exposureResult {
            report.aesthetic = aesthetics.analyze(image, blur: blurResult, exposure: exposureResult, tiles: tiles!)
        }
        if detectors.contains(.text), var text {
            text.legibility = text.legibility(edgeWidth: blurResult!.edgeWidth, scale: image.scale)
            report.text = text
        }
        return report
    }
}
