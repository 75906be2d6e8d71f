import ImageKernels
import ImagingCore

/// Defocus and motion blur: how wide edges are where the image is sharpest.
///
/// From the per-tile edge widths of `TileAnalysis`, the detector reports the 10th
/// percentile over tiles with texture: where the sharpest detail is, so a sharp subject
/// covering a tenth of the textured frame or more reads as sharp; flat tiles (a wall,
/// sky) give no evidence instead of "blurred". Over the whole frame, a direction whose
/// edges are 1.5× wider than the sharpest direction's is a direction of motion.
///
/// Size: measured on the 1 024-pixel analysis image, so the same scene at any
/// resolution gives the same width. Cost: the shared tile analysis and one Laplacian pass.
public struct BlurDetector: Detector {
    /// The map from edge width to confidence: the bundled one comes from
    /// `imgquality calibrate Datasets/blur/labels.csv --detector blur` (a logistic fit on
    /// the train split; the model file `Models/blur.json`).
    public var mapping: LogisticMapping

    /// What the detector reads of its model.
    public static let modelRequirements = DetectorModel.Requirements(mapping: true, thresholds: ["blur"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["blur"]) {
        mapping = model.mapping!
    }

    public init(mapping: LogisticMapping) {
        self.mapping = mapping
    }

    public static let descriptor = MetricDescriptor(
        name: "blur",
        meaning: "confidence that the image is blurred (defocus or motion)",
        direction: "defect",
        fields: BlurObservation.descriptorFields,
        cost: "the shared tile analysis (9 stencil passes) and a Laplacian pass over the 1024-px analysis image",
        caveats: "Fog and deliberate shallow depth of field with no sharp region read as blur; heavy noise reads as sharp.",
        calibration: .init(measure: "edgeWidth", meaning: "edge width where the image is sharpest", logarithmic: true))

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
                motionWidth: 0)
        }
        let sharpest = max(percentile(widths, 0.1), motionWidth), median = percentile(widths, 0.5)
        // Too few textured tiles is too little evidence to call an image blurred.
        let evidence = min(1, Double(widths.count) / 8)
        return BlurObservation(
            confidence: mapping(sharpest) * evidence, edgeWidth: sharpest, edgeWidthMedian: median,
            texturedFraction: textured, laplacianVariance: normalizedLaplacian, motionWidth: motionWidth)
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

    public init() {}

    public init(
        confidence: Double, edgeWidth: Double, edgeWidthMedian: Double, texturedFraction: Double, laplacianVariance: Double,
        motionWidth: Double
    ) {
        self.confidence = confidence
        self.edgeWidth = edgeWidth
        self.edgeWidthMedian = edgeWidthMedian
        self.texturedFraction = texturedFraction
        self.laplacianVariance = laplacianVariance
        self.motionWidth = motionWidth
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that the image is blurred: 0 sharp, 1 blurred", units: "probability", range: 0...1),
        .number("edgeWidth", \.edgeWidth, "edge width where the image is sharpest (10th percentile over textured tiles, noise-corrected), analysis pixels", units: "px", range: 0...64),
        .number("edgeWidthMedian", \.edgeWidthMedian, "median edge width over textured tiles", units: "px", range: 0...64),
        .number("texturedFraction", \.texturedFraction, "share of tiles with enough contrast to judge", units: "fraction", range: 0...1),
        .number("motionWidth", \.motionWidth, "edge width along the most blurred direction when it is 1.5× blurrier than the sharpest (motion), else 0", units: "px", range: 0...64),
        .number("laplacianVariance", \.laplacianVariance, "variance of the Laplacian over the variance of luma (contrast-normalised)", units: "ratio", range: 0...100),
    ]
}
