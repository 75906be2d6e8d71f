import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// The veil cues against scenes whose answer is known: a veil of scattered light added in
/// linear light, and a blur of the same scene, which is not a veil.
@Suite("Veil cues")
struct VeilTests {
    let width = 512, height = 384

    /// `(1 − a)·scene + a·(its mean)` in linear light: a film scattering a share `a` of the light
    /// evenly over the frame (the widest possible halo).
    func veiled(_ pixels: [Float], strength a: Float) -> [Float] {
        let linear = pixels.map { pow(max(0, min(255, $0)) / 255, 2.2) }
        let mean = linear.reduce(0, +) / Float(linear.count)
        return linear.map { 255 * pow((1 - a) * $0 + a * mean, 1 / 2.2) }
    }

    func veil(_ pixels: [Float]) -> VeilAnalysis {
        VeilAnalysis(AnalysisImage(luma: Scenes.plane(pixels, width: width, height: height), fullSize: ImageSize(width: width, height: height)))
    }

    /// The vectorised loops give the bits of their one-pixel-at-a-time definitions, on random
    /// planes whose sizes leave remainders: which tiles hold structure (mean |4c − n − s − e − w|
    /// of the 2 × 2 block sums), the 90th percentile of the 8 × 8 blocks' log-luminance
    /// deviations, and the darkest channel of RGB.
    @Test func vectorisedLoopsMatchTheirDefinitions() {
        var generator = SeededGenerator(seed: 5)
        for (width, height) in [(100, 70), (257, 129), (64, 64)] {
            // A flat top and a noisy bottom, so some tiles are structured and some are not.
            let samples = (0..<(width * height)).map { i -> UInt8 in
                let noise = UInt8(truncatingIfNeeded: generator.next())
                return i / width < 40 ? 100 : noise
            }
            let luma = PixelBuffer<UInt8>(width: width, height: height, samples: samples)
            let n = VeilAnalysis.tile, columns = width / n, rows = height / n
            let blockColumns = columns * n / 2, blockRows = rows * n / 2
            var sums = [Int](repeating: 0, count: blockColumns * blockRows)
            for by in 0..<blockRows {
                for bx in 0..<blockColumns {
                    sums[by * blockColumns + bx] = [(0, 0), (1, 0), (0, 1), (1, 1)].map { Int(samples[(2 * by + $0.1) * width + 2 * bx + $0.0]) }.reduce(0, +)
                }
            }
            var totals = [Int](repeating: 0, count: columns * rows), counts = totals
            for by in 1..<(blockRows - 1) {
                for bx in 1..<(blockColumns - 1) {
                    let i = by * blockColumns + bx
                    let laplacian = 4 * sums[i] - sums[i - 1] - sums[i + 1] - sums[i - blockColumns] - sums[i + blockColumns]
                    totals[(by * 2 / n) * columns + bx * 2 / n] += abs(laplacian)
                    counts[(by * 2 / n) * columns + bx * 2 / n] += 1
                }
            }
            let structured = zip(totals, counts).map { $1 > 0 && Double($0) / Double($1) >= 4 * VeilAnalysis.structureLevel }
            #expect(VeilAnalysis.structuredTiles(luma) == structured, "\(width)×\(height)")
            #expect(structured.contains(true) && structured.contains(false), "both kinds of tile in \(width)×\(height)")

            let b = VeilAnalysis.block
            var deviations: [Double] = []
            for by in stride(from: 0, through: height - b, by: b) {
                for bx in stride(from: 0, through: width - b, by: b) {
                    var sum = 0.0, squares = 0.0
                    for y in by..<(by + b) {
                        for x in bx..<(bx + b) {
                            let v = VeilAnalysis.logLuminance[Int(samples[y * width + x])]
                            sum += v
                            squares += v * v
                        }
                    }
                    let mean = sum / Double(b * b)
                    deviations.append(max(0, squares / Double(b * b) - mean * mean).squareRoot())
                }
            }
            deviations.sort()
            let image = AnalysisImage(luma: luma, fullSize: luma.size)
            #expect(VeilAnalysis(image).localContrast == percentile(deviations, 0.9), "\(width)×\(height)")

            let rgbSamples = (0..<(3 * width * height)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let rgb = PixelBuffer<UInt8>(width: width, height: height, channels: 3, samples: rgbSamples)
            let darkest = VeilAnalysis.darkestChannel(AnalysisImage(luma: luma, rgb: rgb, fullSize: luma.size))
            #expect(darkest.samples == (0..<(width * height)).map { min(rgbSamples[3 * $0], rgbSamples[3 * $0 + 1], rgbSamples[3 * $0 + 2]) })
        }
    }

    /// The percentile found by selection is the sorted array's, to the bit: runs of equal
    /// values, one value, two, and every fraction from 0 to 1.
    @Test func aPercentileBySelectionIsTheSortedOnes() {
        var generator = SeededGenerator(seed: 41)
        for count in [1, 2, 3, 7, 64, 1_000, 12_288] {
            // Few distinct levels, so equal values meet the pivot.
            let values = (0..<count).map { _ in Double(generator.next() % 23) / 7 }
            let sorted = values.sorted()
            for fraction in [0, 0.02, 0.05, 0.1, 0.5, 0.9, 0.98, 1] {
                var scratch = values
                #expect(percentile(selecting: &scratch, fraction) == percentile(sorted, fraction), "\(count) values, \(fraction)")
                #expect(scratch.sorted() == sorted)
            }
        }
    }

    @Test func aStrongerVeilLiftsTheBlacksAndTakesContrastAway() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        let strengths = [0, 0.1, 0.2, 0.4, 0.6]
        let ladder = strengths.map { veil(veiled(scene, strength: Float($0))) }
        for (a, b) in zip(ladder, ladder.dropFirst()) {
            #expect(b.veilFraction > a.veilFraction, "\(ladder.map(\.veilFraction))")
            #expect(b.veilShare > a.veilShare, "\(ladder.map(\.veilShare))")
            #expect(b.localContrast < a.localContrast, "\(ladder.map(\.localContrast))")
        }
        #expect(ladder[0].veilFraction < 0.05 && ladder[4].veilFraction > 0.3, "\(ladder.map(\.veilFraction))")
        // Where the scene has black, the darkest tones over the mean are the share of the light
        // scattered: the veil's strength, plus what the clean scene's darkest tones hold.
        for (share, strength) in zip(ladder.map(\.veilShare), strengths) {
            #expect(abs(share - strength) < 0.1, "\(ladder.map(\.veilShare)) for \(strengths)")
        }
    }

    /// Blur spreads edges but keeps the blacks: the veil fraction of a blurred scene (σ up to
    /// 3 px) stays below that of a veil scattering a tenth of the light.
    @Test func blurIsNotAVeil() {
        let scene = Scenes.photo(width: width, height: height, seed: 22)
        let light = veil(veiled(scene, strength: 0.1))
        for sigma: Float in [1.5, 3] {
            let blurred = veil(Scenes.gaussian(scene, width: width, height: height, sigma: sigma))
            #expect(blurred.veilFraction < light.veilFraction, "σ \(sigma): \(blurred.veilFraction) vs veil 0.1: \(light.veilFraction)")
        }
    }

    /// A film on the lens veils the whole frame, so black in a few places bounds the veil: a
    /// pale textured scene with a dark stroke in 16 of its 192 tiles (8%) is not veiled, and
    /// the same scene under a film scattering a fifth of the light is.
    @Test func aLittleBlackAnywhereBoundsTheVeil() {
        var generator = SeededGenerator(seed: 28)
        var scene = (0..<(width * height)).map { _ in Float.random(in: 170...210, using: &generator) }
        let tile = VeilAnalysis.tile
        for t in 0..<16 {
            // Distinct tiles: 5 and 7 step through the 16 columns and 12 rows without repeating a pair.
            let x0 = (t * 5 % 16) * tile, y0 = (t * 7 % 12) * tile
            for y in (y0 + 12)..<(y0 + 16) {
                for x in x0..<(x0 + tile) { scene[y * width + x] = 20 }
            }
        }
        let clean = veil(scene), film = veil(veiled(scene, strength: 0.2))
        #expect(clean.veilFraction < 0.05 && clean.veilShare < 0.05, "\(clean.veilFraction) \(clean.veilShare)")
        #expect(film.veilFraction > 0.1 && film.veilShare > 0.15, "\(film.veilFraction) \(film.veilShare)")
    }

    /// A flat grey wall (±1 level of noise) has no tone to lift: no tile holds structure
    /// enough to judge, and both veil cues stay 0.
    @Test func aFlatWallHoldsNothingToVeil() {
        var generator = SeededGenerator(seed: 23)
        let wall = (0..<(width * height)).map { _ in Float(200) + Float.random(in: -1...1, using: &generator) }
        #expect(veil(wall).veilFraction == 0)
        #expect(veil(wall).veilShare == 0)
        #expect(VeilAnalysis.structuredTiles(Scenes.plane(wall, width: width, height: height)).allSatisfy { !$0 })
    }

    /// A clear dawn over a lake: a smooth bright sky (a gradient of 150–230 levels, ±1 level
    /// of noise) filling all but a thin, dark, textured shore (two rows of tiles). The sky's
    /// tiles have their darkest tone beside their mean, veiled or not; only the tiles holding
    /// the shore or the skyline are judged, and a clean shore reads as no veil. The same frame
    /// under a veil of 0.4 reads as veiled.
    @Test func aSmoothSkyIsNotAVeil() {
        var generator = SeededGenerator(seed: 28)
        let n = VeilAnalysis.tile, shoreRow = height / n - 2
        let scene = (0..<(width * height)).map { i -> Float in
            let y = i / width
            if y >= shoreRow * n { return Float.random(in: 0...60, using: &generator) }
            return 150 + 80 * Float(y) / Float(shoreRow * n) + Float.random(in: -1...1, using: &generator)
        }
        let structured = VeilAnalysis.structuredTiles(Scenes.plane(scene, width: width, height: height))
        let columns = width / n
        for (index, flag) in structured.enumerated() {
            let row = index / columns
            // The row just above the shore holds the skyline in its last block row.
            if row < shoreRow - 1 { #expect(!flag, "sky tile \(index) holds no structure") }
            if row >= shoreRow { #expect(flag, "shore tile \(index) holds structure") }
        }
        let clean = veil(scene), veiled = veil(veiled(scene, strength: 0.4))
        #expect(clean.veilFraction < 0.01 && clean.veilShare < 0.05, "\(clean.veilFraction) \(clean.veilShare)")
        #expect(veiled.veilFraction > 0.1 && veiled.veilShare > 0.3, "\(veiled.veilFraction) \(veiled.veilShare)")
    }

    /// A scene of one strong colour (green moss: red at 0.8 of green, no blue) under a film
    /// whose scattered light takes the scene's colour. Its blue stays black, so the darkest
    /// channel sees no veil at any strength; luma's darkest tones over the mean rise with it.
    @Test func aVeilOverOneStrongColourShowsInLuma() {
        let scene = Scenes.photo(width: width, height: height, seed: 29)
        func green(_ strength: Float) -> VeilAnalysis {
            let g = veiled(scene, strength: strength), r = veiled(scene.map { 0.8 * $0 }, strength: strength)
            var rgb = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
            var luma = PixelBuffer<UInt8>(width: width, height: height)
            for y in 0..<height {
                for x in 0..<width {
                    let i = y * width + x
                    let red = UInt8(max(0, min(255, r[i].rounded()))), greenLevel = UInt8(max(0, min(255, g[i].rounded())))
                    rgb[x, y, 0] = red
                    rgb[x, y, 1] = greenLevel
                    rgb[x, y, 2] = 0
                    let weighted: Int = 299 * Int(red) + 587 * Int(greenLevel) + 500
                    luma[x, y] = UInt8(weighted / 1000)
                }
            }
            return VeilAnalysis(AnalysisImage(luma: luma, rgb: rgb, fullSize: ImageSize(width: width, height: height)))
        }
        let strengths = [0, 0.2, 0.4, 0.6]
        let ladder = strengths.map { green(Float($0)) }
        #expect(ladder.allSatisfy { $0.veilFraction == 0 }, "\(ladder.map(\.veilFraction))")
        for (share, strength) in zip(ladder.map(\.veilShare), strengths) {
            #expect(abs(share - strength) < 0.1, "\(ladder.map(\.veilShare)) for \(strengths)")
        }
    }

    /// A lamp: a disc of white (radius 20 px) on a dark, textured ground (levels 10–40).
    func lamp(seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        return (0..<(width * height)).map { i in
            let dx = Double(i % width - width / 2), dy = Double(i / width - height / 2)
            return dx * dx + dy * dy <= 400 ? 255 : Float.random(in: 10...40, using: &generator)
        }
    }

    /// `scene + a·(scene blurred by σ 25 px)` in linear light: a film scattering a share `a`
    /// of the light into a glow around each bright source.
    func glowing(_ pixels: [Float], strength a: Float) -> [Float] {
        let linear = pixels.map { pow(max(0, min(255, $0)) / 255, 2.2) }
        let glow = Scenes.gaussian(linear, width: width, height: height, sigma: 25)
        return zip(linear, glow).map { 255 * pow(min(1, $0 + a * $1), 1 / 2.2) }
    }

    @Test func aGlowAroundTheHighlightsRaisesTheHalo() {
        let scene = lamp(seed: 24)
        let ladder = [0, 0.05, 0.1, 0.2, 0.4].map { veil(glowing(scene, strength: Float($0))).halo }
        for (a, b) in zip(ladder, ladder.dropFirst()) { #expect(b > a, "\(ladder)") }
        #expect(abs(ladder[0]) < 0.002, "\(ladder)")
    }

    /// Blur spreads the lamp's edge by a few pixels; the glow of a film reaches far further.
    @Test func blurIsNotAHalo() {
        let scene = lamp(seed: 25)
        let light = veil(glowing(scene, strength: 0.05)).halo
        for sigma: Float in [1.5, 3] {
            let blurred = veil(Scenes.gaussian(scene, width: width, height: height, sigma: sigma)).halo
            #expect(blurred < light, "σ \(sigma): \(blurred) vs glow 0.05: \(light)")
        }
    }

    /// Without highlights there is no source to scatter: the halo is 0, as it is when they
    /// fill most of the frame.
    @Test func noHighlightsNoHalo() {
        let scene = Scenes.photo(width: width, height: height, seed: 26).map { min($0, 200) }
        #expect(veil(scene).halo == 0)
        let white = lamp(seed: 27).map { _ in Float(250) }
        #expect(veil(white).halo == 0)
    }

    /// The exact values on a plane of two levels per tile: darkest over brightest, and darkest
    /// over the mean, in linear light.
    @Test func theVeilCuesAreDarkOverBrightAndOverTheMeanInLinearLight() {
        // Every tile holds levels 60 and 200 in equal parts (vertical stripes two pixels wide,
        // so the 2 × 2 block means alternate too and every tile holds structure).
        let samples = (0..<(64 * 64)).map { UInt8(($0 % 64) / 2 % 2 == 0 ? 60 : 200) }
        let plane = PixelBuffer(width: 64, height: 64, samples: samples)
        #expect(VeilAnalysis.structuredTiles(plane) == [true, true, true, true])
        let veil = VeilAnalysis(AnalysisImage(luma: plane, fullSize: plane.size))
        let expected = VeilAnalysis.linear[60] / VeilAnalysis.linear[200]
        #expect(abs(veil.veilFraction - expected) < 1e-12)
        let share = VeilAnalysis.linear[60] / ((VeilAnalysis.linear[60] + VeilAnalysis.linear[200]) / 2)
        #expect(abs(veil.veilShare - share) < 1e-12)
        // Each 8-pixel block: half at each level, so the deviation is half the log difference.
        let stops = (VeilAnalysis.logLuminance[200] - VeilAnalysis.logLuminance[60]) / 2
        #expect(abs(veil.localContrast - stops) < 1e-9)
    }
}
