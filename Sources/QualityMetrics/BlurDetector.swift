import ImageKernels
import ImagingCore

/// Defocus and motion blur: how wide edges are where the image is sharpest.
///
/// For an edge blurred by a Gaussian of σ pixels, the mean squared gradient over
/// the mean squared second derivative is 2σ², whatever the edge's contrast. Per
/// 32-pixel tile of the analysis image and per direction (x, y and both diagonals),
/// `width = √(E(∂I)² / E(∂²I)²)` is therefore a contrast-free edge width in pixels; a
/// tile's width is the widest of its directions (those carrying at least a twelfth of
/// its gradient energy), so motion blur along one direction shows. Both energies are first corrected for noise (Immerkær's
/// estimate plus 8-bit quantisation), which otherwise makes soft images look sharp.
/// The detector reports the 10th percentile over tiles with texture (σ ≥ 6 gray
/// levels): where the sharpest detail is, so a sharp subject covering a tenth of the
/// textured frame or more reads as sharp; flat tiles (a wall, sky) give no evidence
/// instead of "blurred".
///
/// Size: measured on the 1 024-pixel analysis image, so the same scene at any
/// resolution gives the same width. Cost: four 3×3 passes over the analysis image.
public struct BlurDetector: Sendable {
    public var mapping: LogisticMapping

    /// Default from calibration: `imgquality calibrate Datasets/blur/labels.csv --detector blur`
    /// (logistic fit on the train split; `Reports/blur/profile.json`): 50% at a 1.44-pixel
    /// edge width on the analysis image.
    public static let defaultMapping = LogisticMapping(midpoint: 1.4356, slope: 12.6434, logarithmic: true)

    public init(mapping: LogisticMapping = BlurDetector.defaultMapping) {
        self.mapping = mapping
    }

    public static let descriptor = MetricDescriptor(
        name: "blur",
        meaning: "confidence that the image is blurred (defocus or motion)",
        direction: "defect",
        fields: [
            .init("edgeWidth", "edge width where the image is sharpest (10th percentile over textured tiles, noise-corrected), analysis pixels", units: "px", range: 0...64),
            .init("edgeWidthMedian", "median edge width over textured tiles", units: "px", range: 0...64),
            .init("texturedFraction", "share of tiles with enough contrast to judge", units: "fraction", range: 0...1),
            .init("motionWidth", "edge width along the most blurred direction when it is 1.5× blurrier than the sharpest (motion), else 0", units: "px", range: 0...64),
            .init("laplacianVariance", "variance of the Laplacian over the variance of luma (contrast-normalised)", units: "ratio", range: 0...100),
        ],
        cost: "8 stencil passes over the 1024-px analysis image",
        caveats: "Fog and deliberate shallow depth of field with no sharp region read as blur; heavy noise reads as sharp.")

    public static let tileSize = 32
    /// Tiles flatter than this (luma standard deviation, 8-bit) carry no edge evidence.
    public static let textureThreshold = 6.0

    /// Immerkær's noise σ (8-bit levels) over the flattest quarter of tiles, where texture does not leak in.
    static func noiseSigma(_ plane: PixelBuffer<UInt8>, values: TileGrid) -> Double {
        let noise = Stencil.noise.tileMoments(plane, tileSize: values.tileSize)
        let order = values.tiles.indices.sorted { values.tiles[$0].standardDeviation < values.tiles[$1].standardDeviation }
        let flattest = order.prefix(max(1, order.count / 4)).reduce(Moments()) { $0 + noise.tiles[$1] }
        return (Double.pi / 2).squareRoot() / 6 * flattest.meanAbsolute
    }

    /// The per-tile measurements of one analysis image, computed once and shared by the
    /// blur, smudge and aesthetics detectors: noise-corrected edge widths of the textured
    /// tiles, the per-direction energy totals, tile moments and noise.
    struct TileWidths {
        var widths: [Double] = []
        /// Gradient and second-derivative energy per unit length, summed over textured
        /// tiles, for x, y, the diagonal and the anti-diagonal.
        var gradient = [Double](repeating: 0, count: 4)
        var second = [Double](repeating: 0, count: 4)
        var tileCount = 0
        var values: TileGrid
        /// Width per tile in grid order, −1 where the tile has too little texture.
        var grid: [Double] = []
        /// Immerkær's noise σ over the flattest quarter of tiles (8-bit levels).
        var noiseSigma = 0.0
        /// σ² plus 8-bit quantisation's 1/12: the noise variance per pixel.
        var noiseVariance: Double { noiseSigma * noiseSigma + 1.0 / 12 }
        /// Raw squared central differences along x and y summed per tile (every tile), in grid order.
        var gradientEnergy: [Double] = []
    }

    /// The four directions: gradient and second-difference stencils, and the squared
    /// step length (1 along the axes, 2 along the diagonals) that turns raw differences
    /// into per-pixel derivatives.
    static let directions: [(gradient: Stencil, second: Stencil, step: Double)] = [
        (.gradientX, .secondX, 1), (.gradientY, .secondY, 1),
        (.gradientDiagonal, .secondDiagonal, 2), (.gradientAntidiagonal, .secondAntidiagonal, 2),
    ]

    static func tileWidths(_ plane: PixelBuffer<UInt8>) -> TileWidths {
        let t = tileSize
        let values = planeTileMoments(plane, tileSize: t)
        let gradients = directions.map { $0.gradient.tileMoments(plane, tileSize: t) }
        let seconds = directions.map { $0.second.tileMoments(plane, tileSize: t) }
        // Noise adds to both energies and dominates the second derivative of soft images:
        // estimate it (Immerkær's mask over the flattest quarter of tiles, plus 8-bit
        // quantisation's 1/12) and subtract its share from each. A central difference
        // carries 2σ² of noise, a second difference 6σ² (before scaling by the step).
        var result = TileWidths(tileCount: values.tiles.count, values: values)
        result.noiseSigma = noiseSigma(plane, values: values)
        let noiseVariance = result.noiseVariance
        result.grid = Array(repeating: -1, count: values.tiles.count)
        result.gradientEnergy = values.tiles.indices.map {
            Double(gradients[0].tiles[$0].sumOfSquares + gradients[1].tiles[$0].sumOfSquares)
        }
        for i in 0..<values.tiles.count where values.tiles[i].standardDeviation >= textureThreshold {
            var energy = [Double](repeating: 0, count: 4), curvature = [Double](repeating: 0, count: 4)
            for (d, direction) in directions.enumerated() {
                let count = Double(max(1, gradients[d].tiles[i].count))
                // (difference / (2·step))² per pixel, and (second / step²)².
                energy[d] = max(0, (Double(gradients[d].tiles[i].sumOfSquares) / count - 2 * noiseVariance) / (4 * direction.step))
                curvature[d] = max(1e-3, (Double(seconds[d].tiles[i].sumOfSquares) / count - 6 * noiseVariance) / (direction.step * direction.step))
                result.gradient[d] += energy[d]
                result.second[d] += curvature[d]
            }
            // Per direction carrying at least a twelfth of the gradient energy; the tile's
            // width is the widest, so blur along one direction (motion) is not hidden by
            // sharp edges across it.
            let total = energy.reduce(0, +)
            guard total > 0 else { continue }
            var width = 0.0
            for d in 0..<4 where energy[d] >= total / 12 {
                width = max(width, (energy[d] / curvature[d]).squareRoot())
            }
            result.widths.append(min(64, width))
            result.grid[i] = min(64, width)
        }
        result.widths.sort()
        return result
    }

    public func analyze(_ image: AnalysisImage) -> BlurObservation {
        analyze(image, tiles: Self.tileWidths(image.luma))
    }

    func analyze(_ image: AnalysisImage, tiles: TileWidths) -> BlurObservation {
        let plane = image.luma
        let values = tiles.values
        let widths = tiles.widths
        // Motion blur along a direction drains that direction's gradient energy, so tiles
        // judge by the others. Over the whole frame, a direction whose edges are 1.5×
        // wider than the sharpest direction's is the direction of motion. It must still
        // carry 0.5% of the gradient energy, below which noise decides its width: long
        // motion leaves the blurred direction 1–2% (4% of the long side along x left
        // 0.5–1.4% on the photographs of Datasets/).
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
public struct BlurObservation: Sendable, Equatable {
    /// 0 = clearly sharp, 1 = clearly blurred.
    public var confidence: Double
    public var edgeWidth: Double
    public var edgeWidthMedian: Double
    public var texturedFraction: Double
    public var laplacianVariance: Double
    /// Edge width along the more blurred axis when the frame is anisotropic (motion), else 0.
    public var motionWidth: Double
}

/// The value at `fraction` of a sorted array, linearly interpolated.
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let position = fraction * Double(sorted.count - 1)
    let low = Int(position.rounded(.down)), high = min(sorted.count - 1, low + 1)
    let weight = position - Double(low)
    return sorted[low] * (1 - weight) + sorted[high] * weight
}
