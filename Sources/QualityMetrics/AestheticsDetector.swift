import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 0–1 aesthetic score that falls with every distortion a photo suffers (blur, camera
/// shake, noise, JPEG blocking, under- and over-exposure, washed-out colour, a colour cast), and whether
/// the image is a utility shot (document, receipt, screenshot, whiteboard) rather than a
/// photograph.
///
/// The score is a product of penalties, one per distortion, each a soft hinge on one
/// measurement, fitted on graded distortion ladders of real photographs (the model file
/// `aesthetic.json`, written by `Scripts/measure/fit_aesthetic.py`):
/// `L = −Σ scale · softplus(intercept + weight · measure)`, and the score is the model's
/// logistic map of L. Utility images are scored lower (× `utilityFactor`), as Apple's
/// aesthetics request does. It judges technical quality, not taste.
public struct AestheticsDetector: Detector {
    /// The penalties, by name (`sharpness`, `noise`, …), each over one measure of `measures`.
    public var penalties: [String: DetectorModel.LinearModel]
    /// The map from L to the score.
    public var mapping: LogisticMapping

    /// How much a utility image's score is lowered: a design choice, not fitted.
    public static let utilityFactor = 0.7

    /// What the detector reads of its model: one penalty per distortion, each over its measure.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: [
            "sharpness": ["logEdgeWidth"], "noise": ["logNoise"], "blocking": ["blockiness"], "underExposure": ["underEvidence"],
            "overExposure": ["overEvidence"], "colour": ["logChromaSpread"], "cast": ["colourCast"], "shake": ["logSpread"],
        ], mapping: true, thresholds: [])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["aesthetic"]) {
        penalties = model.evidence
        mapping = model.mapping!
    }

    public static let descriptor = MetricDescriptor(
        name: "aesthetic",
        meaning: "overall aesthetic score (0 poor, 1 excellent) and whether the image is a utility shot",
        direction: "quality",
        fields: AestheticsObservation.descriptorFields,
        cost: "the shared tile analysis, one colour pass over the analysis image and one over the detail crop; runs blur and exposure",
        caveats: "Technical quality, not taste: a soft, dark or colourless photo made so on purpose scores low. A colour cast on a scene tinted the other way first reads as less cast.")

    /// The measures the penalties read, from the observations (the transforms the fit uses).
    public static func measures(blur: BlurObservation, exposure: ExposureObservation, observation: AestheticsObservation) -> [String: Double] {
        [
            "logEdgeWidth": log(blur.edgeWidth + 0.5),
            // A shake that dwells leaves sharp copies: the edges stay narrow, the spread grows.
            "logSpread": log(blur.spread + 0.1),
            "logNoise": log(observation.noise + 0.1),
            "blockiness": observation.blockiness,
            "underEvidence": exposure.underEvidence,
            "overEvidence": exposure.overEvidence,
            "logChromaSpread": log(max(0, observation.colourfulness - 0.3 * observation.colourCast) + 1),
            "colourCast": observation.colourCast,
        ]
    }

    /// L: minus the sum of the penalties, 0 for none.
    public func logScore(_ measures: [String: Double]) -> Double {
        -penalties.sorted { $0.key < $1.key }.reduce(0.0) { sum, penalty in
            let x = penalty.value.predict { measures[$0] ?? 0 }
            // softplus(x) = ln(1 + eˣ), written to stay finite for large x.
            let softplus = x > 30 ? x : log1p(exp(x))
            return sum + (penalty.value.scale ?? 1) * softplus
        }
    }

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

        var observation = AestheticsObservation(
            score: 0, isUtility: isUtility, contrast: contrast, colourfulness: colourfulness,
            noise: noise, composition: composition, utilityEvidence: utilityEvidence)
        observation.blockiness = Self.blockiness(image)
        observation.colourCast = measured?.meanChroma ?? 0
        let score = mapping(logScore(Self.measures(blur: blur, exposure: exposure, observation: observation)))
        observation.score = max(0, min(1, isUtility ? score * Self.utilityFactor : score))
        return observation
    }

    /// JPEG blocking on the detail crop, at decode resolution: the 8-pixel grid of the file
    /// is 8 / `detailScale` pixels there (4 after a half-size decode); 0 when that is not a
    /// whole number of at least 2 pixels.
    static func blockiness(_ image: AnalysisImage) -> Double {
        let period = 8 / image.detailScale
        let whole = period.rounded()
        guard whole >= 2, abs(period - whole) < 0.01 else { return 0 }
        return Blockiness.measure(image.detail, period: Int(whole))
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
    /// JPEG blocking at decode resolution (`Blockiness`): 0 none, 0.2 and more visible.
    public var blockiness = 0.0
    /// The mean chroma's length (`Colourfulness.meanChroma`): a colour cast, 0 without colour.
    public var colourCast = 0.0

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
        .number("blockiness", \.blockiness, "how much more the luma steps across the JPEG block grid than beside it, at decode resolution (0 none, at most 100)", units: "ratio", range: 0...100),
        .number("colourCast", \.colourCast, "length of the mean chroma (R − G, (R + G)/2 − B): how far the average colour is from grey", units: "8-bit levels", range: 0...255),
    ]
}
