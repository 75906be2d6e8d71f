import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The blur kernel's echo in the cepstrum: how deep a trace a defocus disk or a shake's path
/// leaves in the spectrum shared by the sharpest parts of the frame.
///
/// A blur multiplies every tile's spectrum by the kernel's, so in the logarithm it adds the
/// same term to every tile, while the scene's own term differs from tile to tile. Averaged over
/// tiles, the log power spectrum keeps the kernel's ripples (the zeros of a disk's or a path's
/// transfer function) and smooths the scene's; its inverse transform, the cepstrum, then dips
/// at lags about as long as the kernel: a line's length, a disk's diameter, twice the distance
/// between the two points of a shake that dwells at two (Cannon's blur identification, 1976).
/// A shake that dwells leaves sharp edges, which the edge widths hardly see, but its path still
/// dips the cepstrum; a sharp image's averaged log spectrum is smooth, and so is its cepstrum
/// away from the origin. A texture that repeats across the frame (fabric, tiles, a screen) has
/// the same term in every tile too, and can dip it as a blur does.
///
/// Read on the analysis image halved (512 px on the longer side, so a lag of 2–24 px is a
/// kernel of 4–48 analysis pixels), in 64-px tiles 32 px apart with a standard deviation of 4
/// levels or more, each less its mean and Hann-windowed. Only the 16 sharpest are read (all
/// when fewer, at least four): among the 48 whose Laplacian is strongest for their contrast,
/// those with the largest share of power at frequency radii of 16 bins or more (a quarter of
/// the sampling rate, radii rounded, the corners past 32 left out), so a sharp subject on a
/// soft background reads as the subject does. A fixed count, not a share of the tiles,
/// because the deepest of 846 lags of a mean over fewer spectra dips deeper by chance: read as
/// a share, the same clean scenes at 640 px dipped 1.6 times as deep as at 1 024. The zero
/// frequency is left out of the mean (it would add the same amount to every lag), and so are
/// the lags on the axes: JPEG's 8-pixel blocks dip them in images smaller than the analysis
/// size. The tiles, the count and the lags were chosen by a 4-fold cross-validation over the
/// camera corpus's train photos among forms that read the same clean scenes alike at 1 024,
/// 800 and 640 px (docs/experiments.md); the measure's weight is fitted in `Models/blur.json`.
enum KernelCepstrum {
    /// The tiles' side, in pixels of the halved analysis image.
    static let tile = 64
    /// The distance between tiles: they overlap by half, so each is four blocks of `step`.
    static let step = 32
    /// The lags searched, in pixels of the halved analysis image.
    static let lags = 2.0...24.0
    /// The number of textured tiles read, the sharpest first.
    static let sharpestTiles = 16
    /// Below this many textured tiles, there is no dip.
    static let fewestTiles = 4
    /// The candidates for the sharpest: the tiles whose Laplacian is strongest for their
    /// contrast, this many, are transformed and ranked by their spectra. Transforming every
    /// tile costs three times as much; the candidates hold the 16 a full ranking takes in 58%
    /// of the camera corpus's images, and where they do not, the cross-validation read as well.
    static let candidates = 48
    /// A tile is textured when its standard deviation reaches this many levels.
    static let texturedDeviation = 4.0
    /// The frequency radius (of 32, in bins of a 64-px tile, rounded) from which a tile's power
    /// counts as fine detail when tiles are ranked by sharpness.
    static let fineRadius = 16

    /// The depth of the cepstrum's deepest dip at the searched lags (0 when it has none), how
    /// evenly the dip runs round its ring (`isotropy(of:)`), and the number of textured tiles;
    /// a plane with fewer than `fewestTiles` textured tiles gives 0 and 0.
    static func dip(of plane: PixelBuffer<UInt8>) -> (depth: Double, isotropy: Double, tiles: Int) {
        let half = AreaDownscale.downscale(plane, by: 2)
        let n = tile
        let all = texturedTiles(half)
        guard all.count >= fewestTiles else { return (0, 0, all.count) }
        let textured = all.indices.sorted { (all[$0].laplacianShare, $1) > (all[$1].laplacianShare, $0) }
            .prefix(candidates).map { (x: all[$0].x, y: all[$0].y, mean: all[$0].mean) }
        let radii = WindowedTiles.radii(size: n)
        // Each candidate's spectrum and share of fine detail; then the logarithms of the
        // sharpest candidates' spectra only.
        var spectra = [[Float]](), shares = [Double]()
        spectra.reserveCapacity(textured.count)
        transform(half, tiles: textured) { power in
            var fine = 0.0, total = 0.0
            for i in 0..<(n * n) {
                // The zero frequency and the corners past radius 32 (marked 0) count as neither.
                guard radii[i] >= 1 else { continue }
                total += power[i]
                if radii[i] >= fineRadius { fine += power[i] }
            }
            spectra.append(power.map { Float($0) })
            shares.append(total > 0 ? fine / total : 0)
        }
        let kept = min(sharpestTiles, textured.count)
        var mean = [Double](repeating: 0, count: n * n)
        for index in textured.indices.sorted(by: { (shares[$0], $1) > (shares[$1], $0) }).prefix(kept) {
            for i in 0..<(n * n) { mean[i] += log(1 + Double(spectra[index][i])) }
        }
        for i in 0..<(n * n) { mean[i] /= Double(kept) }
        mean[0] = 0
        let lags = cepstrum(atSearchedLagsOf: mean)
        return (deepestDip(of: lags), isotropy(of: lags), all.count)
    }

    /// The tiles (`tile` px, `step` px apart) whose standard deviation reaches
    /// `texturedDeviation`: origin, mean, and the energy of the Laplacian (4 neighbours; none
    /// on the plane's border) over the tile's squared deviations. From the moments of
    /// `step`-pixel blocks, four to a tile.
    static func texturedTiles(_ plane: PixelBuffer<UInt8>) -> [(x: Int, y: Int, mean: Float, laplacianShare: Double)] {
        precondition(tile == 2 * step, "a tile is read as two blocks by two")
        let n = tile, width = plane.width, height = plane.height
        guard width >= n, height >= n else { return [] }
        let values = planeTileMoments(plane, tileSize: step), laplacians = Stencil.laplacian.tileMoments(plane, tileSize: step)
        let columns = values.columns
        var found: [(x: Int, y: Int, mean: Float, laplacianShare: Double)] = []
        for y0 in Swift.stride(from: 0, through: height - n, by: step) {
            for x0 in Swift.stride(from: 0, through: width - n, by: step) {
                let blocks = [0, 1, columns, columns + 1].map { (y0 / step) * columns + x0 / step + $0 }
                let sum = blocks.reduce(0) { $0 + values.tiles[$1].sum }, square = blocks.reduce(0) { $0 + values.tiles[$1].sumOfSquares }
                let laplacian = blocks.reduce(0) { $0 + laplacians.tiles[$1].sumOfSquares }
                let count = Double(n * n), mean = Double(sum) / count
                let deviations = Double(square) - Double(sum) * mean
                guard deviations / count >= texturedDeviation * texturedDeviation else { continue }
                found.append((x0, y0, Float(mean), Double(laplacian) / deviations))
            }
        }
        return found
    }

    /// Hands `body` each tile's power spectrum |X|² (row-major, 64 × 64), in the tiles' order:
    /// the tile less its mean and Hann-windowed, eight tiles transformed at a time.
    static func transform(
        _ plane: PixelBuffer<UInt8>, tiles: [(x: Int, y: Int, mean: Float)], _ body: ([Double]) -> Void
    ) {
        let n = tile
        var power = [Double](repeating: 0, count: n * n)
        WindowedTiles(size: n).forEachBatch(of: tiles, in: plane) { count, re, im in
            for lane in 0..<count {
                for i in 0..<(n * n) {
                    let r = Double(re[i][lane]), m = Double(im[i][lane])
                    power[i] = r * r + m * m
                }
                body(power)
            }
        }
    }

    /// The largest −C among the searched lags of a cepstrum (`cepstrum(atSearchedLagsOf:)`), at least 0.
    static func deepestDip(of lags: [(x: Int, y: Int, value: Double)]) -> Double {
        max(0, lags.map { -$0.value }.max() ?? 0)
    }

    /// How evenly the deepest dip runs round the circle of its length, from 0 to 1 (0 when
    /// there is no dip): the searched lags within half a pixel of the deepest's length are
    /// split by direction into 8 sectors of 22.5° (directions taken modulo 180°, as C is
    /// even), and the median over the sectors holding any of the deepest −C in each (at least
    /// 0) is divided by the deepest. A defocus disk's transfer function is zero on rings, so its
    /// dip is a ring, near 1; a shake's path, straight or curved, dips the lags along its
    /// direction, near 0 elsewhere on the circle. The ring's width and the sectors were
    /// chosen by a 4-fold cross-validation over the camera corpus's train photos
    /// (docs/experiments.md).
    static func isotropy(of lags: [(x: Int, y: Int, value: Double)]) -> Double {
        guard let deepest = lags.min(by: { $0.value < $1.value }), deepest.value < 0 else { return 0 }
        let length = { (x: Int, y: Int) in Double(x * x + y * y).squareRoot() }
        let radius = length(deepest.x, deepest.y)
        var sectors = [Double?](repeating: nil, count: 8)
        for lag in lags where abs(length(lag.x, lag.y) - radius) <= 0.5 {
            var angle = atan2(Double(lag.y), Double(lag.x))
            if angle < 0 { angle += Double.pi }
            let sector = min(7, Int(angle / (Double.pi / 8)))
            sectors[sector] = max(sectors[sector] ?? 0, -lag.value)
        }
        return min(1, percentile(sectors.compactMap { $0 }.sorted(), 0.5) / -deepest.value)
    }

    /// The real cepstrum of `logSpectrum` (an even, row-major 64 × 64 log power spectrum):
    /// C(x, y) = (1/N²) Σ L(u, v) cos(2π(ux + vy)/N), computed in double precision at the lags
    /// off the axes whose length lies in `lags`. C is even, so the half plane x > 0 holds
    /// every lag once.
    static func cepstrum(atSearchedLagsOf logSpectrum: [Double]) -> [(x: Int, y: Int, value: Double)] {
        let n = tile
        let longest = Int(lags.upperBound)
        let cosine = (0..<n).map { cos(2 * Double.pi * Double($0) / Double(n)) }
        let sine = (0..<n).map { sin(2 * Double.pi * Double($0) / Double(n)) }
        // The rows' transforms at the x lags: A = Σ_u L cos(2πux/N), B = Σ_u L sin(2πux/N).
        var a = [Double](repeating: 0, count: n * (longest + 1)), b = a
        for v in 0..<n {
            for x in 1...longest {
                var c = 0.0, s = 0.0
                for u in 0..<n {
                    let phase = (u * x) % n
                    c += logSpectrum[v * n + u] * cosine[phase]
                    s += logSpectrum[v * n + u] * sine[phase]
                }
                a[v * (longest + 1) + x] = c
                b[v * (longest + 1) + x] = s
            }
        }
        var found: [(x: Int, y: Int, value: Double)] = []
        for x in 1...longest {
            for y in -longest...longest where y != 0 {
                let length = Double(x * x + y * y).squareRoot()
                guard lags.contains(length) else { continue }
                var value = 0.0
                for v in 0..<n {
                    let phase = ((v * y) % n + n) % n
                    value += a[v * (longest + 1) + x] * cosine[phase] - b[v * (longest + 1) + x] * sine[phase]
                }
                found.append((x, y, value / Double(n * n)))
            }
        }
        return found
    }
}
