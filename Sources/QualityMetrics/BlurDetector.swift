import ImageKernels
import ImagingCore

/// Defocus and motion blur: how wide edges are where the image is sharpest.
///
/// For an edge blurred by a Gaussian of σ pixels, the mean squared gradient over
/// the mean squared second derivative is 2σ², whatever the edge's contrast. Per
/// 32-pixel tile of the analysis image and per axis, `width = √(E(∂I)² / E(∂²I)²)` is
/// therefore a contrast-free edge width in pixels; a tile's width is the wider of its
/// two axes (those carrying at least a sixth of its gradient energy), so motion blur
/// along one axis shows. Both energies are first corrected for noise (Immerkær's
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
    /// (logistic fit on the train split; `Reports/blur/profile.json`): 50% at a 1.05-pixel
    /// edge width on the analysis image.
    public static let defaultMapping = LogisticMapping(midpoint: 1.0522, slope: 8.7223, logarithmic: true)

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
            .init("motionWidth", "edge width along the more blurred axis when one axis is 1.5× blurrier (motion), else 0", units: "px", range: 0...64),
            .init("laplacianVariance", "variance of the Laplacian over the variance of luma (contrast-normalised)", units: "ratio", range: 0...100),
        ],
        cost: "4 stencil passes over the 1024-px analysis image",
        caveats: "Fog and deliberate shallow depth of field with no sharp region read as blur; heavy noise reads as sharp.")

    public static let tileSize = 32
    /// Tiles flatter than this (luma standard deviation, 8-bit) carry no edge evidence.
    public static let textureThreshold = 6.0

    /// Noise variance per pixel (8-bit levels²): Immerkær's estimate over the flattest
    /// quarter of tiles, plus the 1/12 of 8-bit quantisation.
    static func noiseVariance(_ plane: PixelBuffer<UInt8>, values: TileGrid) -> Double {
        let noise = Stencil.noise.tileMoments(plane, tileSize: values.tileSize)
        let order = values.tiles.indices.sorted { values.tiles[$0].standardDeviation < values.tiles[$1].standardDeviation }
        let flattest = order.prefix(max(1, order.count / 4)).reduce(Moments()) { $0 + noise.tiles[$1] }
        let sigma = (Double.pi / 2).squareRoot() / 6 * flattest.meanAbsolute
        return sigma * sigma + 1.0 / 12
    }

    /// Noise-corrected edge widths of the textured tiles, and the per-axis energy totals.
    struct TileWidths {
        var widths: [Double] = []
        var gradient = (x: 0.0, y: 0.0)
        var second = (x: 0.0, y: 0.0)
        var tileCount = 0
        var values: TileGrid
        /// Width per tile in grid order, −1 where the tile has too little texture.
        var grid: [Double] = []
    }

    static func tileWidths(_ plane: PixelBuffer<UInt8>) -> TileWidths {
        let t = tileSize
        let values = planeTileMoments(plane, tileSize: t)
        let gx = Stencil.gradientX.tileMoments(plane, tileSize: t), gy = Stencil.gradientY.tileMoments(plane, tileSize: t)
        let sx = Stencil.secondX.tileMoments(plane, tileSize: t), sy = Stencil.secondY.tileMoments(plane, tileSize: t)
        // Noise adds to both energies and dominates the second derivative of soft images:
        // estimate it (Immerkær's mask over the flattest quarter of tiles, plus 8-bit
        // quantisation's 1/12) and subtract its share from each. A central difference
        // carries ½σ² of noise per pixel, a second difference 6σ².
        let noiseVariance = Self.noiseVariance(plane, values: values)
        var result = TileWidths(tileCount: values.tiles.count, values: values)
        result.grid = Array(repeating: -1, count: values.tiles.count)
        for i in 0..<values.tiles.count where values.tiles[i].standardDeviation >= textureThreshold {
            let count = Double(max(1, gx.tiles[i].count))
            let energyX = max(0, Double(gx.tiles[i].sumOfSquares) / 4 / count - noiseVariance / 2)
            let energyY = max(0, Double(gy.tiles[i].sumOfSquares) / 4 / count - noiseVariance / 2)
            let secondX = max(1e-3, Double(sx.tiles[i].sumOfSquares) / count - 6 * noiseVariance)
            let secondY = max(1e-3, Double(sy.tiles[i].sumOfSquares) / count - 6 * noiseVariance)
            result.gradient.x += energyX
            result.gradient.y += energyY
            result.second.x += secondX
            result.second.y += secondY
            // Per direction, where that direction carries at least a sixth of the gradient
            // energy; the tile's width is the wider one, so blur along one axis (motion)
            // is not hidden by sharp edges across it.
            let total = energyX + energyY
            guard total > 0 else { continue }
            var width = 0.0
            for (gradient, second) in [(energyX, secondX), (energyY, secondY)] where gradient >= total / 6 {
                width = max(width, (gradient / second).squareRoot())
            }
            result.widths.append(min(64, width))
            result.grid[i] = min(64, width)
        }
        result.widths.sort()
        return result
    }

    public func analyze(_ image: AnalysisImage) -> BlurObservation {
        let plane = image.luma
        let tiles = Self.tileWidths(plane)
        let values = tiles.values
        let widths = tiles.widths
        let axisGradient = tiles.gradient, axisSecond = tiles.second
        // Motion blur along an axis drains that axis's gradient energy, so tiles judge by the
        // other one. Over the whole frame, an axis whose edges are 1.5× wider than the
        // other's (and still carries 2% of the energy) is the direction of motion.
        var motionWidth = 0.0
        let totalGradient = axisGradient.x + axisGradient.y
        if totalGradient > 0, min(axisGradient.x, axisGradient.y) >= 0.02 * totalGradient {
            let wx = (axisGradient.x / axisSecond.x).squareRoot()
            let wy = (axisGradient.y / axisSecond.y).squareRoot()
            if max(wx, wy) >= 1.5 * min(wx, wy) { motionWidth = min(64, max(wx, wy)) }
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
