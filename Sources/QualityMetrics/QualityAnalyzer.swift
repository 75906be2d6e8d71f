import ImageCodecs
import ImageKernels
import ImagingCore

/// The detectors imgquality runs, in record order.
public enum DetectorKind: String, Sendable, CaseIterable, Codable {
    case blur, smudge, exposure, aesthetic, text

    public var descriptor: MetricDescriptor {
        switch self {
        case .blur: BlurDetector.descriptor
        case .smudge: SmudgeDetector.descriptor
        case .exposure: ExposureDetector.descriptor
        case .aesthetic: AestheticsDetector.descriptor
        case .text: TextDetector.descriptor
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

    public init(
        fullSize: ImageSize, blur: BlurObservation? = nil, smudge: SmudgeObservation? = nil, exposure: ExposureObservation? = nil,
        aesthetic: AestheticsObservation? = nil, text: TextObservation? = nil
    ) {
        self.fullSize = fullSize
        self.blur = blur
        self.smudge = smudge
        self.exposure = exposure
        self.aesthetic = aesthetic
        self.text = text
    }
}

/// Runs the detectors on an analysis image.
///
/// Most callers want `Assessor` (module QualityGating), which decodes, analyses and gates
/// in one call. This is the analysis step alone:
///
/// ```swift
/// let analyzer = QualityAnalyzer()
/// let image = try ImageDecoder(options: analyzer.decodeOptions()).decode(contentsOf: path)
/// let report = analyzer.analyze(AnalysisImage(image))
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
    /// shorter side still covers the detail crop and, when text is searched for, whose
    /// longer side nearly covers the text plane.
    public func decodeOptions(base: DecodeOptions = DecodeOptions()) -> DecodeOptions {
        var options = base
        // Colour: smudge's veil, aesthetics, and whether a page of text has colour (text, and
        // exposure, which judges a page by its ink).
        let findsText = detectors.contains(.text) || detectors.contains(.exposure)
        options.wantsRGB = detectors.contains(.smudge) || detectors.contains(.aesthetic) || findsText
        // Within 1/16 of the text plane's side: a 4 000-px photo is read at half size
        // (a 2 000-px plane) instead of whole.
        options.scale = .covering(shortSide: 768, longSide: findsText ? AnalysisImage.textSide * 15 / 16 : 0)
        return options
    }

    public func analyze(_ image: AnalysisImage) -> QualityReport {
        var timings: StageTimings?
        return analyze(image, timings: &timings)
    }

    /// The shortest side, in full-resolution pixels, an image needs to be measured: one
    /// analysis tile (`TileAnalysis.tileSize`). Smaller images get no observations.
    public static let minimumSide = TileAnalysis.tileSize

    /// Whether an image of `size` is large enough to be measured.
    public static func canMeasure(_ size: ImageSize) -> Bool {
        min(size.width, size.height) >= minimumSide
    }

    /// Analyses `image`, adding each stage's time to `timings` when it is non-nil. An image
    /// smaller than `minimumSide` gets a report without observations: its measurements would
    /// be guesses.
    public func analyze(_ image: AnalysisImage, timings: inout StageTimings?) -> QualityReport {
        guard Self.canMeasure(image.fullSize) else { return QualityReport(fullSize: image.fullSize) }
        let shared = SharedAnalysis(image, analyzer: self)
        shared.timings = timings
        defer { timings = shared.timings }
        var report = QualityReport(fullSize: image.fullSize)
        if detectors.contains(.blur) { report.blur = shared.blur }
        if detectors.contains(.smudge) { report.smudge = shared.measured("smudge") { smudge.analyze(image, tiles: shared.tiles) } }
        if detectors.contains(.exposure) { report.exposure = shared.exposure }
        if detectors.contains(.aesthetic) {
            report.aesthetic = shared.measured("aesthetic") {
                aesthetics.analyze(
                    image, blur: shared.blur, exposure: shared.exposure, tiles: shared.tiles, colourfulness: shared.colourfulness,
                    showsPage: shared.located.showsPage)
            }
        }
        if detectors.contains(.text) { report.text = shared.text }
        return report
    }
}

/// The intermediates several detectors read, each computed on first use and at most
/// once per image: the tile analysis (blur, smudge, aesthetics), the text found (text,
/// exposure's page rule, aesthetics' utility) and the detail analysis of the crop where it
/// is (text estimate, exposure's ink level), colourfulness (text, aesthetics), and the
/// blur, exposure and text estimate other detectors build on.
private final class SharedAnalysis {
    let image: AnalysisImage
    let analyzer: QualityAnalyzer

    init(_ image: AnalysisImage, analyzer: QualityAnalyzer) {
        self.image = image
        self.analyzer = analyzer
    }

    /// Stage times, when asked for.
    var timings: StageTimings?

    /// `body`'s result, timed as stage `name` when timings are asked for.
    func measured<T>(_ name: String, _ body: () -> T) -> T {
        guard timings != nil else { return body() }
        let start = timings!.begin()
        let result = body()
        timings!.end(name, start)
        return result
    }

    lazy var tiles = measured("tiles") { TileAnalysis(image.luma) }
    /// The text `TextFinder` located.
    lazy var found = measured("textFinder") { TextFinder.find(image.textPlane()) }
    /// The decode-resolution crop where that text is (`TextDetector.detail(of:found:)`).
    lazy var textDetail = TextDetector.detail(of: image, found: found)
    lazy var detail = measured("detail") { DetailAnalysis(textDetail) }
    lazy var colourfulness = measured("colourfulness") { image.rgb.map { Colourfulness(rgb: $0) } }
    lazy var blur = measured("blur") { analyzer.blur.analyze(image, tiles: tiles) }
    /// The text estimate without legibility; its directional edges only when the text
    /// detector will report them.
    lazy var textEstimate = measured("textEstimate") {
        TextDetector.estimate(
            detail: textDetail, analysis: detail, scale: image.detailScale, measuresEdges: analyzer.detectors.contains(.text))
    }
    /// The estimate with the text `TextFinder` located.
    lazy var located = TextDetector.locating(textEstimate, found: found, colourfulness: colourfulness)
    lazy var text = measured("text") { TextDetector.judging(located, blur: blur, scale: image.scale) }
    lazy var exposure = measured("exposure") { analyzer.exposure.analyze(image, detail: detail, text: located) }
}
