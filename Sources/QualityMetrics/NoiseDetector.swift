import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sensor noise: the grain a camera adds when it has too little light and amplifies what it
/// has.
///
/// Measured at decode resolution, where the grain is, on the centre crop (`AnalysisImage.detail`):
/// Immerkær's mask `[1 −2 1; −2 4 −2; 1 −2 1]` cancels image structure up to second order and
/// leaves noise, σ ≈ √(π/2) · mean|mask| / 6, per 32-pixel tile. Each tile's σ is taken to
/// linear light through the slope of the sRGB curve at the tile's mean level: a camera's
/// tone curve squeezes the grain of bright areas into a few levels and spreads that of dark
/// ones, while in linear light a sensor's noise is what it is. The frame's noise is the 10th
/// percentile over tiles (texture only adds to a tile's σ, so the flattest tiles bound it),
/// leaving out tiles within 8 levels of black or white, where clipping hides the grain. It is
/// stated as it would be at the analysis size: area resampling by a factor k divides white
/// noise by k, so the same scene at half the resolution gives the same `sigma`.
///
/// The evidence is a logistic model of ln `sigma` (the model file `noise.json`, fitted by
/// `Scripts/measure/fit_camera.py` on the camera-simulator corpus's train photos), in log-odds.
/// It is only judged on images decoded at least as large as the model's photos were
/// (`minimumLongSide`): in a smaller image, a copy reduced from a camera's frame, every pixel
/// spans enough of the scene that foliage and grass leave no flat tile, and their texture reads
/// as grain.
public struct NoiseDetector: Detector {
    /// The map from evidence to confidence (the logistic function for the bundled model).
    public var mapping: LogisticMapping
    /// The log-odds of noise from ln `sigma`.
    public var evidence: DetectorModel.LinearModel
    /// The smallest decoded long side, in pixels, whose noise is judged (the model's
    /// `minimumLongSide`: the smallest long side of the photos it was fitted on).
    public var minimumLongSide: Double

    /// What the detector reads of its model.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ["noise": ["logSigma"]], mapping: true, thresholds: ["noise", "minimumLongSide"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["noise"]) {
        mapping = model.mapping!
        evidence = model.evidence("noise")
        minimumLongSide = model.thresholds["minimumLongSide"]!.value
    }

    public static let descriptor = MetricDescriptor(
        name: "noise",
        meaning: "confidence that sensor noise (grain) spoils the image",
        direction: "defect",
        fields: NoiseObservation.descriptorFields,
        cost: "one 3×3 mask over the centre crop at decode resolution (at most 1 024 × 1 024)",
        caveats: "Fine, even texture with no flat area (sand, gravel, foliage far off, film grain added on purpose) reads as noise. Noise a camera smoothed away, leaving smeared detail, is not seen. Images decoded smaller than the model's photos (its minimumLongSide, 1 280 px on the long side for the bundled model) are measured and not judged: their confidence is 0.",
        calibration: .init(measure: "evidence", meaning: "log-odds of noise from ln sigma before mapping"))

    /// The tile side, in decoded pixels.
    static let tile = 32
    /// Tiles whose mean is within this many levels of black or white are left out.
    static let clipMargin = 8.0
    /// Tiles with fewer mask responses than this share of a whole tile's are left out.
    static let fullShare = 0.75

    public func analyze(_ context: AnalysisContext) -> NoiseObservation {
        context.measured("noise") { analyze(context.image) }
    }

    public func analyze(_ image: AnalysisImage) -> NoiseObservation {
        let plane = image.detail
        let decodedLongSide = Double(max(image.decodedLuma.width, image.decodedLuma.height))
        let measured = Self.linearSigma(plane)
        // White noise falls by the resampling factor: σ as at the analysis size.
        let toAnalysis = min(1, Double(AnalysisImage.longSide) / max(decodedLongSide, 1))
        let sigma = measured.sigma * toAnalysis
        let evidence = self.evidence.predict { _ in log(max(sigma, 1e-3)) }
        let judged = measured.tiles > 0 && decodedLongSide >= minimumLongSide
        return NoiseObservation(
            confidence: judged ? mapping(evidence) : 0, sigma: sigma, decodedSigma: measured.levels,
            tiles: measured.tiles, judged: judged, evidence: evidence)
    }

    /// The 10th percentile over the tiles of `plane` (none within `clipMargin` of black or
    /// white, and none cut by the plane's edge to less than `fullShare` of a tile) of
    /// Immerkær's σ in linear light (on a scale of 0 to 255 from black to white), the same
    /// percentile of σ in 8-bit levels, and how many tiles were read.
    static func linearSigma(_ plane: PixelBuffer<UInt8>) -> (sigma: Double, levels: Double, tiles: Int) {
        guard plane.width >= tile, plane.height >= tile else { return (0, 0, 0) }
        let mask = Stencil.noise.tileMoments(plane, tileSize: tile)
        let values = planeTileMoments(plane, tileSize: tile)
        var linear: [Double] = [], levels: [Double] = []
        linear.reserveCapacity(values.tiles.count)
        levels.reserveCapacity(values.tiles.count)
        // A sliver of a tile at the plane's far edge holds too few pixels for its σ: its
        // estimate scatters, and the low percentile would read the scatter. The mask leaves
        // out the plane's outermost pixels, so whole tiles along its edges hold 31 × 32
        // responses (corners 31 × 31).
        let fullCount = Int64((Double(tile * tile) * fullShare).rounded(.up))
        for i in values.tiles.indices where mask.tiles[i].count >= fullCount {
            let level = values.tiles[i].mean
            guard level > clipMargin, level < 255 - clipMargin else { continue }
            let sigma = (Double.pi / 2).squareRoot() / 6 * mask.tiles[i].meanAbsolute
            levels.append(sigma)
            linear.append(sigma * srgbSlope(level))
        }
        guard !linear.isEmpty else { return (0, 0, 0) }
        return (percentile(selecting: &linear, 0.1), percentile(selecting: &levels, 0.1), linear.count)
    }

    /// d(linear light) / d(level) of the sRGB curve at an 8-bit level, both on a scale of 0
    /// to 255: 1/12.92 in the deep shadows, 2.4 at white.
    static func srgbSlope(_ level: Double) -> Double {
        let u = level / 255
        return u <= 0.04045 ? 1 / 12.92 : 2.4 / 1.055 * pow((u + 0.055) / 1.055, 1.4)
    }
}

/// The noise detector's answer.
public struct NoiseObservation: DetectorObservation {
    public static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "noise confidence", words: "noisy",
        explanation: "a photo's noise confidence (sensor grain in linear light) is above the policy's noise threshold",
        defaultThreshold: ModelSet.bundled.threshold("noise", of: "noise"))

    /// 0 = clean, 1 = clearly noisy.
    public var confidence = 0.0
    /// Noise σ in linear light (on a scale of 0 to 255 from black to white) as at the analysis size.
    public var sigma = 0.0
    /// The same percentile of σ in 8-bit levels at decode resolution.
    public var decodedSigma = 0.0
    /// Tiles measured (0: the crop was all near black or white, and nothing is judged).
    public var tiles = 0.0
    /// Whether the confidence judges the image: tiles were measured and the image was decoded
    /// at least as large as the model's `minimumLongSide`. When not, the confidence is 0.
    public var judged = false
    /// Log-odds of noise before mapping.
    public var evidence = 0.0

    public init() {}

    public init(confidence: Double, sigma: Double, decodedSigma: Double, tiles: Int, judged: Bool, evidence: Double) {
        self.confidence = confidence
        self.sigma = sigma
        self.decodedSigma = decodedSigma
        self.tiles = Double(tiles)
        self.judged = judged
        self.evidence = evidence
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that sensor noise spoils the image: 0 clean, 1 noisy (0 when the decoded long side is under the model's minimumLongSide, 1280 px bundled, or no tile was measured)", units: "probability", range: 0...1),
        .number("sigma", \.sigma, "noise σ in linear light (0 black, 255 white) as at the analysis size: the 10th percentile over 32-px tiles of the centre crop at decode resolution of Immerkær's σ through the sRGB curve's slope, tiles within 8 levels of black or white and slivers at the crop's edge left out", units: "linear levels", range: 0...255),
        .number("decodedSigma", \.decodedSigma, "the 10th percentile over the same tiles of Immerkær's σ at decode resolution", units: "8-bit levels", range: 0...128),
        .number("tiles", \.tiles, "tiles measured (whole 32-px tiles, or cut by the crop's edge to no less than three quarters of one)", units: "count", range: 0...1024),
        .flag("judged", \.judged, "the confidence judges the image: tiles were measured and the decoded long side is at least the model's minimumLongSide (1280 px bundled); when false the confidence is 0"),
        .number("evidence", \.evidence, "log-odds of noise from ln sigma, before mapping", units: "log-odds", range: -100...100),
    ]
}
