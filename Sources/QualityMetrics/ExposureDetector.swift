import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Under-exposure, over-exposure and a backlit subject, from where the scene's tones and
/// detail sit on the tone scale.
///
/// - **Under-exposed**, the whole scene sinks: the median and even the brightest detail
///   lie stops below mid-grey (`detailP90`: the 90th percentile of luma weighted by the
///   local gradient, where edges and texture are). The model reads both. (Lights in the
///   frame would tell a night scene from an under-exposed one on the camera corpus, but
///   real under-exposed photos keep their lamps and windows too: the cue was dropped,
///   see `docs/experiments.md`.)
/// - **Over-exposed**, colour clips before luma does (a saturated orange reaches white in
///   one channel while its luma sits at mid-grey) and the tones move up: the model reads
///   the median and `colourClip`. A high-key scene is bright with nothing clipped.
/// - **Backlit**, the light behind the subject set the exposure: the subject sinks into
///   the shadows while the bright background keeps the top of the scale, so the median
///   falls stops below the brightest tenth of the frame (`p90`). Direction `backlit`.
///
/// Each is a logistic model of two measures (tone levels as stops from mid-grey), fitted
/// by `Scripts/measure/fit_camera.py` on the train photos of the camera-simulator corpus
/// (`Scripts/corpus`); the evidences are its log-odds and the confidence the largest.
/// A page (ink on paper) is never backlit, and over-exposed only when its ink is washed
/// out. A flash photo (EXIF `Flash` fired) is lit from the front, so never backlit either,
/// and the ground beyond the flash's reach is black: the detail's level stands in for its
/// median.
///
/// Size: histogram fractions and tone levels do not depend on resolution. Cost: one
/// histogram and one gradient pass over the analysis image, one pass over its colour.
public struct ExposureDetector: Detector {
    /// The maps from each direction's evidence to its confidence. The evidences are
    /// log-odds, so the bundled mapping is the logistic function itself;
    /// `imgquality calibrate --detector exposure` refits it on a user's labels.
    public var under: LogisticMapping
    public var over: LogisticMapping
    public var backlit: LogisticMapping
    /// The under-exposure log-odds: intercept, the median and the detail's 90th percentile
    /// in stops (fitted by `Scripts/measure/fit_camera.py`; the model file `Models/exposure.json`).
    public var underModel: DetectorModel.LinearModel
    /// The over-exposure log-odds: intercept, the median in stops and the share of pixels
    /// with a clipped channel (same script and file).
    public var overModel: DetectorModel.LinearModel
    /// The backlit log-odds: intercept, the median and the 90th percentile in stops (same
    /// script and file).
    public var backlitModel: DetectorModel.LinearModel

    /// What the detector reads of its model.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ["under": ["median", "detailP90"], "over": ["median", "colourClip"], "backlit": ["median", "p90", "detailP90"]], mapping: true, thresholds: ["exposure"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["exposure"]) {
        under = model.mapping!
        over = model.mapping!
        backlit = model.mapping!
        underModel = model.evidence("under")
        overModel = model.evidence("over")
        backlitModel = model.evidence("backlit")
    }

    /// The bundled model's evidences with these mappings in place of its own.
    public init(under: LogisticMapping, over: LogisticMapping, backlit: LogisticMapping? = nil) {
        self.init()
        self.under = under
        self.over = over
        self.backlit = backlit ?? under
    }

    public static let descriptor = MetricDescriptor(
        name: "exposure",
        meaning: "confidence that the image is badly exposed; direction says under, over or backlit",
        direction: "defect",
        fields: ExposureObservation.descriptorFields,
        cost: "one histogram and one gradient pass over the analysis image, and the shared detail analysis and text estimate",
        caveats: "A photo whose subject is itself dark (a black cat on coal) with no light in the frame reads as under-exposed; a strongly saturated bright colour that clips one channel on purpose can read as over-exposed; a low-key shot whose lit subject fills a tenth of the frame or more can read as backlit.",
        calibration: .init(measure: "evidence", meaning: "the largest of underEvidence, overEvidence and backlitEvidence (log-odds; backlit not for a page or a flash photo)"))

    public func analyze(_ context: AnalysisContext) -> ExposureObservation { context.exposure }

    public func analyze(_ image: AnalysisImage) -> ExposureObservation {
        let found = TextFinder.find(image.textPlane())
        let crop = TextDetector.detail(of: image, found: found)
        let detail = DetailAnalysis(crop)
        let colourfulness = image.rgb.map { Colourfulness(rgb: $0) }
        let estimate = TextDetector.estimate(detail: crop, analysis: detail, scale: image.detailScale, measuresEdges: false)
        let text = TextDetector.locating(estimate, found: found, colourfulness: colourfulness)
        return analyze(image, detail: detail, text: text)
    }

    /// - Parameters:
    ///   - detail: the histogram and ink–paper split of the crop where the text is (`image.detail(over:)`).
    ///   - text: the text found in the same image (shared with the `text` detector): whether
    ///     it shows a page, and its ink–paper contrast.
    public func analyze(_ image: AnalysisImage, detail: DetailAnalysis, text: TextObservation) -> ExposureObservation {
        let histogram = Histogram(image.luma)
        let median = Double(histogram.percentile(0.5))
        let p02 = Double(histogram.percentile(0.02)), p98 = Double(histogram.percentile(0.98))
        let p90 = Double(histogram.percentile(0.9))
        let shadowClip = histogram.fraction(atOrBelow: 8), highlightClip = histogram.fraction(atOrAbove: 250)
        let tones = DetailTones(image.luma)
        // A flat image has no detail to place: its median stands for it.
        let detailP90 = tones.percentile(0.9) ?? median
        let highlightDetail = tones.highlightShare

        let u = underModel, o = overModel, b = backlitModel
        let colourClip = image.rgb.map(Self.clippedShare(rgb:)) ?? highlightClip
        // Where the scene's tones sit: the median, or for a flash photo the detail it lit.
        let sceneLevel = image.flashFired ? detailP90 : median
        let underEvidence = u.intercept + u["median"] * stops(sceneLevel) + u["detailP90"] * stops(detailP90)
        var overEvidence = o.intercept + o["median"] * stops(median) + o["colourClip"] * colourClip
        let backlitEvidence = b.intercept + b["median"] * stops(median) + b["p90"] * stops(p90) + b["detailP90"] * stops(detailP90)
        // A page is meant to be bright (small print at analysis size is faint texture on
        // white): over-exposed only when its ink is washed out. Its over-exposure probability
        // is scaled by the ink–paper contrast: none from 40 levels, fully at 10 (about the
        // document gate's minimum text contrast, 12).
        let isPage = text.showsPage
        // The ink's own level at decode resolution: the darker half of the ink class.
        let inkLevel = isPage ? Double(detail.histogram.percentile(detail.split.darkShare / 2)) : -1
        if isPage {
            let probability = 1 / (1 + exp(-overEvidence)) * ramp(text.contrast, from: 40, to: 10)
            overEvidence = log(max(probability, 1e-9) / (1 - min(probability, 1 - 1e-9)))
        }

        let underConfidence = under(underEvidence), overConfidence = over(overEvidence)
        // A page (ink on paper) and a flash photo are lit from the front: never backlit.
        let backlitConfidence = isPage || image.flashFired ? 0 : backlit(backlitEvidence)
        let confidence = max(underConfidence, overConfidence, backlitConfidence)
        let direction: ExposureObservation.Direction =
            if confidence < 0.5 { .ok }
            else if underConfidence == confidence { .under }
            else if overConfidence == confidence { .over }
            else { .backlit }
        return ExposureObservation(
            confidence: confidence, direction: direction, median: median, p02: p02, p98: p98,
            shadowClip: shadowClip, highlightClip: highlightClip, detailP90: detailP90, highlightDetail: highlightDetail,
            underEvidence: underEvidence, overEvidence: overEvidence, inkLevel: inkLevel, flash: image.flashFired,
            p90: p90, backlitEvidence: backlitEvidence, colourClip: colourClip)
    }

    /// The share of pixels whose brightest channel is at or above level 250.
    static func clippedShare(rgb: PixelBuffer<UInt8>) -> Double {
        precondition(rgb.channels == 3, "clipping per channel needs RGB")
        let width = rgb.width, stride = rgb.rowStride
        var clipped = 0
        rgb.withUnsafeBufferPointer { pixels in
            for y in 0..<rgb.height {
                let row = pixels.baseAddress! + y * stride
                var x = 0
                while x + 16 <= width {
                    let (r, g, b) = rgbLanes(UnsafeRawPointer(row + 3 * x))
                    // 1 in each lane whose brightest channel is at least 250: (max + 6) carries past 255.
                    let brightest = SIMD16<Int16>(widening: pointwiseMax(r, pointwiseMax(g, b)))
                    clipped += Int(((brightest &+ 6) &>> 8).wrappedSum())
                    x += 16
                }
                for x in x..<width where max(row[3 * x], row[3 * x + 1], row[3 * x + 2]) >= 250 { clipped += 1 }
            }
        }
        return Double(clipped) / Double(max(1, width * rgb.height))
    }
}

/// An 8-bit level as stops from mid-grey (18 % linear reflectance, level 118): the
/// sRGB curve undone, then log₂. Level 0 counts as 0.5 so black is finite (about −12).
func stops(_ level: Double) -> Double {
    log2(linearLight(max(level, 0.5)) / 0.18)
}

/// An 8-bit sRGB level (0–255, fractions allowed) as linear light, 0–1.
func linearLight(_ level: Double) -> Double {
    let u = level / 255
    return u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4)
}

/// Where an image's detail lies on the tone scale: a histogram of the local (3 × 3 mean)
/// level weighted by the gradient magnitude there, so flat areas (a black background, a
/// clipped sky) weigh nothing and edges and texture weigh by their contrast; and, weighted
/// the same way, the detail whose whole 3 × 3 neighbourhood is bright (its darkest pixel
/// above 200): texture squeezed into the highlights, not the edge of dark ink on white paper.
struct DetailTones {
    var weights = [Double](repeating: 0, count: 256)
    var total = 0.0
    /// Gradient weight where the neighbourhood's darkest pixel is above `brightFloor`.
    var brightWeight = 0.0
    static let brightFloor = 200

    /// √s / 2 for every squared doubled gradient s (0…2 × 255²): √(dx² + dy²) / 2 has the
    /// bits of √((dx/2)² + (dy/2)²), and a table read costs less than a square root.
    static let halfRoots: [Double] = (0...(2 * 255 * 255)).map { Double($0).squareRoot() / 2 }

    init(_ plane: PixelBuffer<UInt8>) {
        let width = plane.width, height = plane.height, stride = plane.rowStride
        guard width >= 3, height >= 3 else { return }
        var bright = 0.0
        // Per row, eight pixels at a time: each pixel's squared doubled gradient, its 3 × 3 mean's
        // bin and whether its neighbourhood is all bright; then the weights are added in pixel
        // order, so every sum has the bits of a pixel-by-pixel loop.
        let interior = width - 2
        var squares = [Int32](repeating: 0, count: interior + 8)
        var levels = [Int32](repeating: 0, count: interior + 8)
        var brightFlags = [Int32](repeating: 0, count: interior + 8)
        plane.withUnsafeBufferPointer { pixels in
            weights.withUnsafeMutableBufferPointer { bins in
                squares.withUnsafeMutableBufferPointer { square in
                    levels.withUnsafeMutableBufferPointer { level in
                        brightFlags.withUnsafeMutableBufferPointer { isBright in
                            Self.halfRoots.withUnsafeBufferPointer { halfRoot in
                                let bins = bins.baseAddress!, halfRoot = halfRoot.baseAddress!
                                let square = square.baseAddress!, level = level.baseAddress!, isBright = isBright.baseAddress!
                                var brightSum = 0.0
                                for y in 1..<(height - 1) {
                                    let above = pixels.baseAddress! + (y - 1) * stride
                                    Self.measureRow(
                                        above: above, row: above + stride, below: above + 2 * stride, count: interior,
                                        square: square, level: level, bright: isBright)
                                    for i in 0..<interior {
                                        let s = Int(square[i])
                                        guard s > 0 else { continue }
                                        let m = halfRoot[s]
                                        bins[Int(level[i])] += m
                                        if isBright[i] != 0 { brightSum += m }
                                    }
                                }
                                bright = brightSum
                            }
                        }
                    }
                }
            }
        }
        total = weights.reduce(0, +)
        brightWeight = bright
    }

    /// For the interior pixels 1...`count` of a row (written from index 0): the sum of the
    /// squared central differences (the doubled gradient's squared length), the bin of the rounded 3 × 3 mean, and whether
    /// the 3 × 3 neighbourhood's darkest pixel is above `brightFloor` (non-zero).
    @inline(__always)
    static func measureRow(
        above: UnsafePointer<UInt8>, row: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>, count: Int,
        square: UnsafeMutablePointer<Int32>, level: UnsafeMutablePointer<Int32>, bright: UnsafeMutablePointer<Int32>
    ) {
        func load(_ p: UnsafePointer<UInt8>) -> SIMD8<Int32> {
            SIMD8<Int32>(widening: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        var i = 0
        while i + 8 <= count {
            // Pixel x = i + 1 + lane; its neighbours start at column i.
            let a0 = load(above + i), a1 = load(above + i + 1), a2 = load(above + i + 2)
            let b0 = load(row + i), b1 = load(row + i + 1), b2 = load(row + i + 2)
            let c0 = load(below + i), c1 = load(below + i + 1), c2 = load(below + i + 2)
            let dx = b2 &- b0, dy = c1 &- a1
            UnsafeMutableRawPointer(square + i).storeBytes(of: dx &* dx &+ dy &* dy, as: SIMD8<Int32>.self)
            let sum = a0 &+ b0 &+ c0 &+ a1 &+ b1 &+ c1 &+ a2 &+ b2 &+ c2
            // (sum + 4) / 9 as a multiply and shift, exact for sums up to 9 × 255.
            UnsafeMutableRawPointer(level + i).storeBytes(of: ((sum &+ 4) &* 7282) &>> 16, as: SIMD8<Int32>.self)
            let least = SIMD8<Int32>.minimum
            let darkest = least(least(least(a0, b0), least(c0, a1)), least(least(b1, c1), least(a2, least(b2, c2))))
            // −1 where darkest > brightFloor (the difference's sign bit), 0 elsewhere.
            let isBright = (Int32(brightFloor) &- darkest) &>> 31
            UnsafeMutableRawPointer(bright + i).storeBytes(of: isBright, as: SIMD8<Int32>.self)
            i += 8
        }
        while i < count {
            let x = i + 1
            let dx = Int32(row[x + 1]) - Int32(row[x - 1]), dy = Int32(below[x]) - Int32(above[x])
            square[i] = dx * dx + dy * dy
            var sum = 0, darkest = 255
            for dx in -1...1 {
                let a = Int(above[x + dx]), b = Int(row[x + dx]), c = Int(below[x + dx])
                sum += a + b + c
                darkest = min(darkest, a, b, c)
            }
            level[i] = Int32((sum + 4) / 9)
            bright[i] = darkest > brightFloor ? 1 : 0
            i += 1
        }
    }

    /// The level below which a share `q` of the detail lies; nil for a flat image.
    func percentile(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        var running = 0.0
        for level in 0..<256 {
            running += weights[level]
            if running >= q * total { return Double(level) }
        }
        return 255
    }

    /// The share of the detail whose neighbourhood lies wholly above level 200; 0 for a flat image.
    var highlightShare: Double { total > 0 ? brightWeight / total : 0 }
}

/// The exposure detector's answer.
public struct ExposureObservation: DetectorObservation {
    public static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "exposure confidence", words: "badly exposed",
        explanation: "a photo's exposure confidence is above the policy's exposure threshold (underexposed or overexposed)",
        defaultThreshold: ModelSet.bundled.threshold("exposure", of: "exposure"))

    /// The direction in words; nil when it is `ok` (the criterion's words then).
    public var failureWords: String? {
        switch direction {
        case .under: "underexposed"
        case .over: "overexposed"
        case .backlit: "backlit (subject in shadow)"
        case .ok: nil
        }
    }

    /// A numeric field, or `evidence`: the larger of the two evidences, which calibration maps.
    public func measurement(_ name: String) -> Double? {
        name == ExposureDetector.descriptor.calibration?.measure ? evidence : numericField(name)
    }

    /// The largest evidence the confidence was read from: backlit does not count for a page
    /// (`inkLevel` measured) or a flash photo.
    public var evidence: Double {
        let backlitCounts = !flash && inkLevel < 0
        return max(underEvidence, overEvidence, backlitCounts ? backlitEvidence : -.infinity)
    }

    public enum Direction: String, Sendable, CaseIterable {
        case under, over, backlit, ok
    }

    /// 0 = well exposed, 1 = clearly badly exposed.
    public var confidence = 0.0
    public var direction = Direction.ok
    public var median = 0.0
    public var p02 = 0.0
    public var p98 = 0.0
    public var shadowClip = 0.0
    public var highlightClip = 0.0
    /// The level below which 90 % of the detail (gradient-weighted local level) lies.
    public var detailP90 = 0.0
    /// The share of the detail whose 3 × 3 neighbourhood lies wholly above level 200.
    public var highlightDetail = 0.0
    public var underEvidence = 0.0
    public var overEvidence = 0.0
    /// Mean level of the ink when the image is a page of dark marks on light paper, else −1.
    public var inkLevel = -1.0
    /// Whether a flash fired (EXIF).
    public var flash = false
    /// 90th percentile of luma: the bright part of the frame a backlit subject is set against.
    public var p90 = 0.0
    public var backlitEvidence = 0.0
    /// The share of pixels whose brightest channel is at or above level 250 (luma's for a grey image).
    public var colourClip = 0.0

    public init() {}

    public init(
        confidence: Double, direction: Direction, median: Double, p02: Double, p98: Double, shadowClip: Double,
        highlightClip: Double, detailP90: Double = 0, highlightDetail: Double = 0, underEvidence: Double, overEvidence: Double,
        inkLevel: Double, flash: Bool = false, p90: Double = 0, backlitEvidence: Double = -100, colourClip: Double = 0
    ) {
        self.confidence = confidence
        self.direction = direction
        self.median = median
        self.p02 = p02
        self.p98 = p98
        self.shadowClip = shadowClip
        self.highlightClip = highlightClip
        self.detailP90 = detailP90
        self.highlightDetail = highlightDetail
        self.underEvidence = underEvidence
        self.overEvidence = overEvidence
        self.inkLevel = inkLevel
        self.flash = flash
        self.p90 = p90
        self.backlitEvidence = backlitEvidence
        self.colourClip = colourClip
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that the image is badly exposed: 0 well exposed, 1 badly", units: "probability", range: 0...1),
        .label("direction", \.direction, "under, over, backlit (a subject in shadow against a bright background), or ok when the confidence is below 0.5"),
        .number("median", \.median, "median luma", units: "8-bit level", range: 0...255),
        .number("p02", \.p02, "2nd percentile of luma (the darkest tones)", units: "8-bit level", range: 0...255),
        .number("p98", \.p98, "98th percentile of luma (the brightest tones)", units: "8-bit level", range: 0...255),
        .number("shadowClip", \.shadowClip, "share of pixels at or below level 8", units: "fraction", range: 0...1),
        .number("highlightClip", \.highlightClip, "share of pixels at or above level 250", units: "fraction", range: 0...1),
        .number("detailP90", \.detailP90, "level below which 90% of the detail (gradient-weighted local level) lies; the median for a flat image", units: "8-bit level", range: 0...255),
        .number("highlightDetail", \.highlightDetail, "share of the detail whose 3×3 neighbourhood lies wholly above level 200", units: "fraction", range: 0...1),
        .number("underEvidence", \.underEvidence, "under-exposure log-odds from the median (detailP90 when a flash fired) and detailP90 in stops, before mapping", units: "log-odds", range: -100...100),
        .number("overEvidence", \.overEvidence, "over-exposure log-odds from the median in stops and colourClip, before mapping", units: "log-odds", range: -100...100),
        .number("inkLevel", \.inkLevel, "level of the darker half of the ink when the image shows a page, else −1", units: "8-bit level", range: -1...255),
        .flag("flash", \.flash, "the file's EXIF says a flash fired: lit from the front, never backlit, and under-exposure reads the detail's level in place of the median"),
        .number("p90", \.p90, "90th percentile of luma (the bright part of the frame)", units: "8-bit level", range: 0...255),
        .number("colourClip", \.colourClip, "share of pixels whose brightest channel is at or above level 250 (luma's for a grey image)", units: "fraction", range: 0...1),
        .number("backlitEvidence", \.backlitEvidence, "backlit log-odds from the median, p90 and detailP90 in stops, before mapping (not used for a page or a flash photo)", units: "log-odds", range: -100...100),
    ]
}
