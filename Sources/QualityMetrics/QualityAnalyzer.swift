import ImageCodecs
import ImageKernels
import ImagingCore

/// The built-in detectors' names, in record order (`DetectorRegistry.builtIn`).
public enum DetectorKind: String, Sendable, CaseIterable, Codable {
    case blur, smudge, exposure, aesthetic, text, noise, compression

    public var descriptor: MetricDescriptor {
        guard let detector = DetectorRegistry.builtIn[rawValue] else { preconditionFailure("\(rawValue) is not built in") }
        return detector.descriptor
    }
}

/// Everything the detectors found in one image, by detector, in registry order. A
/// detector not run has no observation.
public struct QualityReport: Sendable, Equatable {
    public var fullSize: ImageSize
    /// Each detector's observation under its descriptor name, in record order.
    public private(set) var observations: [(name: String, observation: any DetectorObservation)]

    public init(
        fullSize: ImageSize, blur: BlurObservation? = nil, smudge: SmudgeObservation? = nil, exposure: ExposureObservation? = nil,
        aesthetic: AestheticsObservation? = nil, text: TextObservation? = nil
    ) {
        self.fullSize = fullSize
        observations = []
        self.blur = blur
        self.smudge = smudge
        self.exposure = exposure
        self.aesthetic = aesthetic
        self.text = text
    }

    /// The observation of the detector called `name`. Setting one the report lacks puts a
    /// built-in detector's in built-in order, another after the rest.
    public subscript(_ name: String) -> (any DetectorObservation)? {
        get { observations.first { $0.name == name }?.observation }
        set {
            if let index = observations.firstIndex(where: { $0.name == name }) {
                if let newValue { observations[index].observation = newValue } else { observations.remove(at: index) }
                return
            }
            guard let newValue else { return }
            let order = { (name: String) in DetectorKind.allCases.firstIndex { $0.rawValue == name } ?? Int.max }
            let position = observations.firstIndex { order($0.name) > order(name) } ?? observations.endIndex
            observations.insert((name, newValue), at: position)
        }
    }

    /// The observation of type `O` under `name`.
    public func observation<O: DetectorObservation>(_ name: String, as _: O.Type) -> O? { self[name] as? O }

    public var blur: BlurObservation? {
        get { observation("blur", as: BlurObservation.self) }
        set { self["blur"] = newValue }
    }
    public var smudge: SmudgeObservation? {
        get { observation("smudge", as: SmudgeObservation.self) }
        set { self["smudge"] = newValue }
    }
    public var exposure: ExposureObservation? {
        get { observation("exposure", as: ExposureObservation.self) }
        set { self["exposure"] = newValue }
    }
    public var aesthetic: AestheticsObservation? {
        get { observation("aesthetic", as: AestheticsObservation.self) }
        set { self["aesthetic"] = newValue }
    }
    public var text: TextObservation? {
        get { observation("text", as: TextObservation.self) }
        set { self["text"] = newValue }
    }

    public static func == (a: QualityReport, b: QualityReport) -> Bool {
        a.fullSize == b.fullSize && a.observations.count == b.observations.count
            && zip(a.observations, b.observations).allSatisfy { $0.name == $1.name && $0.observation.isEqual(to: $1.observation) }
    }
}

extension DetectorObservation {
    /// Whether `other` is an observation of the same type with the same values.
    public func isEqual(to other: any DetectorObservation) -> Bool {
        (other as? Self) == self
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
    /// The detectors, configured, in record order.
    public var registry: DetectorRegistry
    /// Names of the registered detectors to run.
    public var enabled: Set<String>
    /// Whether to measure and record the diagnostic fields too (`--diagnostics`): fields
    /// no confidence reads, which cost time (the smudge detector's tile spectra, streaks
    /// and soft islands).
    public var diagnostics = false

    /// The built-in detectors to run; setting it keeps the other registered detectors' choice.
    public var detectors: Set<DetectorKind> {
        get { Set(DetectorKind.allCases.filter { enabled.contains($0.rawValue) }) }
        set { enabled = enabled.subtracting(DetectorKind.allCases.map(\.rawValue)).union(newValue.map(\.rawValue)) }
    }

    public var blur: BlurDetector {
        get { registry.detector(BlurDetector.self) }
        set { registry[BlurDetector.descriptor.name] = AnyDetector(newValue) }
    }
    public var smudge: SmudgeDetector {
        get { registry.detector(SmudgeDetector.self) }
        set { registry[SmudgeDetector.descriptor.name] = AnyDetector(newValue) }
    }
    public var exposure: ExposureDetector {
        get { registry.detector(ExposureDetector.self) }
        set { registry[ExposureDetector.descriptor.name] = AnyDetector(newValue) }
    }
    public var aesthetics: AestheticsDetector {
        get { registry.detector(AestheticsDetector.self) }
        set { registry[AestheticsDetector.descriptor.name] = AnyDetector(newValue) }
    }

    /// - Parameters:
    ///   - detectors: the built-in detectors to run; every other detector of `registry` runs too.
    ///   - registry: the detectors and their order (built-in ones replaced by the arguments given).
    public init(
        detectors: Set<DetectorKind> = Set(DetectorKind.allCases), blur: BlurDetector? = nil, smudge: SmudgeDetector? = nil,
        exposure: ExposureDetector? = nil, aesthetics: AestheticsDetector? = nil, registry: DetectorRegistry = .builtIn
    ) {
        self.registry = registry
        let builtIn = Set(DetectorKind.allCases.map(\.rawValue))
        enabled = Set(registry.names.filter { !builtIn.contains($0) }).union(detectors.map(\.rawValue))
        if let blur { self.blur = blur }
        if let smudge { self.smudge = smudge }
        if let exposure { self.exposure = exposure }
        if let aesthetics { self.aesthetics = aesthetics }
    }

    /// Decode options that give the detectors what they need and no more: colour only
    /// when a colour cue is wanted, and JPEGs decoded at the smallest DCT scale whose
    /// shorter side still covers the detail crop and, when text is searched for or noise
    /// measured, whose longer side nearly covers the text plane.
    public func decodeOptions(base: DecodeOptions = DecodeOptions()) -> DecodeOptions {
        var options = base
        // Colour: smudge's veil, aesthetics, and whether a page of text has colour (text, and
        // exposure, which judges a page by its ink).
        let findsText = detectors.contains(.text) || detectors.contains(.exposure)
        // A registered detector of the caller's may read any intermediate: it gets colour.
        let runsOthers = !enabled.isSubset(of: DetectorKind.allCases.map(\.rawValue))
        options.wantsRGB = detectors.contains(.smudge) || detectors.contains(.aesthetic) || findsText || runsOthers
        // Within 1/16 of the text plane's side: a 4 000-px photo is read at half size
        // (a 2 000-px plane) instead of whole. Noise is read at that scale whether or not text
        // is searched for (its minimum size is a decoded size).
        let wantsDetail = findsText || detectors.contains(.noise)
        options.scale = .covering(shortSide: 768, longSide: wantsDetail ? AnalysisImage.textSide * 15 / 16 : 0)
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
        let context = AnalysisContext(image, registry: registry, reported: enabled, diagnostics: diagnostics)
        context.timings = timings
        defer { timings = context.timings }
        var report = QualityReport(fullSize: image.fullSize)
        for detector in registry.detectors where enabled.contains(detector.name) {
            report[detector.name] = detector.run(context)
        }
        return report
    }
}
