import ImageKernels
import ImagingCore
import Glibc

/// Whether an image shows text, and how large, contrasted and sharp that text is, in
/// full-resolution pixels.
///
/// Recognisers fail on text that is simply too small, however sharp. On a crop of the
/// image at decode resolution (up to 1 024 × 1 024) over the text `TextFinder` located
/// (`detail(of:found:)`), Otsu's threshold separates ink from paper (`DetailAnalysis`); the mean length of
/// horizontal dark runs no longer than twice the median run is the stroke width
/// (vertical strokes dominate Latin and Cyrillic text), and the period of the
/// ink-per-row profile is the line pitch. Times the decode scale, both are in
/// full-resolution pixels. `DirectionalEdges` measures how soft the text's edges are,
/// and legibility weighs the line pitch against the blur.
public struct TextDetector: Detector {
    public init() {}

    public func analyze(_ context: AnalysisContext) -> TextObservation { context.text }

    /// What the detector's model (`Models/text.json`) holds: the reading predictor's two
    /// models (`ReadingPredictor`) and the gate's document minimums, which
    /// `QualityPolicy.default` takes from it.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ReadingPredictor.measuresByModel, evidenceSelectsMeasures: true, evidenceTakesShapes: true, evidenceTakesTrees: true,
        mapping: false,
        thresholds: ["minimumPredictedAccuracy", "minimumLinePitch", "minimumLegibility", "minimumTextContrast"])

    public static let descriptor = MetricDescriptor(
        name: "text",
        meaning: "whether dark text-like marks are present, their size, contrast and legibility",
        direction: "measure",
        fields: TextObservation.descriptorFields,
        cost: "one threshold and one run-length pass over a ≤ 1024² crop; two gradient passes over it; runs blur",
        caveats: "Light text on dark grounds is not measured.")

    /// The most line boxes a record lists.
    public static let maximumRegions = 64

    /// The decode-resolution crop the text estimate measures: where the text is when
    /// `TextFinder` found at least `TextObservation.inkOnPaperCharacters` characters (enough
    /// to stand for the page), else the centre crop, so a sign in a photo or a stray line of a
    /// blurred page does not choose what the whole frame is measured by.
    public static func detail(of image: AnalysisImage, found: TextFinder.Result) -> PixelBuffer<UInt8> {
        Double(found.characterCount) >= TextObservation.inkOnPaperCharacters ? image.detail(over: found.lines) : image.detail
    }

    /// `estimate` with what `TextFinder` found on the same image. Where the ink-per-row
    /// profile shows no period, the distance between the lines found is the line pitch.
    /// `sheet` measures the frame's sheet of paper; it is called only when the frame's own
    /// page rules fail on `TextObservation.sheetCharacters` grouped characters or more, so a
    /// photo without text costs nothing more.
    public static func locating(
        _ estimate: TextObservation, found: TextFinder.Result, colourfulness: Colourfulness?, sheet: () -> PaperSheet? = { nil }
    ) -> TextObservation {
        var text = estimate
        text.colourfulness = colourfulness?.value ?? -1
        if text.linePitch == 0 { text.linePitch = found.linePitch }
        text.lines = Double(found.lines.count)
        text.characters = Double(found.characterCount)
        text.xHeight = found.characterHeight
        text.markHeight = found.markHeight
        text.coverage = found.coverage
        text.extent = found.extent
        text.polarity = found.polarity
        text.regions = Array(found.lines.prefix(maximumRegions))
        let lines = found.lineStatistics
        text.lineXHeight = lines.xHeight
        text.xHeightP10 = lines.xHeightP10
        text.lineBlur = lines.blur
        text.lineBlurP90 = lines.blurP90
        text.lineContrast = lines.contrast
        text.lineContrastP10 = lines.contrastP10
        text.lineNoise = lines.noise
        text.skew = lines.skew
        text.skewSpread = lines.skewSpread
        text.ungrouped = lines.ungrouped
        text.binarized = lines.binarized
        if !text.showsPage && text.characters >= TextObservation.sheetCharacters && text.ungrouped < TextObservation.pageUngroupedBelow,
            let found = sheet(), found.isSheet {
            text.sheet = found.share
        }
        return text
    }

    /// `estimate` with its legibility, from the blur of the same image whose analysis
    /// pixels are `scale` full-resolution pixels wide.
    public static func judging(_ estimate: TextObservation, blur: BlurObservation, scale: Double) -> TextObservation {
        var text = estimate
        text.legibility = text.legibility(edgeWidth: blur.edgeWidth, scale: scale)
        return text
    }

    /// `measuresEdges` false leaves `softEdgeWidth` and `edgeAnisotropy` unmeasured (two
    /// gradient passes saved when only exposure needs the estimate).
    /// The estimate without legibility (which needs the blur).
    /// - Parameters:
    ///   - detail: luma at decode resolution (a crop of at most 1024²).
    ///   - analysis: its histogram and ink–paper split.
    ///   - scale: full-resolution pixels per detail pixel.
    public static func estimate(
        detail: PixelBuffer<UInt8>, analysis: DetailAnalysis, scale: Double, measuresEdges: Bool
    ) -> TextObservation {
        let histogram = analysis.histogram
        let split = analysis.split
        let threshold = split.threshold
        let ink = split.darkShare
        let (runs, runCount, profile) = darkRuns(detail, threshold: threshold)
        // The median run, refined to the mean of runs up to twice it: integer medians
        // are too coarse for thin strokes, and long runs are bars and blobs, not strokes.
        var strokeWidth = 0.0
        if runCount > 0 {
            var running = 0, median = 1
            for (length, count) in runs.enumerated() {
                running += count
                if running * 2 >= runCount {
                    median = max(1, length)
                    break
                }
            }
            var total = 0, count = 0
            for length in 1...min(64, 2 * median) {
                total += length * runs[length]
                count += runs[length]
            }
            strokeWidth = Double(total) / Double(max(1, count)) * scale
        }
        // Text is many short runs: strokes, not a dark foreground.
        let runsPerRow = Double(runCount) / Double(max(1, detail.height))
        let detected = split.looksLikeInkOnPaper && runCount >= 100 && runsPerRow >= 2 && strokeWidth / scale <= 16
        let lines = linePitch(profile: profile)
        let edges = measuresEdges ? DirectionalEdges.measure(detail, histogram: histogram) : .none
        return TextObservation(
            detected: detected, strokeWidth: strokeWidth, inkFraction: ink,
            linePitch: lines.pitch * scale, lineRegularity: lines.regularity, contrast: split.brightMean - split.darkMean,
            paperLevel: split.brightMean,
            softEdgeWidth: fullResolutionWidth(edges.softWidth, scale: scale), edgeAnisotropy: edges.anisotropy)
    }

    /// A soft edge width measured at decode scale, in full-resolution pixels, with a sharp
    /// edge's own width (2 decode pixels, the central difference's spread) counted once:
    /// `√((w² − 2²) · scale² + 2²)`. A sharp page decoded at half size measures 2, as at
    /// full size, not 4; a ramp of L full-resolution pixels still measures about L.
    static func fullResolutionWidth(_ width: Double, scale: Double) -> Double {
        guard width > 0 else { return 0 }
        let sharp = DirectionalEdges.sharpWidth
        guard width > sharp else { return width }
        return ((width * width - sharp * sharp) * scale * scale + sharp * sharp).squareRoot()
    }

    /// The dark runs of `detail` (pixels at or below `threshold`) bounded by light pixels on
    /// both sides, counted by length up to 64 (a run touching either edge of its row is not
    /// a stroke one can measure), their number, and each row's dark pixels (for the line
    /// pitch). Rows are read as bits, 64 pixels to a word, and runs found from bit to bit.
    static func darkRuns(_ detail: PixelBuffer<UInt8>, threshold: Int) -> (runs: [Int], count: Int, profile: [Double]) {
        var runs = [Int](repeating: 0, count: 65)
        var runCount = 0
        let width = detail.width, wordsPerRow = (width + 63) / 64
        var profile = [Double](repeating: 0, count: detail.height)
        var words = [UInt64](repeating: 0, count: wordsPerRow)
        detail.withUnsafeBufferPointer { pixels in
            words.withUnsafeMutableBufferPointer { words in
                let bits = words.baseAddress!
                for y in 0..<detail.height {
                    darkBits(pixels.baseAddress! + y * detail.rowStride, width: width, threshold: threshold, into: bits)
                    var ink = 0
                    for i in 0..<wordsPerRow { ink += bits[i].nonzeroBitCount }
                    profile[y] = Double(ink)
                    var x = 0
                    while x < width {
                        let start = nextBit(bits, words: wordsPerRow, from: x, set: true, limit: width)
                        guard start < width else { break }
                        let end = nextBit(bits, words: wordsPerRow, from: start, set: false, limit: width)
                        if start > 0 && end < width && end - start <= 64 {
                            runs[end - start] += 1
                            runCount += 1
                        }
                        x = end
                    }
                }
            }
        }
        return (runs, runCount, profile)
    }

    /// Bit x of `bits` (word x / 64, bit x % 64) set where the row's pixel x is at or below
    /// `threshold`; the bits past `width` in the last word clear.
    @inline(__always)
    static func darkBits(_ row: UnsafePointer<UInt8>, width: Int, threshold: Int, into bits: UnsafeMutablePointer<UInt64>) {
        let level = UInt8(clamping: threshold), none = threshold < 0
        var base = 0, word = 0
        while base + 64 <= width {
            var value: UInt64 = 0
            for i in 0..<64 { value |= (row[base + i] <= level ? 1 : 0) << UInt64(i) }
            bits[word] = none ? 0 : value
            base += 64
            word += 1
        }
        if base < width {
            var value: UInt64 = 0
            for i in 0..<(width - base) { value |= (row[base + i] <= level ? 1 : 0) << UInt64(i) }
            bits[word] = none ? 0 : value
        }
    }

    /// The first position at or after `from` whose bit is `set` (or clear), `limit` if none
    /// before it.
    @inline(__always)
    static func nextBit(_ bits: UnsafePointer<UInt64>, words: Int, from: Int, set: Bool, limit: Int) -> Int {
        var word = from >> 6
        guard word < words else { return limit }
        var mask = (set ? bits[word] : ~bits[word]) & (~0 << UInt64(from & 63))
        while mask == 0 {
            word += 1
            guard word < words else { return limit }
            mask = set ? bits[word] : ~bits[word]
        }
        return min(limit, word << 6 | mask.trailingZeroBitCount)
    }

    /// The distance between text lines in detail pixels: the period, 6 to 200 pixels, of
    /// the ink-per-row `profile` (the first peak of its autocorrelation after lag 0 that
    /// reaches half the highest). 0 when there is no clear period.
    static func linePitch(profile: [Double]) -> (pitch: Double, regularity: Double) {
        var profile = profile
        let height = profile.count
        guard height >= 24 else { return (0, 0) }
        let mean = profile.reduce(0, +) / Double(height)
        for y in 0..<height { profile[y] -= mean }
        let energy = profile.reduce(0) { $0 + $1 * $1 }
        guard energy > 0 else { return (0, 0) }
        let maxLag = min(200, height / 3)
        guard maxLag > 6 else { return (0, 0) }
        var correlation = [Double](repeating: 0, count: maxLag + 2)
        profile.withUnsafeBufferPointer { p in
            // Four lags to a vector, each lane adding its products in the order one lag alone
            // would (over the rows all four share, then its own last rows), so each sum has
            // the bits of the one-lag loop without one chain of dependent additions.
            var lag = 1
            while lag + 3 <= maxLag + 1 {
                var sums = SIMD4<Double>()
                let shared = height - (lag + 3)
                for y in 0..<shared {
                    sums += SIMD4<Double>(repeating: p[y]) * UnsafeRawPointer(p.baseAddress! + y + lag).loadUnaligned(as: SIMD4<Double>.self)
                }
                for k in 0..<4 {
                    var sum = sums[k]
                    for y in shared..<(height - lag - k) { sum += p[y] * p[y + lag + k] }
                    correlation[lag + k] = sum / energy
                }
                lag += 4
            }
            for lag in lag..<(maxLag + 2) {
                var sum = 0.0
                for y in 0..<(height - lag) { sum += p[y] * p[y + lag] }
                correlation[lag] = sum / energy
            }
        }
        var bestLag = 0, best = 0.1
        for lag in 6...maxLag where correlation[lag] > correlation[lag - 1] && correlation[lag] >= correlation[lag + 1] {
            if correlation[lag] > best {
                best = correlation[lag]
                bestLag = lag
            }
        }
        guard bestLag > 0 else { return (0, 0) }
        // Blank lines between paragraphs make multiples of the pitch correlate as well as
        // the pitch itself, and often better (three-line paragraphs: 0.49 at the pitch against
        // 0.85 at four times it): the shortest period whose peak reaches half the highest
        // is the line pitch.
        for lag in 6..<bestLag where correlation[lag] > correlation[lag - 1] && correlation[lag] >= correlation[lag + 1] {
            if correlation[lag] >= 0.5 * best {
                best = correlation[lag]
                bestLag = lag
                break
            }
        }
        // Refine the peak with a parabola through its neighbours.
        let a = correlation[bestLag - 1], b = correlation[bestLag], c = correlation[bestLag + 1]
        let denominator = a - 2 * b + c
        let offset = denominator < 0 ? 0.5 * (a - c) / denominator : 0
        return (Double(bestLag) + max(-0.5, min(0.5, offset)), best)
    }
}

/// The text detector's answer.
public struct TextObservation: DetectorObservation {
    public var detected = false
    /// Full-resolution pixels.
    public var strokeWidth = 0.0
    public var inkFraction = 0.0
    /// Distance between text lines, full-resolution pixels (0 when no line period is found).
    public var linePitch = 0.0
    /// The ink profile's autocorrelation at the line pitch (0–1): near 1 for ruled lines of text.
    public var lineRegularity = 0.0
    /// Paper level minus ink level, 8-bit levels (the means of Otsu's two classes).
    public var contrast = 0.0
    /// Width of the softest edges, along the direction of least gradient energy, in
    /// full-resolution pixels (see `DirectionalEdges`); 0 when unmeasured.
    public var softEdgeWidth = 0.0
    /// How much steeper edges are across that direction than along it (≥ 1).
    public var edgeAnisotropy = 1.0
    /// How many blur-limited resolution elements one text line spans (0 without text);
    /// see `legibility(edgeWidth:scale:)`.
    public var legibility = 0.0
    /// Lines of text `TextFinder` found (character-like marks aligned in rows).
    public var lines = 0.0
    /// Characters in those lines.
    public var characters = 0.0
    /// Median character height of those lines, full-resolution pixels (0 without lines).
    public var xHeight = 0.0
    /// Share of the frame the line boxes cover.
    public var coverage = 0.0
    /// Share of the frame inside the box around every line.
    public var extent = 0.0
    /// Whether the lines are dark marks, light marks, or both.
    public var polarity = TextFinder.Polarity.none
    /// The line boxes, full-resolution pixels, top to bottom (at most `TextDetector.maximumRegions`).
    public var regions: [PixelRect] = []
    /// The frame's colourfulness (Hasler–Süsstrunk M), −1 when decoded without colour.
    public var colourfulness = -1.0
    /// The paper's level: the mean of the brighter of Otsu's two classes, 8-bit.
    public var paperLevel = 0.0
    /// Over every line found (`TextLineStatistics`, quantiles over characters): the median
    /// of the lines' x-heights (each the mean of its middle half of character heights),
    /// full-resolution pixels: finer than `xHeight`, the median of whole pixels.
    public var lineXHeight = 0.0
    /// The 10th percentile of the same.
    public var xHeightP10 = 0.0
    /// Median of the lines' stroke-edge width over their x-height.
    public var lineBlur = 0.0
    /// 90th percentile of the same.
    public var lineBlurP90 = 0.0
    /// Median of the lines' contrast (95th minus 5th percentile of levels in the line box).
    public var lineContrast = 0.0
    /// 10th percentile of the same.
    public var lineContrastP10 = 0.0
    /// Median of the lines' paper noise over their contrast.
    public var lineNoise = 0.0
    /// Median absolute baseline slope, degrees.
    public var skew = 0.0
    /// 90th minus 10th percentile of the baseline slopes, degrees.
    public var skewSpread = 0.0
    /// Share of character-like marks no line took.
    public var ungrouped = 0.0
    /// Median height of every character-like mark, in lines or not, full-resolution pixels
    /// (0 without lines): under `xHeight` when lines took a heading and left the small print.
    public var markHeight = 0.0
    /// Mean over characters of the share of their line one threshold for the whole frame
    /// (Otsu's, as Tesseract binarises by default) keeps: ink on the dark side, paper on the
    /// bright (`TextLineStatistics.binarized`).
    public var binarized = 0.0
    /// The share of the frame covered by a sheet of paper that stands out from a darker
    /// ground (`PaperSheet.isSheet`), 0 when there is none. Looked for only when the other
    /// page rules fail on `sheetCharacters` characters or more (else 0).
    public var sheet = 0.0

    public init() {}

    public init(
        detected: Bool, strokeWidth: Double, inkFraction: Double, linePitch: Double, lineRegularity: Double,
        contrast: Double, paperLevel: Double = 0, softEdgeWidth: Double = 0, edgeAnisotropy: Double = 1, legibility: Double = 0
    ) {
        self.paperLevel = paperLevel
        self.detected = detected
        self.strokeWidth = strokeWidth
        self.inkFraction = inkFraction
        self.linePitch = linePitch
        self.lineRegularity = lineRegularity
        self.contrast = contrast
        self.softEdgeWidth = softEdgeWidth
        self.edgeAnisotropy = edgeAnisotropy
        self.legibility = legibility
    }

    public static let fields: [ObservationField<Self>] = [
        .flag("detected", \.detected, "dark marks on a light ground found (Otsu separability and ink share)"),
        .number("strokeWidth", \.strokeWidth, "median horizontal run of ink, full-resolution pixels", units: "px", range: 0...256),
        .number("inkFraction", \.inkFraction, "share of ink pixels in the crop", units: "fraction", range: 0...1),
        .number("linePitch", \.linePitch, "distance between text lines (period of the ink-per-row profile), full-resolution pixels", units: "px", range: 0...1000),
        .number("lineRegularity", \.lineRegularity, "autocorrelation of the ink-per-row profile at the line pitch", units: "ratio", range: 0...1),
        .number("contrast", \.contrast, "paper level minus ink level (means of Otsu's two classes)", units: "levels", range: 0...255),
        .number("softEdgeWidth", \.softEdgeWidth, "contrast over the steepest gradient along the direction of least gradient energy (a ramp of length L measures L, a sharp edge about 2), full-resolution pixels with a sharp edge's own width counted once", units: "px", range: 0...1000),
        .number("edgeAnisotropy", \.edgeAnisotropy, "steepest gradient across that direction over the steepest along it: about 1 when sharp or evenly blurred, 2–4 when smeared by motion", units: "ratio", range: 1...1000),
        .number("legibility", \.legibility, "line pitch (at most 2.6 x-heights) over the blur-limited resolution: the smaller of pitch / √(blur² + 1), blur being the edge width beyond a sharp edge's, and 2.5 · pitch / (softEdgeWidth · edgeAnisotropy^¼); 0 without text", units: "ratio", range: 0...1000),
        .number("lines", \.lines, "lines of text found: character-like marks aligned in rows", units: "count", range: 0...10_000),
        .number("characters", \.characters, "characters in those lines", units: "count", range: 0...1_000_000),
        .number("xHeight", \.xHeight, "median character height of the lines found, full-resolution pixels", units: "px", range: 0...10_000),
        .number("coverage", \.coverage, "share of the frame covered by the lines found", units: "fraction", range: 0...1),
        .number("extent", \.extent, "share of the frame inside the box around every line found: how much of the frame the text spans", units: "fraction", range: 0...1),
        .label("polarity", \.polarity, "dark marks on a light ground, light on dark, mixed, or none"),
        .boxes("regions", \.regions, "the lines found, full-resolution pixels, top to bottom (at most 64)"),
        .number("colourfulness", \.colourfulness, "the frame's colourfulness (Hasler–Süsstrunk M), −1 when decoded without colour", units: "M", range: -1...200),
        .number("paperLevel", \.paperLevel, "the paper's level: the mean of the brighter of Otsu's two classes", units: "8-bit level", range: 0...255),
        .number("lineXHeight", \.lineXHeight, "median over the characters of every line found of their line's x-height (the mean of the middle half of its character heights), full-resolution pixels", units: "px", range: 0...10_000),
        .number("xHeightP10", \.xHeightP10, "10th percentile of the same: the small print", units: "px", range: 0...10_000),
        .number("lineBlur", \.lineBlur, "median over characters of their line's stroke-edge width (contrast over the 95th percentile of the horizontal central difference, full-resolution pixels) over its x-height", units: "ratio", range: 0...100),
        .number("lineBlurP90", \.lineBlurP90, "90th percentile of the same: the softest lines", units: "ratio", range: 0...100),
        .number("lineContrast", \.lineContrast, "median over characters of their line's contrast: 95th minus 5th percentile of the levels in its box", units: "levels", range: 0...255),
        .number("lineContrastP10", \.lineContrastP10, "10th percentile of the same: the faintest lines", units: "levels", range: 0...255),
        .number("lineNoise", \.lineNoise, "median over characters of their line's paper roughness (mean absolute second difference along rows) over its contrast", units: "ratio", range: 0...100),
        .number("skew", \.skew, "median over characters of the absolute slope of their line's baseline", units: "degrees", range: 0...90),
        .number("skewSpread", \.skewSpread, "90th minus 10th percentile of the lines' baseline slopes: perspective or a curled page", units: "degrees", range: 0...180),
        .number("ungrouped", \.ungrouped, "share of the character-like marks that no line took", units: "fraction", range: 0...1),
        .number("markHeight", \.markHeight, "median height of every character-like mark, in a line or not, full-resolution pixels (0 without lines): under xHeight when the lines found are a heading and the small print was left", units: "px", range: 0...10_000),
        .number("binarized", \.binarized, "mean over characters of the share of their line that one threshold for the whole frame (Otsu's, as Tesseract binarises a page by default) keeps: its ink pixels on the dark side times its paper pixels on the bright side (light text the other way round)", units: "fraction", range: 0...1),
        .number("sheet", \.sheet, "share of the frame covered by a sheet of paper standing out from a darker ground: the largest region brighter than the frame's Otsu threshold, holes filled, four-sided (overlap 0.9 with its corners' quadrilateral), on at most a quarter of the frame's edge, without colour (M < 20), 30 levels brighter than its ground, no hole over a tenth of it; looked for only when 10 characters are found and the other page rules fail, else 0", units: "fraction", range: 0...1),
        .derivedFlag("page", { $0.showsPage }, "the text is the image's subject (a page, a receipt, a screen of text): 100 characters found, or 30 spanning 1/9 of a frame of dark marks on light paper, or 10 on a sheet of paper covering 15% of the frame (sheet), with lines taking 8% of the marks or more; or rows at a regular pitch (regularity 0.4) on a bright frame (paper level 128) without colour (M < 20) that is mostly paper (ink under half)"),
    ]

    /// Whether there is text to judge: lines found, or text-like marks.
    public var hasText: Bool { linePitch > 0 || detected }

    /// Characters found that make a page whatever else the frame holds: about two lines of
    /// body text. A photo with a sign or a label shows fewer.
    public static let pageCharacters = 100.0
    /// Characters found that make a page when the frame also reads as ink on paper: half a
    /// line of body text.
    public static let inkOnPaperCharacters = 30.0
    /// Row regularity that makes a page of a frame without colour, when blur leaves no
    /// character to find: the ink-per-row profile repeats at the line pitch.
    public static let pageRegularity = 0.4
    /// Colourfulness (Hasler–Süsstrunk M) under which a frame has no colour to speak of
    /// (their scale calls about 15 "slightly colourful").
    public static let colourlessBelow = 20.0
    /// The least share of the frame that a few lines of text must span (`extent`) to be its
    /// subject: a third of its width by a third of its height. A label or a sign in a photo
    /// spans less.
    public static let subjectExtent = 1.0 / 9
    /// The least paper level (the brighter Otsu class's mean) of a page: paper reflects
    /// most of the light, so a frame whose brighter half is darker is not a page's.
    public static let paperBrighterThan = 128.0
    /// The largest ink share (`inkFraction`) of a page found by its rows alone: a page is
    /// mostly paper, even blurred (at most a third on the pages of `Datasets/documents`).
    public static let pageInkBelow = 0.5
    /// Line pitch of single-spaced type in x-heights (x-height about half the em, lines
    /// 1.2–1.3 em apart); 2.6 ranked the train split of `Datasets/documents` best.
    public static let pitchPerXHeight = 2.6
    /// The share of character-like marks no line took (`ungrouped`) under which the
    /// characters found make a page. A page's lines take most of its marks; the grain of a
    /// noisy photo makes thousands of marks, of which lines take a few percent by chance.
    /// The most ungrouped train page of `Datasets/documents` and `Datasets/structure` leaves
    /// 0.886 ungrouped, the least of the camera corpus's noisy train photos that 100
    /// characters made pages 0.962.
    public static let pageUngroupedBelow = 0.92
    /// Characters found that make a page when the frame shows a sheet of paper on a darker
    /// ground (`sheet`): a few words. A blurred page on a desk keeps only its boldest lines
    /// for the text finder, and the desk breaks the frame's own page rules.
    public static let sheetCharacters = 10.0

    /// Whether the text is the subject of the image (a page, a receipt, a screen of text)
    /// rather than incidental to a photo: `pageCharacters` found; or
    /// `inkOnPaperCharacters` found, spanning `subjectExtent` of a frame whose tones split
    /// into dark marks on light paper (`detected`); or `sheetCharacters` found on a frame
    /// showing a sheet of paper (`sheet`); any of the three only when the lines took enough
    /// of the marks (`pageUngroupedBelow`); or, for a page too blurred for its
    /// characters to be found, rows at a regular pitch on a bright frame without colour that
    /// is mostly paper (a dark night scene's few lights are bright, and JPEG's 8-row blocks
    /// repeat in its dark noise).
    public var showsPage: Bool {
        let grouped = ungrouped < Self.pageUngroupedBelow
        if grouped && characters >= Self.pageCharacters { return true }
        if grouped && detected && characters >= Self.inkOnPaperCharacters && extent >= Self.subjectExtent { return true }
        if grouped && sheet > 0 && characters >= Self.sheetCharacters { return true }
        let colourless = colourfulness >= 0 && colourfulness < Self.colourlessBelow
        return colourless && paperLevel >= Self.paperBrighterThan && inkFraction < Self.pageInkBelow && linePitch > 0
            && lineRegularity >= Self.pageRegularity
    }

    /// The legibility of the same text without blur: its line pitch, at most
    /// `pitchPerXHeight` x-heights (13 stroke widths without a line period).
    public var sizeLimitedLegibility: Double {
        guard hasText else { return 0 }
        let pitch = linePitch > 0 ? linePitch : 13 * strokeWidth
        return xHeight > 0 ? min(pitch, Self.pitchPerXHeight * xHeight) : pitch
    }

    /// Text lines over the resolution blur leaves, the size that matters to a recognizer:
    /// `pitch / √(b² + 1)` with `b` the blur in full-resolution pixels, `scale · √(w² − 0.5²)`
    /// for an analysis edge width `w` (0.5 px is a sharp edge's own width there, so a sharp
    /// image of any size has b = 0 and its legibility is its line pitch). Without a line
    /// period the pitch is taken as 13 stroke widths (the ratio on the clean pages of
    /// `Datasets/documents`, train split). 0 without text.
    ///
    /// The edge width saturates on long motion, so legibility is also at most
    /// `2.5 · pitch / (w · a^¼)` for the soft edge width `w` and anisotropy `a`: a sharp
    /// page (w ≈ 2, a ≈ 1) keeps about its pitch, and smear in one direction costs more
    /// than the same width spread evenly. Both constants were chosen on the train split of
    /// `Datasets/documents` (best F1 for rejecting CER > 0.1, then Spearman).
    ///
    /// The pitch stands for the size of the type, so it is at most `pitchPerXHeight` times
    /// the x-height found: lines spaced wider (a form, a letter with double spacing) do not
    /// make the letters bigger, and the ink-per-row profile can lock onto every other line.
    public func legibility(edgeWidth: Double, scale: Double) -> Double {
        guard hasText else { return 0 }
        let pitch = sizeLimitedLegibility
        let blur = scale * max(0, edgeWidth * edgeWidth - 0.25).squareRoot()
        let resolved = pitch / (blur * blur + 1).squareRoot()
        guard softEdgeWidth > 0 else { return resolved }
        let smear = softEdgeWidth * pow(max(1, edgeAnisotropy), 0.25)
        return min(resolved, 2.5 * pitch / smear)
    }
}

/// A histogram split in two by Otsu's threshold: ink and paper, when it is a page.
public struct OtsuSplit: Sendable, Equatable {
    public var threshold: Int
    public var darkMean: Double
    public var brightMean: Double
    /// Share of samples at or below the threshold.
    public var darkShare: Double
    /// Between-class variance over total variance: 1 for two spikes, near 0 for one blob.
    public var separability: Double

    public init(_ histogram: Histogram) {
        threshold = histogram.otsuThreshold
        let total = Double(histogram.total)
        var darkCount = 0.0, darkSum = 0.0, allSum = 0.0
        for (value, count) in histogram.counts.enumerated() {
            allSum += Double(value * count)
            if value <= threshold {
                darkCount += Double(count)
                darkSum += Double(value * count)
            }
        }
        let mean = total > 0 ? allSum / total : 0
        var variance = 0.0
        for (value, count) in histogram.counts.enumerated() { variance += Double(count) * (Double(value) - mean) * (Double(value) - mean) }
        darkMean = darkCount > 0 ? darkSum / darkCount : 0
        brightMean = total > darkCount ? (allSum - darkSum) / (total - darkCount) : 0
        darkShare = total > 0 ? darkCount / total : 0
        if variance > 0, darkCount > 0, darkCount < total {
            separability = (darkCount * (total - darkCount) / total) * (darkMean - brightMean) * (darkMean - brightMean) / variance
        } else {
            separability = 0
        }
    }

    /// Dark marks (1–40% of the area) on a light, well separated ground: a page of text.
    public var looksLikeInkOnPaper: Bool {
        separability >= 0.6 && darkShare >= 0.01 && darkShare <= 0.4 && brightMean >= 140 && brightMean - darkMean >= 50
    }
}

/// The level histogram of the detail crop and its ink–paper split, computed once and
/// shared by the text estimate and the exposure detector's ink level.
public struct DetailAnalysis: Sendable, Equatable {
    public var histogram: Histogram
    public var split: OtsuSplit

    public init(_ detail: PixelBuffer<UInt8>) {
        histogram = Histogram(detail)
        split = OtsuSplit(histogram)
    }
}
