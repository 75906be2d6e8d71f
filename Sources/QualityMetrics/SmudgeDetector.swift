import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something on the lens (fingerprint oil, water drops, dust, a scratched film): light
/// scattered into a veil over the image.
///
/// A film on the lens sends part of every point's light into a wide, long-tailed halo,
/// which adds to the whole frame: blacks lift relative to what lies beside them, and the
/// contrast the scene keeps, in stops, shrinks everywhere, while edges stay where they
/// were. Two measures of the lift, read in the tiles that hold fine structure (see
/// `VeilAnalysis`): `veilFraction`, the darkest channel's darkest tones over the brightest,
/// and `veilShare`, luma's darkest tones over the tile's mean, the share of light scattered,
/// which also sees a veil over a scene of one strong colour (whose scattered light leaves the
/// weakest channel black). A logistic model of the two, fitted by
/// `Scripts/measure/fit_smudge.py` on the physically simulated contamination of
/// `Datasets/smudge` (train split), gives the evidence in log-odds. Blur widens edges but
/// keeps the blacks of dark areas black; where a scene's darkest tones are fine texture
/// (gravel, smoke, thin shadows), a blur of a few pixels averages them with their
/// surroundings and lifts the cues as a light film would. `localContrast` (stops of contrast in
/// the most contrasty blocks) is reported beside them: adding it to the model ranked the
/// train split worse.
///
/// Also reported, from the frequency domain (per 64-pixel tile of the analysis image,
/// Hann-windowed, mean removed): the median log-log slope of the radially averaged power
/// spectrum, its spread across the frame, the high-frequency share; the global veil (the
/// darkest channel's 2nd percentile), softness, width spread and soft islands (tiles much
/// softer than their neighbours, as under drops).
///
/// Fog, haze and mist lift blacks the same way and score high; so does a frame with no
/// dark tone anywhere (snow, sand, clouds; a flat wall or a clear sky holds no tile to judge). Size: measured on the analysis image. Cost:
/// one pass for the veil and one 64×64 FFT per textured tile (≤ 192 tiles).
public struct SmudgeDetector: Detector {
    /// The map from evidence to confidence. The evidence is log-odds, so the bundled
    /// mapping is the logistic function itself; `imgquality calibrate --detector smudge`
    /// refits it on a user's labels.
    public var mapping: LogisticMapping
    /// The log-odds of the veil cues: a logistic model of `veilFraction` and `veilShare`
    /// (fitted by `Scripts/measure/fit_smudge.py`; the model file `Models/smudge.json`).
    public var evidence: DetectorModel.LinearModel

    /// What the detector reads of its model.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ["smudge": ["veilFraction", "veilShare"]], mapping: true, thresholds: ["smudge"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["smudge"]) {
        mapping = model.mapping!
        evidence = model.evidence("smudge")
    }

    /// The bundled model's evidence with `mapping` in place of its own.
    public init(mapping: LogisticMapping) {
        self.init()
        self.mapping = mapping
    }

    public static let descriptor = MetricDescriptor(
        name: "smudge",
        meaning: "confidence that something on the lens obscures the image",
        direction: "defect",
        fields: SmudgeObservation.descriptorFields,
        cost: "one 64×64 FFT per textured tile of the analysis image, and the shared tile analysis",
        caveats: "Fog, haze and mist score high, and so does a textured frame with no dark tone anywhere (snow, sand, clouds, a backlit leaf), or a blurred one whose darkest tones were fine texture. A film over only part of the frame, or showing only as glare and streaks around lights at night, is often missed.",
        calibration: .init(measure: "evidence", meaning: "log-odds of the veil cues before mapping"))

    static let tile = 64

    public func analyze(_ context: AnalysisContext) -> SmudgeObservation {
        context.measured("smudge") { analyze(context.image, tiles: context.tiles, diagnostics: context.diagnostics) }
    }

    /// Every field, diagnostics included.
    public func analyze(_ image: AnalysisImage) -> SmudgeObservation {
        analyze(image, tiles: TileAnalysis(image.luma), diagnostics: true)
    }

    /// - Parameter tiles: the tile analysis of `image.luma`.
    /// - Parameters:
    ///   - tiles: the tile analysis of `image.luma`.
    ///   - diagnostics: also measure the fields the confidence does not read: the tile
    ///     spectra (one FFT per textured tile), streaks and soft islands.
    public func analyze(_ image: AnalysisImage, tiles: TileAnalysis, diagnostics: Bool) -> SmudgeObservation {
        let darkest = VeilAnalysis.darkestChannel(image)
        let veil = Double(Histogram(darkest).percentile(0.02)) / 255
        let veiling = VeilAnalysis(image, darkest: darkest)
        let softness = percentile(tiles.widths, 0.5)
        let widthSpread = tiles.widths.isEmpty ? 0 : log(max(percentile(tiles.widths, 0.9), 1e-3) / max(percentile(tiles.widths, 0.1), 1e-3))
        let w = self.evidence
        let evidence = w.intercept + w["veilFraction"] * veiling.veilFraction + w["veilShare"] * veiling.veilShare
        var observation = SmudgeObservation(
            confidence: mapping(evidence), spectralSlope: 0, slopeSpread: 0, highFrequency: 0, veil: veil,
            evidence: evidence, softness: softness, widthSpread: widthSpread, softIslands: 0,
            veilFraction: veiling.veilFraction, veilShare: veiling.veilShare, localContrast: veiling.localContrast, halo: veiling.halo)
        guard diagnostics else { return observation }
        var (slopes, highs, orientations) = Self.tileSpectra(image.luma, noiseVariance: tiles.noiseVariance, moments: tiles.values)
        let streaks = Self.streaks(orientations)
        slopes.sort()
        highs.sort()
        observation.spectralSlope = slopes.isEmpty ? 0 : percentile(slopes, 0.5)
        observation.slopeSpread = slopes.isEmpty ? 0 : percentile(slopes, 0.75) - percentile(slopes, 0.25)
        observation.highFrequency = highs.isEmpty ? 0 : percentile(highs, 0.5)
        observation.softIslands = Self.softIslands(tiles)
        observation.streakAlignment = streaks.alignment
        observation.streakAngle = streaks.angle
        observation.includesDiagnostics = true
        return observation
    }

    /// How much of the tiles' directional energy shares one orientation across the frame,
    /// and that orientation as a line in the image.
    ///
    /// A straight line puts its energy on the spectrum's line through zero frequency
    /// perpendicular to it, so a tile's doubled-angle moment of power (`TileOrientation`)
    /// points along its dominant structure, with length 1 when the tile holds one direction
    /// only and 0 when it holds every direction alike. Averaged over textured tiles, the
    /// length stays near 1 only when the tiles agree: streaks from a scratched film cross
    /// the whole frame at one angle. Motion blur and scenes built of one direction (a fence,
    /// a façade's verticals) align tiles as well.
    /// - Returns: the mean moment's length (0–1) and the line angle in degrees (0–180,
    ///   counter-clockwise from horizontal as displayed); 0 and 0 without textured tiles.
    static func streaks(_ orientations: [TileOrientation]) -> (alignment: Double, angle: Double) {
        guard !orientations.isEmpty else { return (0, 0) }
        var x = 0.0, y = 0.0
        for tile in orientations {
            x += tile.x
            y += tile.y
        }
        x /= Double(orientations.count)
        y /= Double(orientations.count)
        var angle = atan2(y, x) / 2 * 180 / Double.pi
        if angle < 0 { angle += 180 }
        return ((x * x + y * y).squareRoot(), angle >= 180 ? 0 : angle)
    }

    /// A tile's orientation moment: the power-weighted mean of (cos 2θ, sin 2θ) over the
    /// spectrum's mid band, θ being the direction in the image of the lines each frequency
    /// stands for (counter-clockwise from horizontal as displayed).
    struct TileOrientation {
        var x: Double
        var y: Double
    }

    /// The radii (of 32) whose bins enter the orientation moment: above the tile's lowest
    /// frequencies, where the Hann window's own spread and the scene's gradients dominate,
    /// and below the top quarter, where JPEG blocks and noise sit.
    static let orientationBand = 3...24

    /// The bins of `orientationBand` in a `tile`² spectrum with their doubled line angle. Bin
    /// (u, v) is the frequency (fx, fy), x to the right and y down; its lines run
    /// perpendicular to it, at θ = 90° − atan2(fy, fx) counter-clockwise as displayed, so
    /// (cos 2θ, sin 2θ) = (−cos 2φ, sin 2φ).
    static let orientationBins: [(index: Int, cos: Double, sin: Double)] = {
        let n = tile
        let radii = WindowedTiles.radii(size: n)
        var bins: [(index: Int, cos: Double, sin: Double)] = []
        for v in 0..<n {
            let fy = Double(v <= n / 2 ? v : v - n)
            for u in 0..<n {
                let fx = Double(u <= n / 2 ? u : u - n)
                guard orientationBand.contains(Int(radii[v * n + u])) else { continue }
                let phi = atan2(fy, fx)
                bins.append((v * n + u, -cos(2 * phi), sin(2 * phi)))
            }
        }
        return bins
    }()

    /// The spectral slope and high-frequency share (`radialProfile`) of every textured
    /// 64-pixel tile of `plane` (standard deviation ≥ 4), Hann-windowed with its mean removed.
    /// - Parameters:
    ///   - noiseVariance: the plane's noise variance per pixel (`TileAnalysis`).
    ///   - moments: the plane's tile moments (`TileAnalysis.values`), on a grid that divides `tile`.
    static func tileSpectra(
        _ plane: PixelBuffer<UInt8>, noiseVariance: Double, moments: TileGrid
    ) -> (slopes: [Double], highs: [Double], orientations: [TileOrientation]) {
        let n = Self.tile
        let tiles = WindowedTiles(size: n)
        // White noise of variance σ² puts σ²·(Σ window²)² of power in every bin.
        let windowEnergy = tiles.window.reduce(0) { $0 + Double($1) * Double($1) }
        let noiseFloor = noiseVariance * windowEnergy * windowEnergy
        let radii = WindowedTiles.radii(size: n)
        let band = Self.orientationBins
        // Textured tiles (standard deviation ≥ 4): their origins and means, from the moments
        // of the smaller tiles that make each one up.
        precondition(n % moments.tileSize == 0, "tile moments on a grid that does not divide the spectra's tiles")
        let parts = n / moments.tileSize
        var textured: [(x: Int, y: Int, mean: Float)] = []
        for y0 in stride(from: 0, through: plane.height - n, by: n) {
            for x0 in stride(from: 0, through: plane.width - n, by: n) {
                var tile = Moments()
                for row in 0..<parts {
                    for column in 0..<parts { tile = tile + moments[x0 / moments.tileSize + column, y0 / moments.tileSize + row] }
                }
                if tile.standardDeviation >= 4 { textured.append((x0, y0, Float(tile.mean))) }
            }
        }
        // Eight tiles at a time, one per lane, windowed with their mean removed.
        var slopes: [Double] = [], highs: [Double] = [], orientations: [TileOrientation] = []
        var power = [SIMD8<Double>](repeating: .zero, count: n / 2 + 1)
        var counts = [Double](repeating: 0, count: n / 2 + 1)
        for i in 0..<(n * n) where radii[i] >= 1 { counts[Int(radii[i])] += 1 }
        tiles.forEachBatch(of: textured, in: plane) { count, re, im in
            power.withUnsafeMutableBufferPointer { power in
                power.update(repeating: .zero)
                for i in 0..<(n * n) {
                    let radius = Int(radii[i])
                    guard radius >= 1 else { continue }
                    let r = SIMD8<Double>(re[i]), m = SIMD8<Double>(im[i])
                    power[radius] += r * r + m * m
                }
            }
            let moments = Self.orientationMoments(re.baseAddress!, im.baseAddress!, band: band)
            // Noise spreads evenly over the angles: it adds to the power, not the moment.
            let bandNoise = noiseFloor * Double(band.count)
            for lane in 0..<count {
                let (slope, high) = Self.radialProfile(
                    power: power.map { $0[lane] }, counts: counts, size: n, noiseFloor: noiseFloor)
                slopes.append(slope)
                highs.append(high)
                // The moment over the scene's power (noise removed), at most 1 long.
                let signal = moments.power[lane] - bandNoise
                let x = moments.x[lane], y = moments.y[lane], length = (x * x + y * y).squareRoot()
                let scale = signal > 0 ? 1 / max(signal, length) : 0
                orientations.append(TileOrientation(x: x * scale, y: y * scale))
            }
        }
        return (slopes, highs, orientations)
    }

    /// Each lane's power over `band` and its doubled-angle moments (power × cos 2θ, × sin 2θ).
    static func orientationMoments(
        _ re: UnsafePointer<SIMD8<Float>>, _ im: UnsafePointer<SIMD8<Float>>, band: [(index: Int, cos: Double, sin: Double)]
    ) -> (power: SIMD8<Double>, x: SIMD8<Double>, y: SIMD8<Double>) {
        var power = SIMD8<Double>.zero, x = power, y = power
        for bin in band {
            let r = SIMD8<Double>(re[bin.index]), m = SIMD8<Double>(im[bin.index])
            let p = r * r + m * m
            power += p
            x += p * bin.cos
            y += p * bin.sin
        }
        return (power, x, y)
    }

    /// The share of textured tiles at least 1.8× softer than the median of their textured neighbours.
    static func softIslands(_ tiles: TileAnalysis) -> Double {
        let columns = tiles.values.columns, rows = tiles.values.rows
        var islands = 0, judged = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let width = tiles.grid[row * columns + column]
                guard width > 0 else { continue }
                var neighbours: [Double] = []
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let r = row + dy, c = column + dx
                        guard r >= 0, r < rows, c >= 0, c < columns else { continue }
                        let w = tiles.grid[r * columns + c]
                        if w > 0 { neighbours.append(w) }
                    }
                }
                guard neighbours.count >= 3 else { continue }
                judged += 1
                if width >= 1.8 * percentile(neighbours.sorted(), 0.5) { islands += 1 }
            }
        }
        return judged > 0 ? Double(islands) / Double(judged) : 0
    }

    /// The log-log slope of radially averaged power between radii 2 and 24 (of 32),
    /// and the share of power above radius 8.
    /// Noise power per FFT bin is `noiseFloor`: bins are corrected by it, and only radii
    /// whose power stands at least twice above it enter the slope (a blurred tile's high
    /// frequencies sink to the noise floor, which would otherwise flatten the slope).
    /// - Parameters:
    ///   - power: summed power of the spectrum's bins at each rounded radius (index 0 unused).
    ///   - counts: how many bins each radius has.
    static func radialProfile(
        power: [Double], counts: [Double], size n: Int, noiseFloor: Double = 0
    ) -> (slope: Double, high: Double) {
        let half = n / 2
        var xs: [Double] = [], ys: [Double] = []
        var total = 0.0, high = 0.0
        for r in 1...half where counts[r] > 0 {
            let mean = power[r] / counts[r]
            let signal = max(0, power[r] - noiseFloor * counts[r])
            total += signal
            if r > half / 4 { high += signal }
            if r >= 2 && r <= 3 * half / 4 && mean >= 2 * noiseFloor {
                xs.append(log(Double(r)))
                ys.append(log(max(mean - noiseFloor, 1e-12)))
            }
        }
        guard xs.count >= 3 else {
            // Only the lowest frequencies stand above the noise: as steep as measurable.
            return (-8, total > 0 ? high / total : 0)
        }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        return (sxx > 0 ? sxy / sxx : 0, total > 0 ? high / total : 0)
    }
}

/// The smudge detector's answer.
public struct SmudgeObservation: DetectorObservation {
    public static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "smudge confidence", words: "smudged lens",
        explanation: "a photo's smudge confidence (veil, soft islands on the lens) is above the policy's smudge threshold",
        defaultThreshold: ModelSet.bundled.threshold("smudge", of: "smudge"))

    /// 0 = clean lens, 1 = clearly smudged.
    public var confidence = 0.0
    public var spectralSlope = 0.0
    public var slopeSpread = 0.0
    public var highFrequency = 0.0
    public var veil = 0.0
    /// Median noise-corrected edge width over textured tiles (analysis pixels).
    public var softness = 0.0
    /// ln(90th / 10th percentile) of tile edge widths: how unevenly sharp the frame is.
    public var widthSpread = 0.0
    /// Share of textured tiles at least 1.8× softer than the median of their textured
    /// neighbours: blur in patches (drops, a fingerprint), not in whole regions.
    public var softIslands = 0.0
    /// 5th percentile over structured tiles of darkest (darkest channel) over brightest tones
    /// in linear light: a veil of scattered light lifts it everywhere.
    public var veilFraction = 0.0
    /// 5th percentile over the same tiles of luma's darkest tones over the tile's mean, in
    /// linear light: the share of the light a veil scatters, in any colour.
    public var veilShare = 0.0
    /// 90th percentile over 8-pixel blocks of the standard deviation of log₂ luminance.
    public var localContrast = 0.0
    /// The darkest tones just outside the highlights minus those farther off, linear light:
    /// glow a film scatters out of bright sources (0 without highlights to measure).
    public var halo = 0.0
    /// Length of the textured tiles' mean orientation moment: 0 when their directional
    /// energy points every way, 1 when every tile holds lines of one angle.
    public var streakAlignment = 0.0
    /// The angle of those lines, degrees counter-clockwise from horizontal as displayed.
    public var streakAngle = 0.0
    public var evidence = 0.0
    /// Whether the spectral, streak and soft-island fields were measured (`--diagnostics`).
    public var includesDiagnostics = false

    public init() {}

    public init(
        confidence: Double, spectralSlope: Double, slopeSpread: Double, highFrequency: Double, veil: Double, evidence: Double,
        softness: Double, widthSpread: Double, softIslands: Double, veilFraction: Double = 0, veilShare: Double = 0, localContrast: Double = 0,
        halo: Double = 0, streakAlignment: Double = 0, streakAngle: Double = 0
    ) {
        self.confidence = confidence
        self.spectralSlope = spectralSlope
        self.slopeSpread = slopeSpread
        self.highFrequency = highFrequency
        self.veil = veil
        self.evidence = evidence
        self.softness = softness
        self.widthSpread = widthSpread
        self.softIslands = softIslands
        self.veilFraction = veilFraction
        self.veilShare = veilShare
        self.localContrast = localContrast
        self.halo = halo
        self.streakAlignment = streakAlignment
        self.streakAngle = streakAngle
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that something on the lens obscures the image: 0 clean, 1 smudged", units: "probability", range: 0...1),
        .number("spectralSlope", \.spectralSlope, "median log-log slope of tile power spectra", units: "slope", range: -8...0).diagnostic,
        .number("slopeSpread", \.slopeSpread, "interquartile range of tile slopes (unevenness across the frame)", units: "slope", range: 0...8).diagnostic,
        .number("highFrequency", \.highFrequency, "median share of spectral power above 1/8 cycle per pixel", units: "fraction", range: 0...1).diagnostic,
        .number("veil", \.veil, "darkest tones' lift above black (2nd percentile of the darkest channel), 0–1", units: "fraction", range: 0...1),
        .number("softness", \.softness, "median noise-corrected edge width over textured tiles", units: "px", range: 0...64),
        .number("widthSpread", \.widthSpread, "ln(90th / 10th percentile) of tile edge widths", units: "ln ratio", range: 0...8),
        .number("softIslands", \.softIslands, "share of textured tiles 1.8× softer than their neighbours", units: "fraction", range: 0...1).diagnostic,
        .number("veilFraction", \.veilFraction, "5th percentile over structured 32-px tiles (fine detail, not smooth gradients) of darkest (2nd percentile of the darkest channel) over brightest (98th of luma) tones, in linear light", units: "fraction", range: 0...1),
        .number("veilShare", \.veilShare, "5th percentile over the same tiles of luma's darkest tones (2nd percentile) over the tile's mean, in linear light: the share of the light scattered", units: "fraction", range: 0...1),
        .number("localContrast", \.localContrast, "90th percentile over 8-px blocks of the standard deviation of log2 luminance", units: "stops", range: 0...8),
        .number("halo", \.halo, "5th percentile of the darkest channel 1-3% of the long side from the highlights (luma >= 245) minus that 6-15% away, in linear light; 0 without highlights (under 0.1% or over half the frame)", units: "fraction", range: -1...1),
        .number("streakAlignment", \.streakAlignment, "length of the textured tiles' mean doubled-angle moment of mid-band spectral power: 0 directions everywhere, 1 one line angle across the frame (streaks; also motion blur and one-direction scenes)", units: "fraction", range: 0...1).diagnostic,
        .number("streakAngle", \.streakAngle, "angle of those lines, counter-clockwise from horizontal as displayed", units: "degrees", range: 0...180).diagnostic,
        .number("evidence", \.evidence, "log-odds of a smudge from veilFraction and veilShare, before mapping", units: "log-odds", range: -100...100),
    ]
}
