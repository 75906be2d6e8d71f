import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageKernels

/// Sizes chosen to break vector code: 1…3, around the 8- and 16-lane widths, odd rectangles.
let breakingWidths = [1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 18, 19, 31, 33, 63, 65, 100]
let seeds: [UInt64] = [1, 2, 3]

@Suite("Stencils: SIMD against scalar, and against known answers")
struct StencilTests {
    @Test(arguments: Stencil.allCases)
    func rowsMatchExactly(_ stencil: Stencil) {
        for width in breakingWidths where width >= 3 {
            for seed in seeds {
                let plane = PixelBuffer<UInt8>.random(width: width, height: 3, seed: seed)
                var scalar = [Int16](repeating: 0, count: width - 2), simd = scalar
                plane.withUnsafeBufferPointer { p in
                    let base = p.baseAddress!
                    scalar.withUnsafeMutableBufferPointer {
                        stencil.row(above: base, center: base + width, below: base + 2 * width, width: width, into: $0.baseAddress!, implementation: .scalar)
                    }
                    simd.withUnsafeMutableBufferPointer {
                        stencil.row(above: base, center: base + width, below: base + 2 * width, width: width, into: $0.baseAddress!, implementation: .simd)
                    }
                }
                #expect(scalar == simd, "\(stencil) width \(width) seed \(seed)")
            }
        }
    }

    @Test(arguments: Stencil.allCases)
    func tileMomentsMatchExactly(_ stencil: Stencil) {
        for (width, height) in [(1, 1), (3, 3), (17, 5), (33, 19), (65, 31), (100, 7)] {
            for tileSize in [1, 4, 16, 64] {
                let plane = PixelBuffer<UInt8>.random(width: width, height: height, seed: UInt64(width * 131 + height))
                let scalar = stencil.tileMoments(plane, tileSize: tileSize, implementation: .scalar)
                let simd = stencil.tileMoments(plane, tileSize: tileSize, implementation: .simd)
                #expect(scalar == simd, "\(stencil) \(width)×\(height) tiles \(tileSize)")
                #expect(scalar.total.count == Int64(max(0, width - 2) * max(0, height - 2)))
            }
        }
    }

    @Test func naiveLaplacianOracle() {
        let plane = PixelBuffer<UInt8>.random(width: 41, height: 29, seed: 9)
        let grid = Stencil.laplacian.tileMoments(plane, tileSize: 1000)
        var sum: Int64 = 0, squares: Int64 = 0
        for y in 1..<28 {
            for x in 1..<40 {
                let v = Int64(plane[x, y - 1]) + Int64(plane[x, y + 1]) + Int64(plane[x - 1, y]) + Int64(plane[x + 1, y]) - 4 * Int64(plane[x, y])
                sum += v
                squares += v * v
            }
        }
        #expect(grid.total.sum == sum)
        #expect(grid.total.sumOfSquares == squares)
    }

    @Test func flatFieldsAndRampsHaveNoLaplacian() {
        let flat = PixelBuffer<UInt8>.make(width: 50, height: 40) { _, _ in 117 }
        #expect(Stencil.laplacian.tileMoments(flat, tileSize: 16).total.sumOfSquares == 0)
        let ramp = PixelBuffer<UInt8>.make(width: 50, height: 40) { x, y in Double(2 * x + 3 * y) }
        #expect(Stencil.laplacian.tileMoments(ramp, tileSize: 16).total.sumOfSquares == 0)
        // x²/8 has second difference 1/4 per axis; integer rounding makes it 0 or 1 in x:
        let parabola = PixelBuffer<UInt8>.make(width: 40, height: 10) { x, _ in Double(x * x) / 8 }
        let mean = Stencil.laplacian.tileMoments(parabola, tileSize: 64).total.mean
        #expect(abs(mean - 0.25) < 0.05)
    }

    @Test func noiseMaskCancelsSmoothSurfaces() {
        let surface = PixelBuffer<UInt8>.make(width: 30, height: 30) { x, y in Double(x * 3 + y * 2) }
        #expect(Stencil.noise.tileMoments(surface, tileSize: 8).total.sumOfAbsolutes == 0)
        let product = PixelBuffer<UInt8>.make(width: 16, height: 16) { x, y in Double(x * y) }
        #expect(Stencil.noise.tileMoments(product, tileSize: 8).total.sumOfAbsolutes == 0)
    }

    @Test func noiseMaskEstimatesGaussianSigma() {
        // Immerkær: σ ≈ √(π/2)/6 · mean|mask| on a flat field with Gaussian noise of σ = 8.
        var generator = SeededGenerator(seed: 42)
        let plane = PixelBuffer<UInt8>.make(width: 256, height: 256) { _, _ in
            let u1 = Double.random(in: 1e-12..<1, using: &generator), u2 = Double.random(in: 0..<1, using: &generator)
            return 128 + 8 * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        let sigma = (Double.pi / 2).squareRoot() / 6 * Stencil.noise.tileMoments(plane, tileSize: 256).total.meanAbsolute
        #expect(abs(sigma - 8) < 0.5, "estimated σ \(sigma)")
    }

    @Test func blockMomentsMatchAndAreRight() {
        let plane = PixelBuffer<UInt8>.random(width: 37, height: 29, seed: 4)
        plane.withUnsafeBufferPointer { pixels in
            for (x, y) in [(0, 0), (5, 3), (29, 21)] {
                let origin = y * plane.rowStride + x
                let simd = BlockMoments(pixels, origin: origin, stride: plane.rowStride, block: 8, implementation: .simd)
                #expect(simd == BlockMoments(pixels, origin: origin, stride: plane.rowStride, block: 8, implementation: .scalar), "at \(x), \(y)")
                var samples: [Int] = []
                for row in 0..<8 { for column in 0..<8 { samples.append(Int(plane[x + column, y + row])) } }
                let squares = samples.map { $0 * $0 }.reduce(0, +)
                #expect(simd.sum == samples.reduce(0, +) && simd.squares == squares)
                #expect(simd.low == samples.min()! && simd.high == samples.max()!)
            }
        }
        // A block of 4 × 4 samples 0, 1, …, 15 in rows 5 apart.
        let ramp: [UInt8] = (0..<20).map { (index: Int) -> UInt8 in
            let (row, column) = (index / 5, index % 5)
            return column < 4 ? UInt8(row * 4 + column) : 255
        }
        ramp.withUnsafeBufferPointer { pixels in
            #expect(BlockMoments(pixels, origin: 0, stride: 5, block: 4) == BlockMoments(sum: 120, squares: 1240, low: 0, high: 15))
        }
    }

    @Test func planeMomentsMatchAndAreRight() {
        let plane = PixelBuffer<UInt8>.random(width: 37, height: 23, seed: 5)
        let scalar = planeTileMoments(plane, tileSize: 8, implementation: .scalar)
        #expect(scalar == planeTileMoments(plane, tileSize: 8, implementation: .simd))
        #expect(scalar.total.sum == plane.samples.reduce(0) { $0 + Int64($1) })
        #expect(scalar.columns == 5 && scalar.rows == 3)
    }
}

@Suite("Histogram, downscaling, colourfulness")
struct StatisticsKernelTests {
    @Test func histogramMatchesAndCounts() {
        for width in breakingWidths {
            for seed in seeds {
                let plane = PixelBuffer<UInt8>.random(width: width, height: 5, seed: seed)
                let scalar = Histogram(plane, implementation: .scalar)
                #expect(scalar == Histogram(plane, implementation: .simd))
                #expect(scalar.total == width * 5)
            }
        }
    }

    @Test func histogramOfARectangleCountsItsSamplesClipped() {
        // A 6 × 4 plane whose sample at (x, y) is 10·y + x.
        var plane = PixelBuffer<UInt8>(width: 6, height: 4)
        for y in 0..<4 { for x in 0..<6 { plane[x, y] = UInt8(10 * y + x) } }
        let inside = Histogram(plane, in: PixelRect(x: 1, y: 2, width: 3, height: 2))
        #expect(inside.total == 6)
        #expect([21, 22, 23, 31, 32, 33].allSatisfy { inside.counts[$0] == 1 })
        // Clipped at the plane's right and bottom edges, and at its left and top.
        let corner = Histogram(plane, in: PixelRect(x: 4, y: 3, width: 5, height: 5))
        #expect(corner.total == 2 && corner.counts[34] == 1 && corner.counts[35] == 1)
        #expect(Histogram(plane, in: PixelRect(x: -2, y: -1, width: 3, height: 2)).total == 1)
        #expect(Histogram(plane, in: PixelRect(x: 6, y: 0, width: 2, height: 2)).total == 0)
        #expect(Histogram(plane, in: PixelRect(x: 0, y: 0, width: 6, height: 4)) == Histogram(plane))
    }

    @Test func percentilesOfAKnownHistogram() {
        var counts = [Int](repeating: 0, count: 256)
        counts[10] = 25; counts[100] = 50; counts[250] = 25
        let histogram = Histogram(counts: counts)
        #expect(histogram.percentile(0.01) == 10)
        #expect(histogram.percentile(0.25) == 10)
        #expect(histogram.percentile(0.26) == 100)
        #expect(histogram.percentile(0.75) == 100)
        #expect(histogram.percentile(0.76) == 250)
        #expect(histogram.fraction(atOrAbove: 250) == 0.25)
        #expect(histogram.fraction(atOrBelow: 10) == 0.25)
        let expectedMean: Double = (10.0 * 25 + 100.0 * 50 + 250.0 * 25) / 100
        #expect(histogram.mean == expectedMean)
    }

    @Test func otsuThresholdSplitsTwoLevelsAtTheDarkerOne() {
        var counts = [Int](repeating: 0, count: 256)
        counts[40] = 300; counts[200] = 700
        #expect(Histogram(counts: counts).otsuThreshold == 40)
        // Three levels: the split leaving the two close dark ones together.
        counts[50] = 300
        #expect(Histogram(counts: counts).otsuThreshold == 50)
        // Nothing to split: one level, or no samples.
        #expect(Histogram(counts: (0..<256).map { $0 == 90 ? 5 : 0 }).otsuThreshold == 127)
        #expect(Histogram(counts: [Int](repeating: 0, count: 256)).otsuThreshold == 127)
    }

    @Test(arguments: [2, 3, 4, 7, 8, 16])
    func downscaleMatchesAndAverages(factor: Int) {
        for width in breakingWidths {
            let plane = PixelBuffer<UInt8>.random(width: width, height: 11, seed: UInt64(width))
            let scalar = AreaDownscale.downscale(plane, by: factor, implementation: .scalar)
            #expect(scalar == AreaDownscale.downscale(plane, by: factor, implementation: .simd))
            #expect(scalar.size == ImageSize(width: (width + factor - 1) / factor, height: (11 + factor - 1) / factor))
            // Oracle: the first block's mean, rounded half up.
            let columns = min(factor, width), rows = min(factor, 11)
            var total = 0
            for y in 0..<rows { for x in 0..<columns { total += Int(plane[x, y]) } }
            #expect(Int(scalar[0, 0]) == (total + columns * rows / 2) / (columns * rows))
        }
    }

    @Test func downscaleFactorForALongSide() {
        #expect(AreaDownscale.factor(for: ImageSize(width: 4032, height: 3024), keepingLongSide: 1024) == 3)
        #expect(AreaDownscale.factor(for: ImageSize(width: 800, height: 600), keepingLongSide: 1024) == 1)
        #expect(AreaDownscale.factor(for: ImageSize(width: 100_000, height: 10), keepingLongSide: 10) == 16)
    }

    @Test func colourfulness() {
        for width in breakingWidths {
            let rgb = PixelBuffer<UInt8>.random(width: width, height: 3, channels: 3, seed: UInt64(width))
            let scalar = Colourfulness(rgb: rgb, implementation: .scalar)
            #expect(scalar == Colourfulness(rgb: rgb, implementation: .simd))
            // Oracle: the formula in Double.
            var rg: [Double] = [], yb: [Double] = []
            for y in 0..<3 {
                for x in 0..<width {
                    let r = Double(rgb[x, y, 0]), g = Double(rgb[x, y, 1]), b = Double(rgb[x, y, 2])
                    rg.append(r - g)
                    yb.append((r + g) / 2 - b)
                }
            }
            func stats(_ v: [Double]) -> (Double, Double) {
                let m = v.reduce(0, +) / Double(v.count)
                return (m, v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count))
            }
            let (mrg, vrg) = stats(rg), (myb, vyb) = stats(yb)
            let expected = (vrg + vyb).squareRoot() + 0.3 * (mrg * mrg + myb * myb).squareRoot()
            #expect(abs(scalar.value - expected) < 1e-9 * max(1, expected))
        }
        let gray = PixelBuffer<UInt8>(width: 9, height: 9, channels: 3)
        #expect(Colourfulness(rgb: gray).value == 0)
    }
}

@Suite("FFT")
struct FFTTests {
    /// O(n²) DFT in Double: the independent oracle.
    func dft(_ re: [Double], _ im: [Double]) -> ([Double], [Double]) {
        let n = re.count
        var outRe = [Double](repeating: 0, count: n), outIm = outRe
        for k in 0..<n {
            for t in 0..<n {
                let angle = -2 * Double.pi * Double(k * t) / Double(n)
                outRe[k] += re[t] * cos(angle) - im[t] * sin(angle)
                outIm[k] += re[t] * sin(angle) + im[t] * cos(angle)
            }
        }
        return (outRe, outIm)
    }

    @Test(arguments: [2, 4, 8, 16, 32, 64])
    func oneDimensionalAgainstDFT(size: Int) {
        var generator = SeededGenerator(seed: UInt64(size))
        let re = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        let im = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        var fre = re, fim = im
        let fft = FFT(size: size)
        fre.withUnsafeMutableBufferPointer { r in fim.withUnsafeMutableBufferPointer { m in fft.transform(real: r.baseAddress!, imaginary: m.baseAddress!) } }
        let (ore, oim) = dft(re.map(Double.init), im.map(Double.init))
        for k in 0..<size {
            #expect(abs(Double(fre[k]) - ore[k]) < 1e-4 * Double(size))
            #expect(abs(Double(fim[k]) - oim[k]) < 1e-4 * Double(size))
        }
    }

    @Test(arguments: [2, 4, 8, 16, 64])
    func twoDimensionalSIMDMatchesScalarAndDFT(size: Int) {
        var generator = SeededGenerator(seed: 77)
        let re = (0..<(size * size)).map { _ in Float.random(in: 0...255, using: &generator) }
        let im = [Float](repeating: 0, count: size * size)
        let fft = FFT(size: size)
        var sRe = re, sIm = im, vRe = re, vIm = im
        fft.transform2D(real: &sRe, imaginary: &sIm, implementation: .scalar)
        fft.transform2D(real: &vRe, imaginary: &vIm, implementation: .simd)
        // The same operations per lane: identical bits.
        #expect(sRe == vRe && sIm == vIm)
        // Separable oracle on one output: DFT of rows, then of columns.
        var rowsRe = [[Double]](), rowsIm = [[Double]]()
        for y in 0..<size {
            let (r, m) = dft((0..<size).map { Double(re[y * size + $0]) }, [Double](repeating: 0, count: size))
            rowsRe.append(r)
            rowsIm.append(m)
        }
        let column = min(1, size - 1)
        let (cRe, cIm) = dft(rowsRe.map { $0[column] }, rowsIm.map { $0[column] })
        for k in 0..<size {
            #expect(abs(Double(sRe[k * size + column]) - cRe[k]) < 1e-3 * Double(size * size))
            #expect(abs(Double(sIm[k * size + column]) - cIm[k]) < 1e-3 * Double(size * size))
        }
    }

    @Test(arguments: [1, 5, 8])
    func eightTilesInLanesMatchOneTileAtATime(tiles: Int) {
        let size = 64
        var generator = SeededGenerator(seed: 91)
        let inputs = (0..<tiles).map { _ in (0..<(size * size)).map { _ in Float.random(in: -128...128, using: &generator) } }
        var re = [SIMD8<Float>](repeating: .zero, count: size * size), im = re
        for (lane, tile) in inputs.enumerated() { for i in 0..<(size * size) { re[i][lane] = tile[i] } }
        let fft = FFT(size: size)
        re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { m in fft.transform2D(lanes: r.baseAddress!, m.baseAddress!) } }
        for (lane, tile) in inputs.enumerated() {
            var sRe = tile, sIm = [Float](repeating: 0, count: size * size)
            fft.transform2D(real: &sRe, imaginary: &sIm, implementation: .scalar)
            // The same butterflies in the same order: identical bits.
            #expect(sRe == re.map { $0[lane] } && sIm == im.map { $0[lane] })
        }
        // Unused lanes stay zero.
        for lane in tiles..<8 { #expect(re.allSatisfy { $0[lane] == 0 } && im.allSatisfy { $0[lane] == 0 }) }
    }

    @Test func impulseHasAFlatSpectrum() {
        let fft = FFT(size: 16)
        var re = [Float](repeating: 0, count: 256), im = re
        re[0] = 1
        fft.transform2D(real: &re, imaginary: &im)
        #expect(re.allSatisfy { abs($0 - 1) < 1e-6 } && im.allSatisfy { abs($0) < 1e-6 })
    }
}

@Suite("Area resampling")
struct AreaResampleTests {
    @Test func simdMatchesScalarExactly() {
        for width in breakingWidths where width >= 2 {
            let plane = PixelBuffer<UInt8>.random(width: width, height: 13, seed: UInt64(width))
            for target in [ImageSize(width: max(1, width / 2), height: 6), ImageSize(width: max(1, width * 2 / 3), height: 13), ImageSize(width: 1, height: 1)] {
                #expect(AreaResample.resize(plane, to: target, implementation: .scalar) == AreaResample.resize(plane, to: target, implementation: .simd))
            }
        }
    }

    @Test func halvesRoundUpAndTheTopSaturatesInBothImplementations() {
        // Pairs averaging to k + 0.5 round up to k + 1, in every lane of the vector rounding.
        let values = (0..<64).flatMap { k -> [UInt8] in [UInt8(2 * k), UInt8(2 * k + 1)] } + [UInt8](repeating: 255, count: 16)
        let plane = PixelBuffer<UInt8>(width: values.count, height: 1, samples: values)
        let target = ImageSize(width: values.count / 2, height: 1)
        let expected = (0..<64).map { UInt8(2 * $0 + 1) } + [UInt8](repeating: 255, count: 8)
        for implementation in KernelImplementation.allCases {
            #expect(AreaResample.resize(plane, to: target, implementation: implementation).samples == expected)
        }
    }

    @Test func aBandOfRowsHasTheWholeResizesBitsAndZeroElsewhere() {
        let plane = PixelBuffer<UInt8>.random(width: 301, height: 203, seed: 11)
        let target = ImageSize(width: 187, height: 129)
        for implementation in KernelImplementation.allCases {
            let whole = AreaResample.resize(plane, to: target, implementation: implementation)
            for rows in [37..<52, 0..<1, 128..<129, 0..<129] {
                let band = AreaResample.resize(plane, to: target, rows: rows, implementation: implementation)
                #expect(band.size == target)
                for y in 0..<target.height {
                    let row = (0..<target.width).map { band[$0, y] }
                    #expect(row == (rows.contains(y) ? (0..<target.width).map { whole[$0, y] } : [UInt8](repeating: 0, count: target.width)))
                }
            }
        }
    }

    @Test func integerFactorsAgreeWithBoxDownscale() {
        let plane = PixelBuffer<UInt8>.random(width: 64, height: 48, seed: 3)
        let resampled = AreaResample.resize(plane, to: ImageSize(width: 16, height: 12))
        let boxed = AreaDownscale.downscale(plane, by: 4)
        for (a, b) in zip(resampled.samples, boxed.samples) { #expect(abs(Int(a) - Int(b)) <= 1) }
    }

    @Test func preservesTheMeanAndFlatFields() {
        let flat = PixelBuffer<UInt8>.make(width: 97, height: 61) { _, _ in 201 }
        #expect(AreaResample.resize(flat, to: ImageSize(width: 40, height: 25)).samples.allSatisfy { $0 == 201 })
        let plane = PixelBuffer<UInt8>.random(width: 300, height: 200, seed: 8)
        let small = AreaResample.resize(plane, to: ImageSize(width: 70, height: 47))
        let mean = { (b: PixelBuffer<UInt8>) in Double(b.samples.reduce(0) { $0 + Int($1) }) / Double(b.samples.count) }
        #expect(abs(mean(plane) - mean(small)) < 0.5)
    }

    @Test func interleavedChannelsComeOutAsTheyWouldAlone() {
        var rgb = PixelBuffer<UInt8>(width: 301, height: 203, channels: 3)
        for y in 0..<rgb.height {
            for x in 0..<rgb.width { for c in 0..<3 { rgb[x, y, c] = UInt8(truncatingIfNeeded: (x * 7 + y * 13) * (c + 1) ^ (x * y)) } }
        }
        for target in [ImageSize(width: 154, height: 104), ImageSize(width: 100, height: 203), ImageSize(width: 1, height: 1)] {
            let together = AreaResample.resize(interleaved: rgb, to: target)
            #expect(together.channels == 3 && together.size == target)
            for c in 0..<3 {
                let plane = PixelBuffer<UInt8>.make(width: rgb.width, height: rgb.height) { x, y in Double(rgb[x, y, c]) }
                let alone = AreaResample.resize(plane, to: target)
                #expect((0..<target.height).allSatisfy { y in (0..<target.width).allSatisfy { x in together[x, y, c] == alone[x, y] } }, "channel \(c) at \(target)")
            }
        }
    }

    @Test func fittingSizes() {
        #expect(AreaResample.size(fitting: ImageSize(width: 4032, height: 3024), longSide: 1024) == ImageSize(width: 1024, height: 768))
        #expect(AreaResample.size(fitting: ImageSize(width: 500, height: 300), longSide: 1024) == ImageSize(width: 500, height: 300))
    }
}

/// Sizes that cross each SIMD kernel's accumulator flush (Int32 lanes emptied into Int64
/// before they could overflow) and leave a tail, filled with the values that grow the
/// accumulators fastest: scalar and SIMD must still agree exactly, and with a direct sum.
@Suite("Accumulator flushes and tails")
struct FlushBoundaryTests {
    /// A plane of 0 and 255 in a checkerboard: the largest stencil responses of either sign.
    static func checkerboard(width: Int, height: Int) -> PixelBuffer<UInt8> {
        PixelBuffer(width: width, height: height, samples: (0..<(width * height)).map { ($0 % width + $0 / width) % 2 == 0 ? 0 : 255 })
    }

    @Test(arguments: Stencil.allCases)
    func stencilMomentsAcrossTheSixtyFourVectorFlush(_ stencil: Stencil) {
        // One tile per row holds 512 values per flush: widths around 1, 2 and 3 flushes, plus a tail.
        for width in [514, 515, 1026, 1027, 1545, 1600] {
            let plane = Self.checkerboard(width: width, height: 4)
            let scalar = stencil.tileMoments(plane, tileSize: 4096, implementation: .scalar)
            let simd = stencil.tileMoments(plane, tileSize: 4096, implementation: .simd)
            #expect(scalar == simd, "\(stencil) width \(width)")
            #expect(scalar.total.count == Int64((width - 2) * 2))
        }
    }

    @Test func laplacianOfACheckerboardIsItsLargestValueEverywhere() {
        // Every inner pixel's Laplacian is ±4·255, so the sums are known exactly. A 20 000-px
        // row (2 500 vectors a lane) would overflow Int32 lanes that were never flushed.
        for width in [1600, 20_000] {
            let plane = Self.checkerboard(width: width, height: 5)
            let moments = Stencil.laplacian.tileMoments(plane, tileSize: 32768, implementation: .simd).total
            let inner = Int64((width - 2) * 3)
            #expect(moments.sumOfSquares == inner * 1020 * 1020 && moments.sumOfAbsolutes == inner * 1020, "width \(width)")
        }
    }

    @Test func histogramAcrossTheRowFlush() {
        // Counters are flushed every 4 096 rows.
        for height in [4095, 4096, 4097, 8193] {
            let plane = PixelBuffer<UInt8>(width: 5, height: height, samples: (0..<(5 * height)).map { UInt8($0 % 7 == 0 ? 255 : 0) })
            let scalar = Histogram(plane, implementation: .scalar)
            #expect(scalar == Histogram(plane, implementation: .simd), "height \(height)")
            #expect(scalar.counts[255] == (0..<(5 * height)).filter { $0 % 7 == 0 }.count && scalar.total == 5 * height)
        }
    }

    @Test func colourfulnessAcrossTheVectorFlush() {
        // Lanes are flushed every 1 024 vectors of 8 pixels; pure red and blue give the largest |rg| and |yb|.
        // 70 003 px (8 750 vectors) would overflow unflushed Int32 lanes of squares.
        for width in [8 * 1024 + 3, 8 * 1024 + 11, 8 * 2048 + 10, 8 * 2048 + 19, 70_003] {
            let samples: [UInt8] = (0..<width).flatMap { $0 % 2 == 0 ? [255, 0, 0] as [UInt8] : [0, 0, 255] }
            let rgb = PixelBuffer<UInt8>(width: width, height: 2, channels: 3, samples: samples + samples)
            let scalar = Colourfulness(rgb: rgb, implementation: .scalar)
            #expect(scalar == Colourfulness(rgb: rgb, implementation: .simd), "width \(width)")
            let reds = Int64((width + 1) / 2) * 2, blues = Int64(width / 2) * 2
            #expect(scalar.sumRG == reds * 255 && scalar.sumRG2 == reds * 255 * 255)
            #expect(scalar.sumYB2x == reds * 255 - blues * 510 && scalar.sumYB2x2 == reds * 255 * 255 + blues * 510 * 510)
        }
    }
}

@Suite("Lane helpers against the standard library")
struct LaneHelperTests {
    /// `minimum` and `magnitudes` give what `pointwiseMin` and `abs` give, over pixel values
    /// and the sums and differences the kernels feed them.
    @Test func minimumAndMagnitudesMatchTheirDefinitions() {
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<1_000 {
            let a = SIMD8<Int32>((0..<8).map { _ in Int32(generator.next() % 4_591) - 2_295 })
            let b = SIMD8<Int32>((0..<8).map { _ in Int32(generator.next() % 4_591) - 2_295 })
            #expect(SIMD8<Int32>.minimum(a, b) == pointwiseMin(a, b))
            #expect(a.magnitudes == SIMD8<Int32>((0..<8).map { abs(a[$0]) }))
        }
    }
}
