import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The veil of light scattered by something on the lens, measured as the physics of an
/// additive veil predicts: `observed = scene · t + scattered · (1 − t)`.
///
/// Both veil cues are read only in tiles that hold fine structure (an edge or texture at the
/// scale of a few pixels), where a clean scene has a dark side next to a bright one. A smooth
/// gradient (sky, fog, a dim wall) has its darkest tone beside its mean whether veiled or not,
/// and would read as a veil; a tile qualifies when the mean magnitude of the Laplacian of its
/// 2 × 2 block means is at least 2 levels (`structureLevel`).
///
/// - `veilFraction`: in each 32-pixel tile, the darkest tones (2nd percentile of the
///   darkest channel) over the brightest (98th percentile of luma), in linear light. A
///   clean scene has something near black in most tiles (shadows, dark surfaces, the dark
///   side of every edge), so the ratio is near 0; scattered light adds to every pixel and
///   lifts it. The cue is the `shadowPercentile` over structured tiles. A film on the lens
///   sits where every ray of every image point passes, so its veil covers the whole frame
///   and no tile can be darker than it: the few tiles with the deepest shadows bound it (a
///   white wall or the sky is one bright tile among many, and a pale scene with a little
///   black in it is not veiled).
/// - `veilShare`: in the same tiles, luma's darkest tones (2nd percentile) over the tile's
///   mean, in linear light, `shadowPercentile` over the tiles. Under `scene · t + scattered ·
///   (1 − t)`, the scattered light is about the neighbourhood's mean, so where the scene has
///   black this is the share of the light scattered. Luma sees a veil over a scene of one
///   strong colour, whose scattered light holds almost none of the weakest channel (moss,
///   foliage: the darkest channel stays black under the film).
/// - `localContrast`: the 90th percentile over 8-pixel blocks of the standard deviation
///   of log₂ luminance: how many stops of contrast the most contrasty places keep. A veil
///   compresses it everywhere; blur lowers it only where detail was finer than a block.
///
/// - `halo`: light scattered out of the highlights. A film spreads each bright source into
///   a wide, long-tailed glow, so the darkest tones just outside the highlights (the 5th
///   percentile of the darkest channel 1–3 % of the long side away) sit above those
///   farther off (6–15 %), in linear light; a clean lens keeps the shadows next to a lamp
///   as dark as any. 0 when highlights (luma ≥ 245) cover under 0.1 % or over half of the
///   frame, or either ring is nearly empty: there is then no source to scatter, or no
///   shadow to receive it.
///
/// Cost: one pass over the analysis image with a 256-entry table, and a two-pass distance
/// transform from the highlights.
struct VeilAnalysis {
    var veilFraction = 0.0
    var veilShare = 0.0
    var localContrast = 0.0
    var halo = 0.0

    static let tile = 32
    /// The share of structured tiles whose shadows bound the veil: the 5th percentile, not the
    /// darkest tile, which one deep shadow would decide (5th to 10th rank the train split of
    /// `Datasets/smudge` alike; the 1st ranks it lower).
    static let shadowPercentile = 0.05
    /// A tile whose 2 × 2 block means have a mean Laplacian magnitude (|4c − n − s − e − w|)
    /// under this many levels holds no fine structure to veil: a smooth gradient or a flat
    /// wall, with pixel noise of σ up to about 1 level (the mean magnitude is about 3.6 times
    /// the block means' σ, half the pixels').
    static let structureLevel = 2.0
    static let block = 8
    /// sRGB level → linear light.
    static let linear: [Double] = (0..<256).map { linearLight(Double($0)) }
    /// sRGB level → log₂(linear + 0.005) (0.005 keeps black finite, about −7.6 stops).
    static let logLuminance: [Double] = linear.map { log2($0 + 0.005) }

    init(_ image: AnalysisImage) {
        self.init(image, darkest: Self.darkestChannel(image))
    }

    /// The smallest of each pixel's channels (the luma itself without colour).
    static func darkestChannel(_ image: AnalysisImage) -> PixelBuffer<UInt8> {
        guard let rgb = image.rgb else { return image.luma }
        var darkest = PixelBuffer<UInt8>(width: rgb.width, height: rgb.height)
        let from = rgb.rowStride, to = darkest.rowStride
        rgb.withUnsafeBufferPointer { source in
            darkest.withUnsafeMutableBufferPointer { target in
                for y in 0..<rgb.height {
                    let row = source.baseAddress! + y * from, out = target.baseAddress! + y * to
                    var x = 0
                    while x + 16 <= rgb.width {
                        let (r, g, b) = rgbLanes(UnsafeRawPointer(row + 3 * x))
                        UnsafeMutableRawPointer(out + x).storeBytes(of: pointwiseMin(r, pointwiseMin(g, b)), as: SIMD16<UInt8>.self)
                        x += 16
                    }
                    for x in x..<rgb.width { out[x] = min(row[3 * x], row[3 * x + 1], row[3 * x + 2]) }
                }
            }
        }
        return darkest
    }

    /// - Parameter darkest: `darkestChannel(image)`.
    init(_ image: AnalysisImage, darkest: PixelBuffer<UInt8>) {
        let luma = image.luma
        let width = luma.width, height = luma.height
        let n = Self.tile
        let structured = Self.structuredTiles(luma)
        let columns = width / n
        var fractions: [Double] = [], shares: [Double] = []
        for y0 in stride(from: 0, through: height - n, by: n) {
            for x0 in stride(from: 0, through: width - n, by: n) where structured[(y0 / n) * columns + x0 / n] {
                let tile = PixelRect(x: x0, y: y0, width: n, height: n)
                let lumaHistogram = Histogram(luma, in: tile)
                let high = Self.linear[lumaHistogram.percentile(0.98)]
                guard high > 0.02 else { continue }
                fractions.append(Self.linear[Histogram(darkest, in: tile).percentile(0.02)] / high)
                var linearSum = 0.0
                for (level, count) in lumaHistogram.counts.enumerated() where count > 0 { linearSum += Double(count) * Self.linear[level] }
                shares.append(Self.linear[lumaHistogram.percentile(0.02)] / (linearSum / Double(n * n)))
            }
        }
        fractions.sort()
        shares.sort()
        veilFraction = fractions.isEmpty ? 0 : percentile(fractions, Self.shadowPercentile)
        veilShare = shares.isEmpty ? 0 : percentile(shares, Self.shadowPercentile)

        let b = Self.block
        var deviations: [Double] = []
        deviations.reserveCapacity((width / b) * (height / b))
        Self.logLuminance.withUnsafeBufferPointer { table in
            luma.withUnsafeBufferPointer { pixels in
                for by in stride(from: 0, through: height - b, by: b) {
                    // Four blocks side by side in the lanes of one vector: each lane adds its
                    // block's values in the order the one-block loop below does, so the sums
                    // have the same bits, without one long chain of dependent additions.
                    let blocks = width >= b ? width / b : 0
                    var bx = 0
                    while bx + 4 * b <= blocks * b {
                        var sum = SIMD4<Double>(), squares = SIMD4<Double>()
                        for y in by..<(by + b) {
                            let row = pixels.baseAddress! + y * luma.rowStride + bx
                            for x in 0..<b {
                                let v = SIMD4<Double>(
                                    table[Int(row[x])], table[Int(row[b + x])], table[Int(row[2 * b + x])], table[Int(row[3 * b + x])])
                                sum += v
                                squares += v * v
                            }
                        }
                        let count = Double(b * b)
                        for lane in 0..<4 {
                            let mean = sum[lane] / count
                            deviations.append(max(0, squares[lane] / count - mean * mean).squareRoot())
                        }
                        bx += 4 * b
                    }
                    for bx in stride(from: bx, through: width - b, by: b) {
                        var sum = 0.0, squares = 0.0
                        for y in by..<(by + b) {
                            let row = pixels.baseAddress! + y * luma.rowStride
                            for x in bx..<(bx + b) {
                                let v = table[Int(row[x])]
                                sum += v
                                squares += v * v
                            }
                        }
                        let count = Double(b * b), mean = sum / count
                        deviations.append(max(0, squares / count - mean * mean).squareRoot())
                    }
                }
            }
        }
        localContrast = percentile(selecting: &deviations, 0.9)
        halo = Self.halo(luma: luma, darkest: darkest)
    }

    /// Which 32-pixel tiles (row by row, `width / tile` to a row) hold fine structure: the
    /// mean of |4c − n − s − e − w| over the 2 × 2 block means of the tile that have four
    /// neighbours is at least `structureLevel`. Block means halve pixel noise and keep edges
    /// and texture of a few pixels; a sky noisier than about 1 level counts as structured and
    /// is judged (its darkest tones then sit a few noise σ below its mean).
    static func structuredTiles(_ luma: PixelBuffer<UInt8>) -> [Bool] {
        let n = tile, width = luma.width, height = luma.height
        let columns = width / n, rows = height / n
        guard columns > 0, rows > 0 else { return [] }
        // Block sums (4 × the mean) over the tiled area: at least 16 × 16 blocks. Sums, not
        // `AreaDownscale`'s means rounded to whole levels: rounding adds about a level to a
        // smooth tile's mean Laplacian magnitude, half the 2-level threshold.
        let blockColumns = columns * n / 2, blockRows = rows * n / 2
        var sums = [Int32](repeating: 0, count: blockColumns * blockRows)
        var totals = [Int](repeating: 0, count: columns * rows), counts = totals
        luma.withUnsafeBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                let sum = sums.baseAddress!
                for by in 0..<blockRows {
                    let top = pixels.baseAddress! + 2 * by * luma.rowStride, bottom = top + luma.rowStride
                    let out = sum + by * blockColumns
                    var bx = 0
                    // Eight blocks at a time: the even and odd pixels of 16 in each row.
                    while bx + 8 <= blockColumns {
                        let t = UnsafeRawPointer(top + 2 * bx).loadUnaligned(as: SIMD16<UInt8>.self)
                        let b = UnsafeRawPointer(bottom + 2 * bx).loadUnaligned(as: SIMD16<UInt8>.self)
                        let total = SIMD8<Int32>(widening: t.evenHalf) &+ SIMD8<Int32>(widening: t.oddHalf)
                            &+ SIMD8<Int32>(widening: b.evenHalf) &+ SIMD8<Int32>(widening: b.oddHalf)
                        UnsafeMutableRawPointer(out + bx).storeBytes(of: total, as: SIMD8<Int32>.self)
                        bx += 8
                    }
                    for bx in bx..<blockColumns {
                        out[bx] = Int32(top[2 * bx]) + Int32(top[2 * bx + 1]) + Int32(bottom[2 * bx]) + Int32(bottom[2 * bx + 1])
                    }
                }
                // |4c − n − s − e − w| over the interior blocks, tile by tile along each row
                // (a tile is n / 2 blocks wide): integer sums, so any order gives the same.
                let blocksPerTile = n / 2
                for by in 1..<(blockRows - 1) {
                    let row = sum + by * blockColumns, tileRow = (by * 2 / n) * columns
                    for tile in 0..<columns {
                        let first = max(1, tile * blocksPerTile), end = min(blockColumns - 1, (tile + 1) * blocksPerTile)
                        guard first < end else { continue }
                        var total = 0
                        var bx = first
                        var lanes = SIMD8<Int32>()
                        while bx + 8 <= end {
                            @inline(__always) func load(_ p: UnsafeMutablePointer<Int32>) -> SIMD8<Int32> {
                                UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int32>.self)
                            }
                            let laplacian = 4 &* load(row + bx) &- load(row + bx - 1) &- load(row + bx + 1)
                                &- load(row + bx - blockColumns) &- load(row + bx + blockColumns)
                            lanes &+= laplacian.magnitudes
                            bx += 8
                        }
                        total += Int(lanes.wrappedSum())
                        for bx in bx..<end {
                            let laplacian = 4 * row[bx] - row[bx - 1] - row[bx + 1] - row[bx - blockColumns] - row[bx + blockColumns]
                            total += Int(abs(laplacian))
                        }
                        totals[tileRow + tile] += total
                        counts[tileRow + tile] += end - first
                    }
                }
            }
        }
        // Sums are 4 × the block means, so the threshold is 4 × `structureLevel` in their units.
        return zip(totals, counts).map { total, count in
            count > 0 && Double(total) / Double(count) >= 4 * structureLevel
        }
    }

    /// Luma at or above this is a highlight: a light source or a sunlit white, near clipping.
    static let highlightLevel: UInt8 = 245
    /// The rings around the highlights, as fractions of the long side: just outside, where a
    /// film's glow is strongest, and farther off, where it has faded.
    static let nearRing = 0.01...0.03, farRing = 0.06...0.15

    /// `halo`: the 5th percentile of `darkest` in the near ring minus that in the far ring,
    /// in linear light (see the type's documentation).
    static func halo(luma: PixelBuffer<UInt8>, darkest: PixelBuffer<UInt8>) -> Double {
        let width = luma.width, height = luma.height
        guard width > 0, height > 0 else { return 0 }
        // Distances are measured between 2 × 2 cells (a cell holding a highlight pixel is a
        // highlight): the rings are tens of pixels wide, and a quarter of the cells is a
        // quarter of the cost.
        let columns = (width + 1) / 2, rows = (height + 1) / 2
        let far = Int32.max / 2
        var distance = [Int32](repeating: far, count: columns * rows)
        var highlights = 0
        luma.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = pixels.baseAddress! + y * luma.rowStride
                for x in 0..<width where row[x] >= highlightLevel {
                    distance[(y / 2) * columns + x / 2] = 0
                    highlights += 1
                }
            }
        }
        let share = Double(highlights) / Double(width * height)
        guard share >= 0.001, share <= 0.5 else { return 0 }
        // Chamfer distances (3 per step along an axis, 4 diagonally; within 8 % of the
        // Euclidean distance) in thirds of a cell, forward then backward.
        distance.withUnsafeMutableBufferPointer { d in
            for y in 0..<rows {
                for x in 0..<columns {
                    let i = y * columns + x
                    var v = d[i]
                    if x > 0 { v = min(v, d[i - 1] + 3) }
                    if y > 0 {
                        v = min(v, d[i - columns] + 3)
                        if x > 0 { v = min(v, d[i - columns - 1] + 4) }
                        if x < columns - 1 { v = min(v, d[i - columns + 1] + 4) }
                    }
                    d[i] = v
                }
            }
            for y in stride(from: rows - 1, through: 0, by: -1) {
                for x in stride(from: columns - 1, through: 0, by: -1) {
                    let i = y * columns + x
                    var v = d[i]
                    if x < columns - 1 { v = min(v, d[i + 1] + 3) }
                    if y < rows - 1 {
                        v = min(v, d[i + columns] + 3)
                        if x < columns - 1 { v = min(v, d[i + columns + 1] + 4) }
                        if x > 0 { v = min(v, d[i + columns - 1] + 4) }
                    }
                    d[i] = v
                }
            }
        }
        // The long side in thirds of a cell, the unit of `distance`.
        let long = Double(max(width, height)) / 2 * 3
        let near = (Int32(nearRing.lowerBound * long), Int32(nearRing.upperBound * long))
        let distant = (Int32(farRing.lowerBound * long), Int32(farRing.upperBound * long))
        var nearCounts = [Int](repeating: 0, count: 256), farCounts = nearCounts
        darkest.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = pixels.baseAddress! + y * darkest.rowStride
                let cells = (y / 2) * columns
                for cell in 0..<columns {
                    let d = distance[cells + cell]
                    guard d > near.0, d <= distant.1 else { continue }
                    let pair = row + 2 * cell, both = 2 * cell + 1 < width
                    if d <= near.1 {
                        nearCounts[Int(pair[0])] += 1
                        if both { nearCounts[Int(pair[1])] += 1 }
                    } else if d > distant.0 {
                        farCounts[Int(pair[0])] += 1
                        if both { farCounts[Int(pair[1])] += 1 }
                    }
                }
            }
        }
        // A ring of fewer than 50 pixels has no percentile worth reading.
        guard nearCounts.reduce(0, +) >= 50, farCounts.reduce(0, +) >= 50 else { return 0 }
        let nearFloor = linear[Histogram(counts: nearCounts).percentile(0.05)]
        let farFloor = linear[Histogram(counts: farCounts).percentile(0.05)]
        return nearFloor - farFloor
    }
}
