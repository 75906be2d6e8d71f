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
        #expect(abs(KernelCepstrum.deepestDip(of: KernelCepstrum.cepstrum(atSearchedLagsOf: diagonal)) - 0.5) < 1e-9)
        let axis = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(4 * (i % n)) / Double(n)) }
        #expect(KernelCepstrum.deepestDip(of: KernelCepstrum.cepstrum(atSearchedLagsOf: axis)) < 1e-9)
        // Lags longer than 24 px of the half-size image are not searched either.
        let long = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(20 * (i % n) + 20 * (i / n)) / Double(n)) }
        #expect(KernelCepstrum.deepestDip(of: KernelCepstrum.cepstrum(atSearchedLagsOf: long)) < 1e-9)
    }

    /// A defocus disk of radius 3 px zeroes the spectrum along rings; averaged over the tiles,
    /// the log spectrum ripples and the cepstrum dips. On a scene of a photograph's statistics
    /// (the periodic texture of `Scenes.photo` has a cepstrum of its own) the dip deepens
    /// threefold, and the blur evidence passes the threshold.
    @Test func aDefocusDiskDeepensTheDip() {
        let scene = Scenes.fractal(width: width, height: height, seed: 3), blurred = disk(scene, radius: 3)
        let sharp = dip(scene), defocused = dip(blurred)
        #expect(sharp.tiles == 165, "textured tiles \(sharp.tiles)")
        #expect(defocused.depth > 3 * sharp.depth, "dip \(sharp.depth) → \(defocused.depth)")
        // The threshold is the bundled model's: a refit could move it.
        let blur = analyze(blurred, width: width, height: height).blur!
        #expect(blur.confidence > BlurObservation.photoCriterion!.defaultThreshold, "\(blur)")
    }

    /// A shake that dwells at two points, 8 px right and 6 px down of each other, half the
    /// exposure at each: every edge stays sharp, so the edge width stays, but the transfer
    /// function cos(π(8u + 6v)/N) has zeros along parallel lines. Its log, ln cos², has the
    /// cepstrum's peak at the lag (4, 3) of the half-size image and its dip at twice that, (8, 6),
    /// 10 px long, which is searched. The dip's own term in the evidence rises by more than 1.
    /// The same copies 10 px apart along x lie on an axis, which is not searched.
    @Test func twoSharpCopiesOffTheAxesDeepenTheDip() {
        let scene = Scenes.fractal(width: width, height: height, seed: 4)
        var shaken = scene
        for y in 0..<height {
            for x in 0..<width { shaken[y * width + x] = 0.5 * (scene[y * width + x] + scene[max(0, y - 6) * width + max(0, x - 8)]) }
        }
        let sharp = analyze(scene, width: width, height: height).blur!, copies = analyze(shaken, width: width, height: height).blur!
        #expect(abs(copies.edgeWidth / sharp.edgeWidth - 1) < 0.1, "edge width \(sharp.edgeWidth) → \(copies.edgeWidth)")
        #expect(copies.cepstralDip > 2 * sharp.cepstralDip, "dip \(sharp.cepstralDip) → \(copies.cepstralDip)")
        let weight = BlurDetector().evidence.weights["cepstralDip"] ?? 0
        #expect(weight * (copies.cepstralDip - sharp.cepstralDip) > 1, "dip \(sharp.cepstralDip) → \(copies.cepstralDip), weight \(weight)")
        var along = scene
        for y in 0..<height { for x in 0..<width { along[y * width + x] = 0.5 * (scene[y * width + x] + scene[y * width + max(0, x - 10)]) } }
        let alongDip = dip(along).depth
        #expect(abs(alongDip - sharp.cepstralDip) < 0.005, "dip \(sharp.cepstralDip) → \(alongDip) along x")
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
        #expect(abs(blocked - clean) < 0.005, "dip \(clean) → \(blocked)")
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
        // Planes too small for four tiles of the half-size image, of every shape.
        for (w, h) in [(1, 1), (127, 127), (130, 70), (200, 129)] {
            let small = KernelCepstrum.dip(of: Scenes.plane(Scenes.fractal(width: w, height: h, seed: 2), width: w, height: h))
            #expect(small.depth == 0 && small.tiles < 4, "\(w) × \(h): \(small)")
        }
        // 256 × 256 halves to 128 × 128: three tiles 32 px apart each way.
        let nine = KernelCepstrum.dip(of: Scenes.plane(Scenes.fractal(width: 256, height: 256, seed: 2), width: 256, height: 256))
        #expect(nine.tiles == 9 && nine.depth > 0, "\(nine)")
    }

    /// The separable sum in double precision gives the cepstrum a direct sum over every bin
    /// gives, on an even spectrum of random values, and the dip is the least of it over the
    /// searched lags: lengths 2 to 24, off the axes.
    @Test func theDipIsTheDirectCepstrumsLeastAtTheSearchedLags() {
        let n = KernelCepstrum.tile
        var generator = SeededGenerator(seed: 12)
        let raw = (0..<(n * n)).map { _ in Double.random(in: 0...10, using: &generator) }
        let spectrum = (0..<(n * n)).map { i in
            let (u, v) = (i % n, i / n)
            return 0.5 * (raw[i] + raw[((n - v) % n) * n + (n - u) % n])
        }
        var least = Double.infinity
        for y in -24...24 {
            for x in -24...24 where x != 0 && y != 0 {
                let length = Double(x * x + y * y).squareRoot()
                guard length >= 2, length <= 24 else { continue }
                var sum = 0.0
                for v in 0..<n { for u in 0..<n { sum += spectrum[v * n + u] * cos(2 * Double.pi * Double(u * x + v * y) / Double(n)) } }
                least = min(least, sum / Double(n * n))
            }
        }
        #expect(abs(KernelCepstrum.deepestDip(of: KernelCepstrum.cepstrum(atSearchedLagsOf: spectrum)) - max(0, -least)) < 1e-12)
        // At the bounds: (1, 1) and (23, 7) lie outside 2–24 px, (1, 2) and (22, 9) inside.
        for (x, y, searched) in [(1, 1, false), (1, 2, true), (22, 9, true), (23, 7, false)] {
            let ripple = (0..<(n * n)).map { i in -cos(2 * Double.pi * Double(x * (i % n) + y * (i / n)) / Double(n)) }
            #expect(abs(KernelCepstrum.deepestDip(of: KernelCepstrum.cepstrum(atSearchedLagsOf: ripple)) - (searched ? 0.5 : 0)) < 1e-9, "lag (\(x), \(y))")
        }
    }

    /// Each tile's moments and Laplacian energy, from the blocks, are those summed over its own
    /// pixels, on a plane whose sides are not multiples of the step.
    @Test func theTilesMeasuresAreThoseOfTheirPixels() {
        let (w, h) = (161, 97)
        let plane = Scenes.plane(Scenes.fractal(width: w, height: h, seed: 8), width: w, height: h)
        let tiles = KernelCepstrum.texturedTiles(plane)
        #expect(tiles.map { [$0.x, $0.y] } == [[0, 0], [32, 0], [64, 0], [96, 0], [0, 32], [32, 32], [64, 32], [96, 32]])
        for tile in tiles {
            var sum = 0.0, squares = 0.0, energy = 0.0
            for y in tile.y..<(tile.y + 64) {
                for x in tile.x..<(tile.x + 64) {
                    let value = Double(plane[x, y])
                    sum += value
                    squares += value * value
                    guard x > 0, y > 0, x < w - 1, y < h - 1 else { continue }
                    let neighbours = Double(plane[x - 1, y]) + Double(plane[x + 1, y]) + Double(plane[x, y - 1]) + Double(plane[x, y + 1])
                    energy += (4 * value - neighbours) * (4 * value - neighbours)
                }
            }
            let mean = sum / 4096
            #expect(abs(Double(tile.mean) - mean) < 1e-3)
            #expect(abs(tile.laplacianShare - energy / (squares - sum * mean)) < 1e-9 * tile.laplacianShare)
        }
    }

    /// The lags within half a pixel of 5 px fall in all 8 sectors of direction: (5, 1) and
    /// (5, 2) in the first, (1, −5) and (2, −5) in the fifth. A dip at one lag is 0 elsewhere on
    /// the circle: isotropy 0. The same dip at every lag of the circle: 1. Half a dip deep on one
    /// side (y > 0: sectors 1–4) and a tenth on the other: the median of four 0.1s and four 0.5s
    /// over 0.5, 0.6. No dip: 0.
    @Test func theIsotropyOfKnownDipsIsTheMedianOfTheirSectors() {
        typealias Lag = (x: Int, y: Int, value: Double)
        var circle: [(x: Int, y: Int)] = []
        for x in 1...24 {
            for y in -24...24 where y != 0 && abs(Double(x * x + y * y).squareRoot() - 5) <= 0.5 { circle.append((x, y)) }
        }
        #expect(circle.count == 12)
        let rest: [Lag] = [(10, 3, 0.2), (2, 1, -0.05)]
        func lags(_ value: (Int, Int) -> Double) -> [Lag] { circle.map { lag -> Lag in (lag.x, lag.y, value(lag.x, lag.y)) } + rest }
        #expect(KernelCepstrum.isotropy(of: lags { x, y in x == 3 && y == 4 ? -0.5 : 0 }) == 0)
        #expect(abs(KernelCepstrum.isotropy(of: lags { _, _ in -0.5 }) - 1) < 1e-12)
        #expect(abs(KernelCepstrum.isotropy(of: lags { _, y in y > 0 ? -0.5 : -0.1 }) - 0.6) < 1e-12)
        #expect(KernelCepstrum.isotropy(of: circle.map { lag -> Lag in (lag.x, lag.y, 0.1) }) == 0)
    }

    /// A defocus disk (radius 6 px) dips the cepstrum round a circle; a straight shake (16 px
    /// at 30°) and a bent one (10 px right, then 10 px down) dip it along their paths. The
    /// blur is named by its kind, and the gate's words say which.
    @Test func aDiskIsNamedDefocusAndAPathMotion() {
        let scene = Scenes.fractal(width: width, height: height, seed: 3)
        /// The pixels of a segment of `length` px from `start` at `angle` radians.
        func segment(from start: (Int, Int), length: Int, angle: Double) -> [(Int, Int)] {
            (0...length).map { step -> (Int, Int) in
                let along = Double(step)
                return (start.0 + Int((along * cos(angle)).rounded()), start.1 + Int((along * sin(angle)).rounded()))
            }
        }
        let straight = segment(from: (-7, -4), length: 16, angle: Double.pi / 6)
        let bent = segment(from: (0, 0), length: 8, angle: 0.35) + segment(from: (8, 3), length: 8, angle: 1.2).dropFirst()
        let defocused = analyze(disk(scene, radius: 6), width: width, height: height).blur!
        #expect(defocused.dipIsotropy > 0.5 && defocused.kind == .defocus, "\(defocused)")
        #expect(defocused.failureWords == "blurred (out of focus)")
        for path in [straight, bent] {
            let shaken = analyze(smear(scene, along: path), width: width, height: height).blur!
            #expect(shaken.dipIsotropy < 0.3 && shaken.kind == .motion, "\(path): \(shaken)")
            #expect(shaken.failureWords == "blurred (motion or camera shake)")
        }
        let sharp = analyze(scene, width: width, height: height).blur!
        #expect(sharp.kind == .none && sharp.failureWords == nil, "\(sharp)")
    }

    func dip(_ pixels: [Float]) -> (depth: Double, isotropy: Double, tiles: Int) {
        KernelCepstrum.dip(of: Scenes.plane(pixels, width: width, height: height))
    }

    /// The mean over the offsets of `path` around each pixel, borders clamped: a shake's kernel,
    /// or any other.
    func smear(_ pixels: [Float], along path: [(Int, Int)]) -> [Float] {
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for (dx, dy) in path { sum += pixels[min(height - 1, max(0, y + dy)) * width + min(width - 1, max(0, x + dx))] }
                out[y * width + x] = sum / Float(path.count)
            }
        }
        return out
    }

    /// The mean over a disk of `radius` pixels around each pixel, borders clamped.
    func disk(_ pixels: [Float], radius: Int) -> [Float] {
        var offsets: [(Int, Int)] = []
        for dy in -radius...radius { for dx in -radius...radius where dx * dx + dy * dy <= radius * radius { offsets.append((dx, dy)) } }
        return smear(pixels, along: offsets)
    }
}
