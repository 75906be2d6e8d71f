import ImageKernels
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The blur kernel's dip in the cepstrum")
struct KernelCepstrumTests {
    let width = 1024, height = 768

    /// A log spectrum that is one cosine, cos(2π(3u + 4v)/64), has the cepstrum ½ at the lags
    /// ±(3, 4) and 0 elsewhere: its negative dips ½ deep at a lag 5 px long, which is searched.
    /// A ripple along one axis (lag (4, 0)) is not searched, whatever its depth.
    @Test func theDipOfAKnownSpectrumIsItsCosinesHalfAmplitude() {
        let n = KernelCepstrum.tile
        let diagonal = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(3 * (i % n) + 4 * (i / n)) / Double(n)) }
        #expect(abs(KernelCepstrum.deepestDip(ofCepstrumOf: diagonal) - 0.5) < 1e-9)
        let axis = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(4 * (i % n)) / Double(n)) }
        #expect(KernelCepstrum.deepestDip(ofCepstrumOf: axis) < 1e-9)
        // Lags longer than 12 px of the half-size image are not searched either.
        let long = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(10 * (i % n) + 10 * (i / n)) / Double(n)) }
        #expect(KernelCepstrum.deepestDip(ofCepstrumOf: long) < 1e-9)
    }

    /// A defocus disk of radius 3 px zeroes the spectrum along rings; averaged over the tiles,
    /// the log spectrum ripples and the cepstrum dips. On a scene of a photograph's statistics
    /// (the periodic texture of `Scenes.photo` has a cepstrum of its own) the dip deepens
    /// threefold, and the blur evidence passes the threshold.
    @Test func aDefocusDiskDeepensTheDip() {
        let scene = Scenes.fractal(width: width, height: height, seed: 3)
        let sharp = dip(scene), defocused = dip(disk(scene, radius: 3))
        #expect(sharp.tiles == 165, "textured tiles \(sharp.tiles)")
        #expect(defocused.depth > 3 * sharp.depth, "dip \(sharp.depth) → \(defocused.depth)")
        let blur = analyze(disk(scene, radius: 3), width: width, height: height).blur!
        #expect(blur.confidence > BlurObservation.photoCriterion!.defaultThreshold, "\(blur)")
    }

    /// A shake that dwells at two points, 8 px right and 6 px down of each other, half the
    /// exposure at each: every edge stays sharp, so the edge width stays, but the transfer
    /// function cos(π(8u + 6v)/N) has zeros along parallel lines, and the cepstrum dips at the
    /// lag (4, 3) of the half-size image. The evidence rises by more than the spread alone
    /// gives it. The same copies 10 px apart along x lie on an axis, which is not searched.
    @Test func twoSharpCopiesOffTheAxesDeepenTheDip() {
        let scene = Scenes.fractal(width: width, height: height, seed: 4)
        var shaken = scene
        for y in 0..<height {
            for x in 0..<width { shaken[y * width + x] = 0.5 * (scene[y * width + x] + scene[max(0, y - 6) * width + max(0, x - 8)]) }
        }
        let sharp = analyze(scene, width: width, height: height).blur!, copies = analyze(shaken, width: width, height: height).blur!
        #expect(abs(copies.edgeWidth / sharp.edgeWidth - 1) < 0.1, "edge width \(sharp.edgeWidth) → \(copies.edgeWidth)")
        #expect(copies.cepstralDip > 2 * sharp.cepstralDip, "dip \(sharp.cepstralDip) → \(copies.cepstralDip)")
        let model = BlurDetector().evidence
        let spreadTerm = model.weights["spread"]! * log(copies.spread / sharp.spread)
        #expect(copies.evidence - sharp.evidence > spreadTerm + 1, "evidence \(sharp.evidence) → \(copies.evidence), spread's share \(spreadTerm)")
        var along = scene
        for y in 0..<height { for x in 0..<width { along[y * width + x] = 0.5 * (scene[y * width + x] + scene[y * width + max(0, x - 10)]) } }
        let alongDip = dip(along).depth
        #expect(abs(alongDip - sharp.cepstralDip) < 0.25 * sharp.cepstralDip, "dip \(sharp.cepstralDip) → \(alongDip) along x")
    }

    /// JPEG's 8-px blocks, in an image the analysis keeps at its size, repeat every 4 px of the
    /// half-size image along both axes: lags on the axes, which are not searched. A sharp scene
    /// with blocks of ±4 levels keeps its dip.
    @Test func blocksOnTheJPEGGridLeaveTheDipAsItWas() {
        let (w, h) = (768, 512)
        let scene = Scenes.fractal(width: w, height: h, seed: 5)
        var generator = SeededGenerator(seed: 9)
        let offsets = (0..<((w / 8) * (h / 8))).map { _ in Float.random(in: -4...4, using: &generator) }
        var blocky = scene
        for y in 0..<h { for x in 0..<w { blocky[y * w + x] += offsets[(y / 8) * (w / 8) + x / 8] } }
        let clean = KernelCepstrum.dip(of: Scenes.plane(scene, width: w, height: h)).depth
        let blocked = KernelCepstrum.dip(of: Scenes.plane(blocky, width: w, height: h)).depth
        #expect(abs(blocked - clean) < 0.25 * clean, "dip \(clean) → \(blocked)")
    }

    /// The 16 sharpest tiles are read whatever the image's size, so a smaller copy of a scene,
    /// with fewer tiles, dips about as deep: a mean over fewer spectra would dip deeper by
    /// chance somewhere among the lags.
    @Test func aSmallerCopyDipsAboutAsDeep() {
        let scene = Scenes.plane(Scenes.fractal(width: width, height: height, seed: 6), width: width, height: height)
        let full = KernelCepstrum.dip(of: scene)
        let small = KernelCepstrum.dip(of: AreaResample.resize(scene, to: ImageSize(width: 640, height: 480)))
        #expect(small.tiles < full.tiles / 2, "tiles \(full.tiles) → \(small.tiles)")
        #expect(abs(small.depth / full.depth - 1) < 0.25, "dip \(full.depth) → \(small.depth)")
    }

    @Test func aPlaneWithFewerThanFourTexturedTilesHasNoDip() {
        let flat = Scenes.plane([Float](repeating: 128, count: 512 * 384), width: 512, height: 384)
        let result = KernelCepstrum.dip(of: flat)
        #expect(result.depth == 0 && result.tiles == 0)
    }

    func dip(_ pixels: [Float]) -> (depth: Double, tiles: Int) {
        KernelCepstrum.dip(of: Scenes.plane(pixels, width: width, height: height))
    }

    /// The mean over a disk of `radius` pixels around each pixel, borders clamped.
    func disk(_ pixels: [Float], radius: Int) -> [Float] {
        var offsets: [(Int, Int)] = []
        for dy in -radius...radius { for dx in -radius...radius where dx * dx + dy * dy <= radius * radius { offsets.append((dx, dy)) } }
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for (dx, dy) in offsets { sum += pixels[min(height - 1, max(0, y + dy)) * width + min(width - 1, max(0, x + dx))] }
                out[y * width + x] = sum / Float(offsets.count)
            }
        }
        return out
    }
}
