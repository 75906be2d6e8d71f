import ImageCodecs
import ImagingCore
import QualityGating
import QualityMetrics

/// A question asked of an image, in the shape of Apple Vision's requests: performed on
/// an image, it yields an observation with a `confidence`.
///
/// Ranges follow imgquality's contract, not Vision's where they differ:
/// `AestheticsObservation.overallScore` is 0…1 here (Vision's is −1…1: ours = (v + 1)/2
/// of theirs in meaning); every defect confidence is 0…1 as in Vision.
public protocol ImageQualityRequest: Sendable {
    associatedtype Observation: Sendable
    /// The detectors the request needs, so an image handler decodes only what it must.
    var detectors: Set<DetectorKind> { get }
    func perform(on image: AnalysisImage) -> Observation
}

/// Lens smudge, as Vision's `DetectLensSmudgeRequest`: the observation's `confidence`
/// is the probability-like confidence that something on the lens obscures the image.
public struct DetectLensSmudgeRequest: ImageQualityRequest {
    public var detector = SmudgeDetector()
    /// Also measure the diagnostic fields (tile spectra, streaks, soft islands).
    public var diagnostics = false
    public init() {}
    public var detectors: Set<DetectorKind> { [.smudge] }
    public func perform(on image: AnalysisImage) -> SmudgeObservation {
        detector.analyze(image, tiles: TileAnalysis(image.luma), diagnostics: diagnostics)
    }
}

/// Blur (defocus and motion); Vision has no such request, so the name follows the pattern.
public struct DetectBlurRequest: ImageQualityRequest {
    public var detector = BlurDetector()
    public init() {}
    public var detectors: Set<DetectorKind> { [.blur] }
    public func perform(on image: AnalysisImage) -> BlurObservation { detector.analyze(image) }
}

/// Under- and over-exposure with a direction.
public struct DetectExposureRequest: ImageQualityRequest {
    public var detector = ExposureDetector()
    public init() {}
    public var detectors: Set<DetectorKind> { [.exposure] }
    public func perform(on image: AnalysisImage) -> ExposureObservation { detector.analyze(image) }
}

/// Aesthetics, as Vision's `CalculateImageAestheticsScoresRequest`: `overallScore` and `isUtility`.
public struct CalculateImageAestheticsScoresRequest: ImageQualityRequest {
    public init() {}
    public var detectors: Set<DetectorKind> { [.aesthetic] }
    public func perform(on image: AnalysisImage) -> AestheticsObservation {
        // The analyzer runs what aesthetics builds on (blur, exposure, the text found) once.
        QualityAnalyzer(detectors: [.aesthetic]).analyze(image).aesthetic ?? AestheticsObservation()
    }
}

/// Readiness for text recognition: every detector, then the gate.
public struct DetectTextReadinessRequest: ImageQualityRequest {
    public var configuration = Assessor.Configuration()
    public init() {}
    public var detectors: Set<DetectorKind> { configuration.analyzer.detectors }
    public func perform(on image: AnalysisImage) -> (report: QualityReport, decision: GateDecision) {
        configuration.judge(image)
    }
}

/// Decodes an image once and performs any number of requests on it, as Vision's
/// `ImageRequestHandler` does.
///
/// ```swift
/// let handler = try ImageRequestHandler(contentsOf: "photo.jpg")
/// let smudge = handler.perform(DetectLensSmudgeRequest())
/// let aesthetics = handler.perform(CalculateImageAestheticsScoresRequest())
/// print(smudge.confidence, aesthetics.overallScore, aesthetics.isUtility)
/// ```
public struct ImageRequestHandler: Sendable {
    public let image: AnalysisImage

    /// Decodes the file with what every detector may need (colour, DCT scale).
    /// - Throws: `ImagingError`.
    public init(contentsOf path: String, limits: DecodeLimits = DecodeLimits()) throws(ImagingError) {
        image = try Assessor(Assessor.Configuration(decodeOptions: DecodeOptions(limits: limits))).analysisImage(.file(path: path))
    }

    /// Wraps pixels the caller already decoded.
    public init(_ decoded: DecodedImage) {
        image = AnalysisImage(decoded)
    }

    public func perform<Request: ImageQualityRequest>(_ request: Request) -> Request.Observation {
        request.perform(on: image)
    }
}
