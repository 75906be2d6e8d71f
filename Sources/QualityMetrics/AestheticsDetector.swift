import ImageKernels
import ImagingCore

/// A 0–1 aesthetic score from sharpness, exposure, contrast, colourfulness, noise and
/// a composition cue, and whether the image is a utility shot (document, receipt,
/// screenshot, whiteboard) rather than a photograph.
///
/// The score is a fixed weighted mean of those cues (weights below), each mapped to
/// 0–1; utility images are scored lower, as Apple's aesthetics request does. It is a
/// heuristic stand-in for a learned model, not a judgment of taste.
public struct AestheticsDetector: Detector {
    public init() {}

    public static let descriptor = MetricDescriptor(
        name: "aesthetic",
        meaning: "overall aesthetic score (0 poor, 1 excellent) and whether the image is a utility shot",
        direction: "quality",
        fields: AestheticsObservation.descriptorFields,
        cost: "the shared tile analysis and one colour pass over the analysis image; runs blur and exposure",
        caveats: "A heuristic: it rewards technically clean, colourful, contrasty images.")

    /// Weights of sharpness, exposure, contrast, colourfulness, noise and composition.
    public static let weights = (sharpness: 0.3, exposure: 0.2, contrast: 0.15, colour: 0.15, noise: 0.1, composition: 0.1)

    public func analyze(_ context: AnalysisContext) -> AestheticsObservation {
        context.measured("aesthetic") {
            analyze(
                context.image, blur: context.blur, exposure: context.exposure, tiles: context.tiles,
                colourfulness: context.colourfulness, showsPage: context.located.showsPage)
        }
    }

    public func analyze(_ image: AnalysisImage, blur: BlurObservation, exposure: ExposureObservation, showsPage: Bool = false) -> AestheticsObservation {
        analyze(
            image, blur: blur, exposure: exposure, tiles: TileAnalysis(image.luma),
            colourfulness: image.rgb.map { Colourfulness(rgb: $0) }, showsPage: showsPage)
    }

    /// - Parameters:
    ///   - tiles: the tile analysis of `image.luma`.
    ///   - colourfulness: the analysis image's colourfulness, nil without colour.
    ///   - showsPage: whether the text detector found a page of text (`TextObservation.showsPage`).
    public func analyze(
        _ image: AnalysisImage, blur: BlurObservation, exposure: ExposureObservation, tiles: TileAnalysis,
        colourfulness measured: Colourfulness?, showsPage: Bool
    ) -> AestheticsObservation {
        let values = tiles.values
        let contrast = values.total.standardDeviation
        let colourfulness = measured?.value ?? 0

        // Noise: Immerkær's estimate on the flattest quarter of tiles, where texture does not leak in.
        let noise = tiles.noiseSigma

        // Composition: the gradient-energy centroid's distance to the nearest thirds point.
        var cx = 0.0, cy = 0.0, mass = 0.0
        for row in 0..<values.rows {
            for column in 0..<values.columns {
                let energy = tiles.gradientEnergy[row * values.columns + column]
                cx += energy * (Double(column) + 0.5) / Double(values.columns)
                cy += energy * (Double(row) + 0.5) / Double(values.rows)
                mass += energy
            }
        }
        var composition = 0.5
        if mass > 0 {
            cx /= mass
            cy /= mass
            var nearest = Double.infinity
            for tx in [1.0 / 3, 2.0 / 3] { for ty in [1.0 / 3, 2.0 / 3] { nearest = min(nearest, ((cx - tx) * (cx - tx) + (cy - ty) * (cy - ty)).squareRoot()) } }
            composition = 1 - ramp(nearest, from: 0.05, to: 0.35)
        }

        // Utility: a page of text the text detector found, a bright colourless page with
        // dark marks, or a screenshot's perfectly flat areas.
        let brightTiles = Double(values.tiles.filter { $0.mean >= 160 }.count) / Double(values.tiles.count)
        let perfectlyFlat = Double(values.tiles.filter { $0.variance == 0 && $0.count > 0 }.count) / Double(values.tiles.count)
        let colourless = 1 - ramp(colourfulness, from: 12, to: 30)
        let document = ramp(brightTiles, from: 0.35, to: 0.7) * colourless * ramp(contrast, from: 15, to: 35)
        let screenshot = ramp(perfectlyFlat, from: 0.1, to: 0.3)
        let utilityEvidence = max(showsPage ? 1 : 0, document, screenshot)
        let isUtility = utilityEvidence >= 0.5

        let w = Self.weights
        var score = w.sharpness * (1 - blur.confidence) + w.exposure * (1 - exposure.confidence)
        score += w.contrast * ramp(contrast, from: 15, to: 60) + w.colour * ramp(colourfulness, from: 5, to: 60)
        score += w.noise * (1 - ramp(noise, from: 2, to: 10)) + w.composition * composition
        if isUtility { score *= 0.7 }
        return AestheticsObservation(
            score: max(0, min(1, score)), isUtility: isUtility, contrast: contrast, colourfulness: colourfulness,
            noise: noise, composition: composition, utilityEvidence: utilityEvidence)
    }
}

/// The aesthetics detector's answer, named as Apple Vision's aesthetics observation.
public struct AestheticsObservation: DetectorObservation {
    /// 0 = poor, 1 = excellent (Vision's `overallScore` ranges −1…1: ours is (v + 1) / 2 of it).
    public var score = 0.0
    /// A document, receipt, screenshot or whiteboard rather than a photograph.
    public var isUtility = false
    public var contrast = 0.0
    public var colourfulness = 0.0
    public var noise = 0.0
    public var composition = 0.0
    public var utilityEvidence = 0.0

    public init() {}

    public init(
        score: Double, isUtility: Bool, contrast: Double, colourfulness: Double, noise: Double, composition: Double,
        utilityEvidence: Double
    ) {
        self.score = score
        self.isUtility = isUtility
        self.contrast = contrast
        self.colourfulness = colourfulness
        self.noise = noise
        self.composition = composition
        self.utilityEvidence = utilityEvidence
    }

    /// Vision's name for `score`.
    public var overallScore: Double { score }

    public static let fields: [ObservationField<Self>] = [
        .number("score", \.score, "aesthetic score: 0 poor, 1 excellent", units: "score", range: 0...1),
        .flag("isUtility", \.isUtility, "a document, receipt, screenshot or whiteboard rather than a photograph"),
        .number("contrast", \.contrast, "standard deviation of luma", units: "8-bit levels", range: 0...128),
        .number("colourfulness", \.colourfulness, "Hasler–Süsstrunk colourfulness M", units: "M", range: 0...200),
        .number("noise", \.noise, "noise σ by Immerkær's mask over the flattest quarter of tiles", units: "8-bit levels", range: 0...64),
        .number("composition", \.composition, "how near the centre of detail is to a rule-of-thirds point, 0–1", units: "score", range: 0...1),
        .number("utilityEvidence", \.utilityEvidence, "utility evidence, 0–1: 1 for a page of text found, else a bright colourless page or a screenshot's flat areas", units: "score", range: 0...1),
    ]
}
