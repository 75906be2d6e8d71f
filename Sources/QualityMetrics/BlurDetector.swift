import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Defocus and motion blur: how wide edges are where the image is sharpest.
///
/// From the per-tile measures of `TileAnalysis`, two widths where the frame is sharpest (the
/// 10th percentile over tiles with texture, so a sharp subject covering a tenth of the
/// textured frame or more reads as sharp; flat tiles, a wall or the sky, give no evidence
/// instead of "blurred"):
///
/// - `edgeWidth`, the energy ratio of gradient to curvature (`TileAnalysis.widths`), widened
///   by a smooth blur; over the whole frame, a direction whose edges are 1.5× wider than the
///   sharpest direction's is a direction of motion and counts as the width.
/// - `spread`, the tile's contrast over its typical steep gradient (`TileAnalysis.spreads`),
///   along the softest of four directions, widened as much by a blur made of a few sharp copies
///   (a shake that dwells), which leaves the energy ratio as it was.
///
/// And, from the frequency domain, `cepstralDip` (`KernelCepstrum`): the depth of the dip a
/// blur kernel, a shake's path or a defocus disk, leaves in the cepstrum of the sharpest
/// tiles' averaged log spectrum, which a shake that dwells leaves as surely as a smooth blur.
///
/// The evidence is a logistic model of the logarithms of the two widths and the dip (the model file
/// `Models/blur.json`, fitted by `Scripts/measure/fit_camera.py` on the camera-simulator
/// corpus's train photos), in log-odds; the mapping turns it into the confidence.
///
/// Size: measured on the 1 024-pixel analysis image, so the same scene at any
/// resolution gives the same widths. Cost: the shared tile analysis, one Laplacian pass, and,
/// on the analysis image halved, a pass for its tiles' moments and at most 48 64×64 FFTs.
public struct BlurDetector: Detector {
    /// The map from evidence to confidence. The evidence is log-odds, so the bundled mapping
    /// is the logistic function itself; `imgquality calibrate --detector blur` refits it on a
    /// user's labels.
    public var mapping: LogisticMapping
    /// The log-odds of blur: a logistic model of ln `edgeWidth`, ln `spread` and `cepstralDip`.
    public var evidence: DetectorModel.LinearModel
    /// The log-odds that a blur is motion rather than defocus: a logistic model of `dipIsotropy`.
    public var motionModel: DetectorModel.LinearModel

    /// What the detector reads of its model.
    /// `cepstralDip` may be left out: models fitted before it weigh the two widths only; so may
    /// the `motion` evidence, added after them (the bundled one is read then).
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ["blur": ["edgeWidth", "spread", "cepstralDip"], "motion": ["dipIsotropy"]], optionalEvidence: ["motion"],
        optionalMeasures: ["cepstralDip"], mapping: true, thresholds: ["blur"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["blur"]) {
        mapping = model.mapping!
        evidence = model.evidence("blur")
        motionModel = model.evidence["motion"] ?? ModelSet.bundled["blur"].evidence("motion")
    }

    /// The bundled model's evidence with `mapping` in place of its own.
    public init(mapping: LogisticMapping) {
        self.init()
        self.mapping = mapping
    }

    public static let descriptor = MetricDescriptor(
        name: "blur",
        meaning: "confidence that the image is blurred (defocus or motion)",
        direction: "defect",
        fields: BlurObservation.descriptorFields,
        cost: "the shared tile analysis (9 stencil passes), a Laplacian pass over the 1024-px analysis image, and on its half a pass for the tiles' moments and at most 48 64×64 FFTs",
        caveats: "Fog and deliberate shallow depth of field with no sharp region read as blur; heavy noise reads as sharp; a texture that repeats across the frame (fabric, tiles, a screen) can dip the cepstrum as a blur does.",
        calibration: .init(measure: "evidence", meaning: "log-odds of blur from the edge width, the spread and the cepstral dip, before mapping"))

    public func analyze(_ context: AnalysisContext) -> BlurObservation { context.blur }

    public func analyze(_ image: AnalysisImage) -> BlurObservation {
        analyze(image, tiles: TileAnalysis(image.luma))
    }

    /// - Parameter tiles: the tile analysis of `image.luma`.
    public func analyze(_ image: AnalysisImage, tiles: TileAnalysis) -> BlurObservation {
        let plane = image.luma
        let values = tiles.values
        let widths = tiles.widths
        // Motion blur along a direction drains that direction's gradient energy, so tiles
        // judge by the others. Over the whole frame, a direction whose edges are 1.5×
        // wider than the sharpest direction's is the direction of motion. It must still
        // carry 0.5% of the gradient energy, below which noise decides its width (long
        // motion leaves the blurred direction only a few percent).
        var motionWidth = 0.0
        let totalGradient = tiles.gradient.reduce(0, +)
        if totalGradient > 0 {
            let directional = (0..<4).filter { tiles.gradient[$0] >= 0.005 * totalGradient }
                .map { (tiles.gradient[$0] / max(tiles.second[$0], 1e-9)).squareRoot() }
            if let widest = directional.max(), let narrowest = directional.min(), directional.count >= 2, widest >= 1.5 * narrowest {
                motionWidth = min(64, widest)
            }
        }
        let textured = Double(widths.count) / Double(max(1, values.tiles.count))
        let laplacian = Stencil.laplacian.tileMoments(plane, tileSize: 4096).total
        let normalizedLaplacian = laplacian.variance / max(values.total.variance, 1)
        guard !widths.isEmpty else {
            return BlurObservation(
                confidence: 0, edgeWidth: 0, edgeWidthMedian: 0, texturedFraction: 0, laplacianVariance: normalizedLaplacian,
                motionWidth: 0, evidence: Self.logOdds(evidence, edgeWidth: 0, spread: 0, cepstralDip: 0))
        }
        let sharpest = max(percentile(widths, 0.1), motionWidth), median = percentile(widths, 0.5)
        // Where the frame is sharpest along each direction, the softest of the four.
        let spread = tiles.spreads.map { percentile($0, 0.1) }.max() ?? 0
        let dip = KernelCepstrum.dip(of: plane), cepstralDip = dip.depth
        let logOdds = Self.logOdds(evidence, edgeWidth: sharpest, spread: spread, cepstralDip: cepstralDip)
        let motionOdds = motionModel.predict { name in
            guard name == "dipIsotropy" else { preconditionFailure("the motion model weighs \(name), which modelRequirements does not name") }
            return dip.isotropy
        }
        // Too few textured tiles is too little evidence to call an image blurred.
        let weight = min(1, Double(widths.count) / 8)
        return BlurObservation(
            confidence: mapping(logOdds) * weight, edgeWidth: sharpest, edgeWidthMedian: median,
            texturedFraction: textured, laplacianVariance: normalizedLaplacian, motionWidth: motionWidth, spread: spread,
            cepstralDip: cepstralDip, dipIsotropy: dip.isotropy, motionEvidence: motionOdds, evidence: logOdds)
    }
}

extension BlurDetector {
    /// The evidence model over the natural logarithms of the two widths, each at least 0.001 px
    /// (a frame without textured tiles has widths of 0), and the cepstral dip as it is.
    static func logOdds(_ model: DetectorModel.LinearModel, edgeWidth: Double, spread: Double, cepstralDip: Double) -> Double {
        model.predict { name in
            switch name {
            case "edgeWidth": log(max(edgeWidth, 1e-3))
            case "spread": log(max(spread, 1e-3))
            case "cepstralDip": cepstralDip
            default: preconditionFailure("the blur model weighs \(name), which modelRequirements does not name")
            }
        }
    }
}

/// The blur detector's answer.
public struct BlurObservation: DetectorObservation {
    public static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "blur confidence", words: "blurred",
        explanation: "a photo's blur confidence (edge width, defocus or motion) is above the policy's blur threshold",
        defaultThreshold: ModelSet.bundled.threshold("blur", of: "blur"))

    /// 0 = clearly sharp, 1 = clearly blurred.
    public var confidence = 0.0
    public var edgeWidth = 0.0
    public var edgeWidthMedian = 0.0
    public var texturedFraction = 0.0
    /// Edge width along the more blurred axis when the frame is anisotropic (motion), else 0.
    public var motionWidth = 0.0
    public var laplacianVariance = 0.0
    /// Edge spread where the frame is sharpest, along its softest direction (see `TileAnalysis.spreads`).
    public var spread = 0.0
    /// Depth of the blur kernel's dip in the cepstrum of the sharpest tiles (see `KernelCepstrum`).
    public var cepstralDip = 0.0
    /// How evenly the cepstral dip runs round its circle: near 1 for a defocus disk, near 0 for
    /// a shake's path (see `KernelCepstrum.isotropy(of:)`).
    public var dipIsotropy = 0.0
    /// Log-odds that a blur is motion (a shake or a moving camera) rather than defocus.
    public var motionEvidence = 0.0
    /// What blurred the image, when the confidence is 0.5 or more. Derived from the confidence
    /// and `motionEvidence`: a record read back sets it, and it stays derived.
    public var kind: Kind {
        get { confidence < 0.5 ? .none : motionEvidence > 0 ? .motion : .defocus }
        set {}
    }

    /// What blurred an image.
    public enum Kind: String, Sendable, CaseIterable {
        /// Out of focus: the kernel is a disk.
        case defocus
        /// The camera or the subject moved: the kernel is a path.
        case motion
        /// The confidence is below 0.5.
        case none
    }

    /// The kind in words; nil when it is `none` (the criterion's words then).
    public var failureWords: String? {
        switch kind {
        case .defocus: "blurred (out of focus)"
        case .motion: "blurred (motion or camera shake)"
        case .none: nil
        }
    }
    /// Log-odds of blur before mapping.
    public var evidence = 0.0

    public init() {}

    public init(
        confidence: Double, edgeWidth: Double, edgeWidthMedian: Double, texturedFraction: Double, laplacianVariance: Double,
        motionWidth: Double, spread: Double = 0, cepstralDip: Double = 0, dipIsotropy: Double = 0, motionEvidence: Double = 0,
        evidence: Double = 0
    ) {
        self.confidence = confidence
        self.edgeWidth = edgeWidth
        self.edgeWidthMedian = edgeWidthMedian
        self.texturedFraction = texturedFraction
        self.laplacianVariance = laplacianVariance
        self.motionWidth = motionWidth
        self.spread = spread
        self.cepstralDip = cepstralDip
        self.dipIsotropy = dipIsotropy
        self.motionEvidence = motionEvidence
        self.evidence = evidence
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that the image is blurred: 0 sharp, 1 blurred", units: "probability", range: 0...1),
        .number("edgeWidth", \.edgeWidth, "edge width where the image is sharpest (10th percentile over textured tiles, noise-corrected), analysis pixels", units: "px", range: 0...64),
        .number("edgeWidthMedian", \.edgeWidthMedian, "median edge width over textured tiles", units: "px", range: 0...64),
        .number("texturedFraction", \.texturedFraction, "share of tiles with enough contrast to judge", units: "fraction", range: 0...1),
        .number("motionWidth", \.motionWidth, "edge width along the most blurred direction when it is 1.5× blurrier than the sharpest (motion), else 0", units: "px", range: 0...64),
        .number("laplacianVariance", \.laplacianVariance, "variance of the Laplacian over the variance of luma (contrast-normalised)", units: "ratio", range: 0...100),
        .number("evidence", \.evidence, "log-odds of blur from ln edgeWidth, ln spread (each at least 0.001 px) and cepstralDip, before mapping", units: "log-odds", range: -100...100),
        .number("spread", \.spread, "edge spread (tile contrast over its typical steep gradient, noise-corrected) where the frame is sharpest (10th percentile over textured tiles), along the softest of four directions: widened by blur of any shape, shake that dwells included", units: "px", range: 0...64),
        .number("cepstralDip", \.cepstralDip, "depth of the deepest dip of the cepstrum of the 16 sharpest textured 64-px tiles' mean log power spectrum, at lags of 2–24 px of the half-size analysis image off the axes: the trace of a blur kernel (defocus disk, shake path)", units: "cepstrum", range: 0...100),
        .number("dipIsotropy", \.dipIsotropy, "how evenly the cepstral dip runs round the circle of its length: the median over 8 sectors of direction of the deepest dip within 0.5 px of that length, over the deepest (near 1 for a defocus disk, near 0 for a shake's path; 0 with no dip)", units: "ratio", range: 0...1),
        .number("motionEvidence", \.motionEvidence, "log-odds that a blur is motion or camera shake rather than defocus, from dipIsotropy", units: "log-odds", range: -100...100),
        .label("kind", \.kind, "defocus or motion (camera shake or a moving subject) when the confidence is 0.5 or more, else none"),
    ]
}
