import ImageKernels
import ImagingCore

/// A detector as the pipeline runs it: a descriptor, an observation type, and an analysis
/// over the intermediates the detectors share.
///
/// Adding a detector is one type conforming to this protocol and one registry line
/// (`DetectorRegistry.builtIn`, or `adding(_:)` for a caller's own): the record, its JSON
/// Schema, the flat formats' columns, the contact sheet and calibration read the registry.
///
/// ```swift
/// struct Darkness: Detector {
///     static let descriptor = MetricDescriptor(name: "darkness", …, fields: DarknessObservation.descriptorFields, …)
///     func analyze(_ context: AnalysisContext) -> DarknessObservation { … context.image.luma … }
/// }
/// let analyzer = QualityAnalyzer(registry: .builtIn.adding(Darkness()))
/// ```
public protocol Detector: Sendable {
    associatedtype Observation: DetectorObservation
    /// The record key, fields and meaning: `descriptor.fields` must be `Observation.descriptorFields`.
    static var descriptor: MetricDescriptor { get }
    /// The observation of the image `context` holds. Read shared work (tiles, text found,
    /// other detectors' observations) from `context`, which computes each once per image.
    func analyze(_ context: AnalysisContext) -> Observation
}

/// A registered detector, its type erased: what the record, schema and calibration need.
public struct AnyDetector: Sendable {
    public let descriptor: MetricDescriptor
    /// The detector itself (its configuration: models, mappings).
    public let base: any Detector
    /// What the gate checks of its observation on photos (`DetectorObservation.photoCriterion`).
    public let photoCriterion: PhotoCriterion?
    let run: @Sendable (AnalysisContext) -> any DetectorObservation
    let decode: @Sendable (KeyedDecodingContainer<FieldKey>, FieldKey) throws -> (any DetectorObservation)?

    public init<D: Detector>(_ detector: D) {
        descriptor = D.descriptor
        base = detector
        photoCriterion = D.Observation.photoCriterion
        run = { detector.analyze($0) }
        decode = { container, key in try container.decodeIfPresent(D.Observation.self, forKey: key) }
    }

    public var name: String { descriptor.name }

    /// The detector's observation of the image `context` holds.
    public func analyze(_ context: AnalysisContext) -> any DetectorObservation { run(context) }

    /// The detector's observation under `key` in a record, or nil when the record has none.
    public func decodeObservation(from container: KeyedDecodingContainer<FieldKey>, forKey key: FieldKey) throws
        -> (any DetectorObservation)?
    {
        try decode(container, key)
    }
}

/// The detectors imgquality runs, in record order.
public struct DetectorRegistry: Sendable {
    public private(set) var detectors: [AnyDetector]

    public init(_ detectors: [AnyDetector]) {
        self.detectors = detectors
    }

    /// The built-in detectors, in record order.
    public static let builtIn = DetectorRegistry([
        AnyDetector(BlurDetector()), AnyDetector(SmudgeDetector()), AnyDetector(ExposureDetector()),
        AnyDetector(AestheticsDetector()), AnyDetector(TextDetector()), AnyDetector(NoiseDetector()),
        AnyDetector(CompressionDetector()),
    ])

    /// The registry with `detector` after the others, or in place of the one of the same name.
    public func adding<D: Detector>(_ detector: D) -> DetectorRegistry {
        var copy = self
        copy[D.descriptor.name] = AnyDetector(detector)
        return copy
    }

    /// The detector called `name`; setting replaces it in place, or appends a new one.
    public subscript(_ name: String) -> AnyDetector? {
        get { detectors.first { $0.name == name } }
        set {
            let index = detectors.firstIndex { $0.name == name }
            switch (index, newValue) {
            case (let index?, let detector?): detectors[index] = detector
            case (let index?, nil): detectors.remove(at: index)
            case (nil, let detector?): detectors.append(detector)
            case (nil, nil): break
            }
        }
    }

    /// The names, in record order.
    public var names: [String] { detectors.map(\.name) }

    /// The descriptors, in record order.
    public var descriptors: [MetricDescriptor] { detectors.map(\.descriptor) }

    /// The detectors the gate checks on photos, each with its criterion, in record order.
    public var photoCriteria: [(name: String, criterion: PhotoCriterion)] {
        detectors.compactMap { detector in detector.photoCriterion.map { (detector.name, $0) } }
    }

    /// The configured detector of type `D` called `D.descriptor.name`.
    /// - Precondition: the registry holds one, of that type (the built-in names always do).
    public func detector<D: Detector>(_: D.Type) -> D {
        guard let detector = self[D.descriptor.name]?.base as? D else {
            preconditionFailure("the registry holds no \(D.descriptor.name) detector of type \(D.self)")
        }
        return detector
    }
}

/// One image's analysis: the image, and the intermediates several detectors read, each
/// computed on first use and at most once per image.
///
/// The tile analysis (blur, smudge, aesthetics), the text found (text, exposure's page
/// rule, aesthetics' utility) and the detail analysis of the crop where it is (text
/// estimate, exposure's ink level), colourfulness (text, aesthetics), and the blur,
/// exposure and text observations other detectors build on.
public final class AnalysisContext {
    public let image: AnalysisImage
    /// The registry the analysis runs, with its configured detectors.
    public let registry: DetectorRegistry
    /// Names of the detectors whose observations the report will hold.
    public let reported: Set<String>
    /// Whether to measure the diagnostic fields too (`MetricDescriptor.Field.isDiagnostic`).
    public let diagnostics: Bool

    init(_ image: AnalysisImage, registry: DetectorRegistry, reported: Set<String>, diagnostics: Bool) {
        self.image = image
        self.registry = registry
        self.reported = reported
        self.diagnostics = diagnostics
    }

    /// Stage times, when asked for.
    var timings: StageTimings?

    /// `body`'s result, timed as stage `name` when timings are asked for.
    public func measured<T>(_ name: String, _ body: () -> T) -> T {
        guard timings != nil else { return body() }
        let start = timings!.begin()
        let result = body()
        timings!.end(name, start)
        return result
    }

    public lazy var tiles = measured("tiles") { TileAnalysis(image.luma) }
    /// The text `TextFinder` located.
    public lazy var found = measured("textFinder") { TextFinder.find(image.textPlane()) }
    /// The decode-resolution crop where that text is (`TextDetector.detail(of:found:)`).
    public lazy var textDetail = TextDetector.detail(of: image, found: found)
    public lazy var detail = measured("detail") { DetailAnalysis(textDetail) }
    public lazy var colourfulness = measured("colourfulness") { image.rgb.map { Colourfulness(rgb: $0) } }
    public lazy var blur = measured("blur") { registry.detector(BlurDetector.self).analyze(image, tiles: tiles) }
    /// The text estimate without legibility; its directional edges only when the text
    /// detector will report them.
    public lazy var textEstimate = measured("textEstimate") {
        TextDetector.estimate(
            detail: textDetail, analysis: detail, scale: image.detailScale, measuresEdges: reported.contains(TextDetector.descriptor.name))
    }
    /// The estimate with the text `TextFinder` located.
    public lazy var located = TextDetector.locating(textEstimate, found: found, colourfulness: colourfulness) {
        measured("sheet") { PaperSheet.measure(luma: image.luma, rgb: image.rgb) }
    }
    public lazy var text = measured("text") { TextDetector.judging(located, blur: blur, scale: image.scale) }
    public lazy var exposure = measured("exposure") {
        registry.detector(ExposureDetector.self).analyze(image, detail: detail, text: located)
    }
}
