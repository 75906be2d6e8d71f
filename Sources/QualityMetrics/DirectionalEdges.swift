import ImageKernels
import ImagingCore
import Glibc

/// How soft edges are along the direction where the image has the least gradient
/// energy, and how much softer than along the perpendicular.
///
/// Motion blur smears along one direction: edges across it become ramps as long as the
/// motion, while edges along it stay sharp. A per-tile edge width measured at a fine
/// scale saturates on such ramps (a long ramp has sharp corners), so a page smeared by
/// 12 pixels can look as sharp as one blurred by a 1.8-pixel Gaussian, which reads well.
/// This measure does not saturate:
///
/// 1. The structure tensor of the central-difference gradients, summed over the plane,
///    gives the direction with the least gradient energy (its minor eigenvector): the
///    motion direction, or an arbitrary one when blur is even.
/// 2. The steepest gradients along that direction (99.5th percentile of the gradient
///    projected onto it) against the plane's contrast (99th minus 1st percentile of
///    the levels) give the width of the softest edges, in pixels: a ramp of length L
///    between the two levels measures L; a sharp edge about 2 (the central difference
///    spreads it over two pixels).
/// 3. The same percentile along the perpendicular, over the one along the soft
///    direction, is the anisotropy: about 1 for sharp or evenly blurred text, 2 to 4
///    for text smeared by motion over a third of its line pitch or more.
public struct DirectionalEdges: Sendable, Equatable {
    /// Contrast over the steepest gradient along the soft direction, in the plane's pixels.
    public var softWidth: Double
    /// Steepest gradient along the perpendicular over the steepest along the soft direction (≥ 1).
    public var anisotropy: Double
    /// The soft direction, degrees counter-clockwise from +x with y pointing up, 0…180.
    public var softDirection: Double

    public static let none = DirectionalEdges(softWidth: 0, anisotropy: 1, softDirection: 0)

    /// The soft width of a sharp step: the central difference spreads it over 2 pixels.
    public static let sharpWidth = 2.0

    /// The share of gradient samples above the percentile taken as "steepest".
    static let steepShare = 0.005
    /// Histogram bins per level of gradient.
    static let binsPerLevel = 4.0

    /// Measures `plane`; `histogram` is its level histogram. `.none` for planes under
    /// 3 × 3 pixels or without contrast.
    public static func measure(_ plane: PixelBuffer<UInt8>, histogram: Histogram) -> DirectionalEdges {
        let width = plane.width, height = plane.height
        let contrast = Double(histogram.percentile(0.99) - histogram.percentile(0.01))
        guard width >= 3, height >= 3, contrast > 0 else { return .none }

        // Pass 1: the structure tensor, in doubled gradients (integer sums are exact).
        var xx = 0, xy = 0, yy = 0
        forEachGradientRow(plane) { gx, gy, count in
            // Eight lanes of 32-bit sums, added lane by lane into the row's Int sums every 1 024
            // vectors: a product is at most 510² = 260 100, so a lane stays below 2³¹.
            // Integers, so exact.
            var rowXX = 0, rowXY = 0, rowYY = 0
            var laneXX = SIMD8<Int32>(), laneXY = SIMD8<Int32>(), laneYY = SIMD8<Int32>()
            var i = 0, vectors = 0
            while i + 8 <= count {
                let x = SIMD8<Int32>(widening: UnsafeRawPointer(gx + i).loadUnaligned(as: SIMD8<Int16>.self))
                let y = SIMD8<Int32>(widening: UnsafeRawPointer(gy + i).loadUnaligned(as: SIMD8<Int16>.self))
                laneXX &+= x &* x
                laneXY &+= x &* y
                laneYY &+= y &* y
                i += 8
                vectors += 1
                if vectors == 1024 || i + 8 > count {
                    for lane in 0..<8 {
                        rowXX += Int(laneXX[lane])
                        rowXY += Int(laneXY[lane])
                        rowYY += Int(laneYY[lane])
                    }
                    laneXX = SIMD8()
                    laneXY = SIMD8()
                    laneYY = SIMD8()
                    vectors = 0
                }
            }
            while i < count {
                let x = Int(gx[i]), y = Int(gy[i])
                rowXX += x * x
                rowXY += x * y
                rowYY += y * y
                i += 1
            }
            xx += rowXX
            xy += rowXY
            yy += rowYY
        }
        guard xx + yy > 0 else { return .none }
        // The minor eigenvector of [[xx, xy], [xy, yy]]: the major axis is at angle
        // ½·atan2(2xy, xx − yy); the soft direction is perpendicular to it.
        let major = 0.5 * atan2(2 * Double(xy), Double(xx - yy))
        let soft = (cos(major + .pi / 2), sin(major + .pi / 2))
        let strong = (cos(major), sin(major))

        // Pass 2: the steepest gradients projected onto both axes.
        let maximumLevel = 256.0 * 2.0.squareRoot()
        let binCount = Int(maximumLevel * binsPerLevel) + 1
        var softCounts = [Int](repeating: 0, count: binCount)
        var strongCounts = [Int](repeating: 0, count: binCount)
        // Doubled gradients to bins; projections in Float (exact enough for quarter-level bins).
        let toBin = Float(binsPerLevel / 2)
        let softX = Float(soft.0) * toBin, softY = Float(soft.1) * toBin
        let strongX = Float(strong.0) * toBin, strongY = Float(strong.1) * toBin
        let lastBin = binCount - 1
        // Per row, the projections eight pixels at a time (the same Float products and sum
        // per pixel as one at a time), then binned and counted.
        var softRow = [Float](repeating: 0, count: width), strongRow = [Float](repeating: 0, count: width)
        softCounts.withUnsafeMutableBufferPointer { softBins in
            strongCounts.withUnsafeMutableBufferPointer { strongBins in
                softRow.withUnsafeMutableBufferPointer { softProjection in
                    strongRow.withUnsafeMutableBufferPointer { strongProjection in
                        forEachGradientRow(plane) { gx, gy, count in
                            var i = 0
                            while i + 8 <= count {
                                let x = SIMD8<Float>(SIMD8<Int32>(widening: UnsafeRawPointer(gx + i).loadUnaligned(as: SIMD8<Int16>.self)))
                                let y = SIMD8<Float>(SIMD8<Int32>(widening: UnsafeRawPointer(gy + i).loadUnaligned(as: SIMD8<Int16>.self)))
                                UnsafeMutableRawPointer(softProjection.baseAddress! + i).storeBytes(of: x * softX + y * softY, as: SIMD8<Float>.self)
                                UnsafeMutableRawPointer(strongProjection.baseAddress! + i).storeBytes(of: x * strongX + y * strongY, as: SIMD8<Float>.self)
                                i += 8
                            }
                            while i < count {
                                let x = Float(gx[i]), y = Float(gy[i])
                                softProjection[i] = x * softX + y * softY
                                strongProjection[i] = x * strongX + y * strongY
                                i += 1
                            }
                            for i in 0..<count {
                                softBins[min(lastBin, Int(abs(softProjection[i])))] += 1
                                strongBins[min(lastBin, Int(abs(strongProjection[i])))] += 1
                            }
                        }
                    }
                }
            }
        }
        let softSteep = upperPercentile(softCounts, share: steepShare) / binsPerLevel
        let strongSteep = upperPercentile(strongCounts, share: steepShare) / binsPerLevel
        guard softSteep > 0 else { return .none }
        // Image rows run downwards: negate y for an angle counted with y up.
        var degrees = atan2(-soft.1, soft.0) * 180 / .pi
        if degrees < 0 { degrees += 180 }
        if degrees >= 180 { degrees -= 180 }
        return DirectionalEdges(
            softWidth: contrast / softSteep, anisotropy: max(1, strongSteep / softSteep), softDirection: degrees)
    }

    /// The value (in bins, interpolated within the bin) above which `share` of the samples lie.
    static func upperPercentile(_ counts: [Int], share: Double) -> Double {
        let total = counts.reduce(0, +)
        guard total > 0 else { return 0 }
        let target = Double(total) * share
        var above = 0.0
        for bin in stride(from: counts.count - 1, through: 0, by: -1) {
            let count = Double(counts[bin])
            if above + count >= target, count > 0 {
                // Samples spread evenly over the bin [bin, bin + 1).
                return Double(bin) + 1 - (target - above) / count
            }
            above += count
        }
        return 0
    }

    /// Calls `body` with the doubled x and y central differences of each interior row.
    private static func forEachGradientRow(
        _ plane: PixelBuffer<UInt8>, _ body: (UnsafePointer<Int16>, UnsafePointer<Int16>, Int) -> Void
    ) {
        let width = plane.width, height = plane.height, stride = plane.rowStride
        var gx = [Int16](repeating: 0, count: width - 2)
        var gy = [Int16](repeating: 0, count: width - 2)
        plane.withUnsafeBufferPointer { samples in
            let base = samples.baseAddress!
            gx.withUnsafeMutableBufferPointer { gxOut in
                gy.withUnsafeMutableBufferPointer { gyOut in
                    for y in 1..<(height - 1) {
                        let above = base + (y - 1) * stride, center = base + y * stride, below = base + (y + 1) * stride
                        Stencil.gradientX.row(above: above, center: center, below: below, width: width, into: gxOut.baseAddress!)
                        Stencil.gradientY.row(above: above, center: center, below: below, width: width, into: gyOut.baseAddress!)
                        body(UnsafePointer(gxOut.baseAddress!), UnsafePointer(gyOut.baseAddress!), width - 2)
                    }
                }
            }
        }
    }
}
