import ImageKernels
import ImagingCore

/// The per-tile measurements of one analysis image, computed once and shared by the
/// blur, smudge and aesthetics detectors: tile moments, noise, and the noise-corrected
/// edge widths of the textured tiles with their per-direction energy totals.
///
/// For an edge blurred by a Gaussian of σ pixels, the mean squared gradient over the
/// mean squared second derivative is 2σ², whatever the edge's contrast. Per
/// `tileSize`-pixel tile and per direction (x, y and both diagonals),
/// `width = √(E(∂I)² / E(∂²I)²)` is therefore a contrast-free edge width in pixels; a
/// tile's width is the widest of its directions carrying at least a twelfth of its
/// gradient energy, so blur along one direction (motion) shows. Both energies are first
/// corrected for noise (Immerkær's estimate plus 8-bit quantisation), which otherwise
/// makes soft images look sharp.
///
/// Cost: nine 3×3 stencil passes over the analysis image.
public struct TileAnalysis: Sendable {
    /// The tile side, in analysis pixels.
    public static let tileSize = 32
    /// Tiles flatter than this (luma standard deviation, 8-bit) carry no edge evidence.
    public static let textureThreshold = 6.0

    /// Luma moments per tile, and over the whole plane.
    public var values: TileGrid
    /// Edge widths of the textured tiles, sorted ascending (analysis pixels, at most 64).
    public var widths: [Double] = []
    /// Width per tile in grid order, −1 where the tile has too little texture.
    public var grid: [Double] = []
    /// Gradient and second-derivative energy per unit length, summed over textured
    /// tiles, for x, y, the diagonal and the anti-diagonal.
    public var gradient = [Double](repeating: 0, count: 4)
    public var second = [Double](repeating: 0, count: 4)
    /// Immerkær's noise σ over the flattest quarter of tiles (8-bit levels).
    public var noiseSigma = 0.0
    /// Raw squared central differences along x and y summed per tile (every tile), in grid order.
    public var gradientEnergy: [Double] = []
    /// Per direction (x, y, the diagonal, the anti-diagonal), the edge spread of every
    /// textured tile, sorted ascending (analysis pixels, at most 64): the tile's standard
    /// deviation over its typical steep gradient along that direction, E(∂I)² / E|∂I|, both
    /// corrected for noise. A step of contrast C blurred over a ramp of L pixels has a typical
    /// gradient C/L, so the spread grows with L; unlike the edge width, it grows as much when
    /// the blur is a few sharp copies (a shake that dwells), since the copies share the step's
    /// contrast while each keeps only its share of the gradient.
    public var spreads: [[Double]] = Array(repeating: [], count: 4)

    /// σ² plus 8-bit quantisation's 1/12: the noise variance per pixel.
    public var noiseVariance: Double { noiseSigma * noiseSigma + 1.0 / 12 }

    /// The four directions: gradient and second-difference stencils, and the squared
    /// step length (1 along the axes, 2 along the diagonals) that turns raw differences
    /// into per-pixel derivatives.
    static let directions: [(gradient: Stencil, second: Stencil, step: Double)] = [
        (.gradientX, .secondX, 1), (.gradientY, .secondY, 1),
        (.gradientDiagonal, .secondDiagonal, 2), (.gradientAntidiagonal, .secondAntidiagonal, 2),
    ]

    /// Measures every tile of `plane`.
    public init(_ plane: PixelBuffer<UInt8>) {
        let t = Self.tileSize
        values = planeTileMoments(plane, tileSize: t)
        let gradients = Self.directions.map { $0.gradient.tileMoments(plane, tileSize: t) }
        let seconds = Self.directions.map { $0.second.tileMoments(plane, tileSize: t) }
        // Noise adds to both energies and dominates the second derivative of soft images:
        // estimate it and subtract its share from each. A central difference carries 2σ²
        // of noise, a second difference 6σ² (before scaling by the step).
        noiseSigma = Self.noiseSigma(plane, values: values)
        let noiseVariance = self.noiseVariance
        let tiles = values.tiles
        grid = Array(repeating: -1, count: tiles.count)
        gradientEnergy = tiles.indices.map {
            Double(gradients[0].tiles[$0].sumOfSquares + gradients[1].tiles[$0].sumOfSquares)
        }
        for i in 0..<tiles.count where tiles[i].standardDeviation >= Self.textureThreshold {
            var energy = [Double](repeating: 0, count: 4), curvature = [Double](repeating: 0, count: 4)
            for (d, direction) in Self.directions.enumerated() {
                let count = Double(max(1, gradients[d].tiles[i].count))
                spreads[d].append(Self.spread(gradients[d].tiles[i], step: direction.step, noiseVariance: noiseVariance, deviation: tiles[i].standardDeviation))
                // (difference / (2·step))² per pixel, and (second / step²)².
                energy[d] = max(0, (Double(gradients[d].tiles[i].sumOfSquares) / count - 2 * noiseVariance) / (4 * direction.step))
                curvature[d] = max(1e-3, (Double(seconds[d].tiles[i].sumOfSquares) / count - 6 * noiseVariance) / (direction.step * direction.step))
                gradient[d] += energy[d]
                second[d] += curvature[d]
            }
            // The widest direction carrying at least a twelfth of the gradient energy, so
            // blur along one direction is not hidden by sharp edges across it.
            let total = energy.reduce(0, +)
            guard total > 0 else { continue }
            var width = 0.0
            for d in 0..<4 where energy[d] >= total / 12 {
                width = max(width, (energy[d] / curvature[d]).squareRoot())
            }
            widths.append(min(64, width))
            grid[i] = min(64, width)
        }
        widths.sort()
        for d in spreads.indices { spreads[d].sort() }
    }

    /// The edge spread of one tile along one direction: `deviation` over E(∂I)² / E|∂I|, in
    /// pixels, from the raw central differences' moments (a difference over 2·√`step` pixels).
    /// Noise of variance σ² gives a raw difference variance 2σ² and, Gaussian, a mean absolute
    /// value √(2 · 2σ² / π); both are taken out, the second in quadrature.
    static func spread(_ moments: Moments, step: Double, noiseVariance: Double, deviation: Double) -> Double {
        let count = Double(max(1, moments.count))
        let squares = Double(moments.sumOfSquares) / count - 2 * noiseVariance
        let absolute = Double(moments.sumOfAbsolutes) / count
        let noiseAbsolute = 4 * noiseVariance / Double.pi
        let signal = (max(0, absolute * absolute - noiseAbsolute)).squareRoot()
        guard squares > 1e-6, signal > 0 else { return 64 }
        // Per pixel: |∂I| = |difference| / (2·√step), so E(∂I)²/E|∂I| = (E d² / E|d|) / (2·√step).
        let typical = squares / signal / (2 * step.squareRoot())
        return min(64, deviation / typical)
    }

    /// Immerkær's noise σ (8-bit levels) over the flattest quarter of tiles, where texture does not leak in.
    static func noiseSigma(_ plane: PixelBuffer<UInt8>, values: TileGrid) -> Double {
        let noise = Stencil.noise.tileMoments(plane, tileSize: values.tileSize)
        let order = values.tiles.indices.sorted { values.tiles[$0].standardDeviation < values.tiles[$1].standardDeviation }
        let flattest = order.prefix(max(1, order.count / 4)).reduce(Moments()) { $0 + noise.tiles[$1] }
        return (Double.pi / 2).squareRoot() / 6 * flattest.meanAbsolute
    }
}

/// `percentile(_:_:)` of `values` sorted, found by selection instead of a sort (the two order
/// statistics it reads are exact, so the value is the same); `values` is left reordered.
/// - Precondition: no NaN among `values`.
func percentile(selecting values: inout [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let position = fraction * Double(values.count - 1)
    let low = Int(position.rounded(.down)), high = min(values.count - 1, low + 1)
    let weight = position - Double(low)
    return values.withUnsafeMutableBufferPointer { v in
        select(low, in: v)
        // Everything after `low` is at least v[low]: the next order statistic is their least.
        var next = v[low]
        if high > low {
            next = v[high]
            for i in (high + 1)..<v.count where v[i] < next { next = v[i] }
        }
        return v[low] * (1 - weight) + next * weight
    }
}

/// Reorders `v` so that `v[k]` holds the value a sort would put there, with no larger value
/// before it and no smaller one after it (quickselect, median-of-three pivots, Hoare partition).
private func select(_ k: Int, in v: UnsafeMutableBufferPointer<Double>) {
    var left = 0, right = v.count - 1
    while right > left {
        let middle = left + (right - left) / 2
        // The median of the first, middle and last as the pivot, left in the middle.
        if v[middle] < v[left] { v.swapAt(middle, left) }
        if v[right] < v[left] { v.swapAt(right, left) }
        if v[right] < v[middle] { v.swapAt(right, middle) }
        let pivot = v[middle]
        var i = left, j = right
        while i <= j {
            while v[i] < pivot { i += 1 }
            while pivot < v[j] { j -= 1 }
            if i <= j {
                v.swapAt(i, j)
                i += 1
                j -= 1
            }
        }
        // Now v[left...j] ≤ pivot ≤ v[i...right], and anything between equals the pivot.
        if k <= j {
            right = j
        } else if k >= i {
            left = i
        } else {
            return
        }
    }
}

/// The value at `fraction` of a sorted array, linearly interpolated.
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let position = fraction * Double(sorted.count - 1)
    let low = Int(position.rounded(.down)), high = min(sorted.count - 1, low + 1)
    let weight = position - Double(low)
    return sorted[low] * (1 - weight) + sorted[high] * weight
}

/// 0 at `from`, 1 at `to`, linear between (either direction).
func ramp(_ value: Double, from: Double, to: Double) -> Double {
    max(0, min(1, (value - from) / (to - from)))
}
