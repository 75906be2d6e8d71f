import ImageKernels
import ImagingCore

/// A page's ink at a working scale: which pixels are darker than their surroundings, and
/// the 8-connected pieces they form, with the size of the text measured from them.
struct PageInk: Sendable {
    /// Working pixels per full-resolution pixel along each side is 1 / `factor`.
    let factor: Int
    let width: Int
    let height: Int
    /// The page's luma reduced to the working scale, as it is (the regions `init` excluded not
    /// painted out).
    let workingLuma: PixelBuffer<UInt8>
    /// The local mean of the paper alone (the pixels that are not ink) around each working
    /// pixel: what a ruling line or a barcode is painted over with.
    let paper: [UInt8]
    /// Component number + 1 of each ink pixel, 0 for paper.
    var labels: [Int32]
    var components: [Component]
    /// The median height of the pieces the size of characters, in working pixels (0 when none).
    let characterHeight: Double
    /// The character height ruling lines are measured against (`isRule`): `characterHeight`,
    /// or less when the page was deepened (`init`'s `characterHeightAtMost`).
    let ruleScale: Double
    /// Whether each component (by its label less one) is a ruling line.
    let rules: [Bool]

    typealias Component = ConnectedComponents.Component

    /// Pages are analysed with their long side at most this many pixels (an integer
    /// reduction): ruling lines and characters keep several pixels at that size.
    static let workingLongSide = 2400

    /// Ink is a pixel at least this much darker than its neighbourhood's mean (a fraction of
    /// it), and by at least `minimumContrast` levels.
    static let darkerBy = 0.12
    static let minimumContrast = 12

    /// `characterHeightAtMost`: the character height of the page before its faint print was
    /// deepened. Deepening runs small print's letters together into words, which leaves the
    /// larger type (headings) to set the median, and a long word of the small print would then
    /// be as thin, for its length, as a ruling line: rules are measured against the smaller.
    /// `ruleThickness`: how thick a ruling line may be, on average, for a character's height
    /// (`isRule`).
    init(
        _ image: PixelBuffer<UInt8>, excluding excluded: [PixelRect] = [], characterHeightAtMost: Double? = nil,
        ruleThickness: Double = DocumentAnalyzer.documentRuleThickness
    ) {
        let longSide = max(image.width, image.height)
        factor = max(1, min(16, (longSide + Self.workingLongSide - 1) / Self.workingLongSide))
        let plane = image.packedLuma
        let small = AreaDownscale.downscale(plane, by: factor)
        workingLuma = small
        let (width, height) = (small.width, small.height)
        (self.width, self.height) = (width, height)
        var luma = [UInt8](repeating: 0, count: width * height)
        small.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width { luma[y * width + x] = pixels[y * small.rowStride + x] }
            }
        }
        // Regions already explained (barcodes) are paper for everything that follows.
        let factor = self.factor
        for rect in excluded {
            let x0 = max(0, rect.x / factor), y0 = max(0, rect.y / factor)
            let x1 = min(width, (rect.x + rect.width + factor - 1) / factor), y1 = min(height, (rect.y + rect.height + factor - 1) / factor)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 { for x in x0..<x1 { luma[y * width + x] = 255 } }
        }
        let background = Self.localMean(luma, width: width, height: height, radius: max(8, max(width, height) / 60))
        var ink = Self.darker(luma, than: background) { mean, value in
            mean - value >= Self.minimumContrast && Double(value) < Double(mean) * (1 - Self.darkerBy)
        }
        let paper = Self.localMean(luma, width: width, height: height, radius: max(8, max(width, height) / 60), excluding: ink)
        self.paper = paper
        // Faint ink: half as much darker than the paper alone (the mean of every pixel is
        // pulled down by the ink around it). A thin line resampled at a slant comes out in
        // dashes of ink between faint stretches (its darkness shared between two rows by turns).
        let faint = Self.darker(luma, than: paper) { mean, value in
            2 * (mean - value) >= Self.minimumContrast && Double(value) < Double(mean) * (1 - Self.darkerBy / 2)
        }
        let minimumLength = max(20, max(width, height) / 60)
        Self.markThinLines(&ink, luma: luma, paper: paper, width: width, height: height, minimumLength: minimumLength)
        Self.bridgeLines(&ink, faint: faint, width: width, height: height, minimumLength: minimumLength)
        (labels, components) = ConnectedComponents.label(ink, width: width, height: height)
        let characterHeight = Self.characterHeight(components, pageHeight: height)
        self.characterHeight = characterHeight
        let ruleScale = characterHeightAtMost.map { $0 > 0 ? min(characterHeight, $0) : characterHeight } ?? characterHeight
        self.ruleScale = ruleScale
        rules = components.enumerated().map { [labels] index, component in
            Self.isRule(component, label: Int32(index + 1), labels: labels, width: width, scale: ruleScale, thickness: ruleThickness)
        }
    }

    /// Where `test(mean, value)` holds for each pixel's value and its mean. The test must fall
    /// from true to false as the value rises: it is tabled once as the lowest value failing it
    /// for every mean, and each pixel compared with its mean's entry.
    static func darker(_ luma: [UInt8], than means: [UInt8], where test: (Int, Int) -> Bool) -> [Bool] {
        let below = (0..<256).map { mean in UInt16((0..<256).first { !test(mean, $0) } ?? 256) }
        var out = [Bool](repeating: false, count: luma.count)
        out.withUnsafeMutableBufferPointer { out in
            luma.withUnsafeBufferPointer { luma in
                means.withUnsafeBufferPointer { means in
                    below.withUnsafeBufferPointer { below in
                        for index in 0..<out.count { out[index] = UInt16(luma[index]) < below[Int(means[index])] }
                    }
                }
            }
        }
        return out
    }

    /// Local means are taken over blocks of this many pixels a side: the paper's brightness
    /// varies over tens of pixels, and a mean per block costs a sixteenth of one per pixel.
    static let meanBlock = 4

    /// The mean of the pixels `excluded` does not mark (all pixels without it) in a square
    /// window of about `radius` around each pixel, at block resolution: block sums and counts,
    /// an integral image over the blocks, each pixel given its block's mean. Where a window
    /// holds no pixel counted, the pixel's own value.
    static func localMean(_ luma: [UInt8], width: Int, height: Int, radius: Int, excluding excluded: [Bool]? = nil) -> [UInt8] {
        guard width > 0, height > 0 else { return luma }
        let block = meanBlock
        let bw = (width + block - 1) / block, bh = (height + block - 1) / block
        var sums = [Int](repeating: 0, count: bw * bh), counts = [Int](repeating: 0, count: bw * bh)
        // The `block` rows of each row of blocks summed column by column, then each run of
        // `block` columns into its block (sums of at most 255 × the page's pixels, and a
        // column's of `block` × 255: no overflow to check).
        var columnSums = [UInt16](repeating: 0, count: width), columnCounts = columnSums
        sums.withUnsafeMutableBufferPointer { sums in
            counts.withUnsafeMutableBufferPointer { counts in
                columnSums.withUnsafeMutableBufferPointer { columnSums in
                    columnCounts.withUnsafeMutableBufferPointer { columnCounts in
                        luma.withUnsafeBufferPointer { luma in
                            (excluded ?? []).withUnsafeBufferPointer { excluded in
                                for by in 0..<bh {
                                    for x in 0..<width { (columnSums[x], columnCounts[x]) = (0, 0) }
                                    for y in (by * block)..<min(height, by * block + block) {
                                        let first = y * width
                                        if excluded.isEmpty {
                                            for x in 0..<width { columnSums[x] &+= UInt16(luma[first &+ x]) }
                                        } else {
                                            // (A Bool is stored as a byte, 0 or 1: read as one, the
                                            // loop is arithmetic without branches.)
                                            excluded.withMemoryRebound(to: UInt8.self) { excluded in
                                                for x in 0..<width {
                                                    let on = 1 &- UInt16(excluded[first &+ x])
                                                    columnSums[x] &+= on &* UInt16(luma[first &+ x])
                                                    columnCounts[x] &+= on
                                                }
                                            }
                                        }
                                    }
                                    let rows = min(height, by * block + block) - by * block
                                    for bx in 0..<bw {
                                        var sum = 0, count = 0
                                        for x in (bx &* block)..<min(width, bx &* block &+ block) {
                                            sum &+= Int(columnSums[x])
                                            count &+= excluded.isEmpty ? rows : Int(columnCounts[x])
                                        }
                                        (sums[by &* bw &+ bx], counts[by &* bw &+ bx]) = (sum, count)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Summed-area tables over the blocks, then each block's window mean (-1 where its
        // window counted no pixel).
        let reach = max(1, radius / block)
        let sumTable = SummedAreaTable(sums, width: bw, height: bh), countTable = SummedAreaTable(counts, width: bw, height: bh)
        var blockMean = [Int](repeating: -1, count: bw * bh)
        for by in 0..<bh {
            let y0 = max(0, by - reach), y1 = min(bh, by + reach + 1)
            for bx in 0..<bw {
                let x0 = max(0, bx - reach), x1 = min(bw, bx + reach + 1)
                let count = countTable.sum(x0: x0, y0: y0, x1: x1, y1: y1)
                if count > 0 { blockMean[by * bw + bx] = sumTable.sum(x0: x0, y0: y0, x1: x1, y1: y1) / count }
            }
        }
        // Each pixel its block's mean: a row of them made once per row of blocks and copied
        // to each of its rows; the pixel's own value where the block's window counted no pixel.
        var mean = [UInt8](repeating: 0, count: luma.count)
        var levels = [UInt8](repeating: 0, count: width)
        mean.withUnsafeMutableBufferPointer { mean in
            levels.withUnsafeMutableBufferPointer { levels in
                luma.withUnsafeBufferPointer { luma in
                    blockMean.withUnsafeBufferPointer { blockMean in
                        for by in 0..<bh {
                            var everyBlock = true
                            for bx in 0..<bw {
                                let value = blockMean[by &* bw &+ bx]
                                everyBlock = everyBlock && value >= 0
                                let level = UInt8(truncatingIfNeeded: max(0, value))
                                for x in (bx &* block)..<min(width, bx &* block &+ block) { levels[x] = level }
                            }
                            for y in (by * block)..<min(height, by * block + block) {
                                let first = y * width
                                (mean.baseAddress! + first).update(from: levels.baseAddress!, count: width)
                                guard !everyBlock else { continue }
                                for bx in 0..<bw where blockMean[by &* bw &+ bx] < 0 {
                                    for x in (bx &* block)..<min(width, bx &* block &+ block) { mean[first &+ x] = luma[first &+ x] }
                                }
                            }
                        }
                    }
                }
            }
        }
        return mean
    }

    /// A thin line's darkness below the paper, summed over a band of two rows (or columns)
    /// through it, averages at least this many levels over `thinLineRun` pixels along it...
    static let thinLineDarkness = 12
    static let thinLineRun = 7
    /// ... and is at least this many times the same sum for the two rows above the band and
    /// for the two below, a row apart from it: a line is thin, a line of text is not.
    static let thinLineContrast = 3

    /// Marks as ink the thin ruling lines the ink test misses. A line about a pixel wide that
    /// a photo's resampling shares between two rows darkens each by part of its darkness; in
    /// a bright photo neither part reaches `darkerBy`, and what the ink test keeps of it is
    /// dashes too far apart to bridge. Summed over the two rows the darkness is there.
    ///
    /// A position of a band of two rows is thin and dark when it passes the tests of
    /// `thinLineDarkness` and `thinLineContrast` and the band is darkened at the position
    /// itself (by half `thinLineDarkness`: the feet of letters along a line are dark on
    /// average, not at every pixel). A line is a run of such positions in a band or in one of
    /// its neighbours (a bent page's line drifts across rows) at least `minimumLength` long;
    /// where another line crosses it the rows beside it are dark too, and the run goes on
    /// over up to `crossingGap` positions that are dark but not thin. In each band along a
    /// line, the darker pixel of each thin and dark position is marked (both rows of a line
    /// shared equally between two), and each stretch of them is carried on over dark
    /// positions to ink within `crossingGap`: the line it ends at or crosses. The same down
    /// the columns for vertical lines.
    static func markThinLines(_ ink: inout [Bool], luma: [UInt8], paper: [UInt8], width: Int, height: Int, minimumLength: Int) {
        guard width > thinLineRun + 8, height > thinLineRun + 8 else { return }
        var darkness = [UInt8](repeating: 0, count: width * height)
        darkness.withUnsafeMutableBufferPointer { darkness in
            paper.withUnsafeBufferPointer { paper in
                luma.withUnsafeBufferPointer { luma in
                    for index in 0..<darkness.count { darkness[index] = paper[index] > luma[index] ? paper[index] &- luma[index] : 0 }
                }
            }
        }
        // Lines along the rows, then along the columns as rows of the darkness turned over its
        // diagonal (every pass then reads memory in order); the ink is marked where it is.
        markThinLines(&ink, darkness: darkness, count: height, length: width, minimumLength: minimumLength) { $0 }
        markThinLines(&ink, darkness: transposed(darkness, width: width, height: height), count: width, length: height, minimumLength: minimumLength) {
            ($0 % height) * width + $0 / height
        }
    }

    /// `markThinLines` for lines along the `count` rows of `length` pixels of a darkness
    /// plane; `inkIndex` maps an index of the plane to the ink's.
    static func markThinLines(_ ink: inout [Bool], darkness: [UInt8], count: Int, length: Int, minimumLength: Int, inkIndex: (Int) -> Int) {
        let half = thinLineRun / 2
        let threshold = thinLineDarkness * thinLineRun, contrast = thinLineContrast
        // A line crossing this one darkens the rows beside it over its own width and the
        // `thinLineRun` its darkness is summed along.
        let crossingGap = thinLineRun + 4
        // Darkness summed over `thinLineRun` pixels along each row (at most 7 × 255).
        var along = [UInt16](repeating: 0, count: count * length)
        // Each position of each band of two rows: dark (1), or thin and dark (2).
        var state = [UInt8](repeating: 0, count: count * length)
        // How many positions of each band are thin and dark (most rows of a page have none).
        var thinCount = [Int](repeating: 0, count: count)
        darkness.withUnsafeBufferPointer { dark in
            along.withUnsafeMutableBufferPointer { along in
                // Each position's sum of the `thinLineRun` pixels centred on it, where the run
                // fits in the row (0 elsewhere); at most 7 × 255: no overflow to check.
                for row in 0..<count {
                    let base = row * length
                    for position in half..<(length - half) {
                        var sum: UInt16 = 0
                        for offset in -half...half { sum &+= UInt16(dark[base &+ position &+ offset]) }
                        along[base &+ position] = sum
                    }
                }
            }
            // Written as selects, without jumps, so that it runs many positions at a time:
            // sums of two bands at most 2 × 7 × 255, times `thinLineContrast` within 16 bits.
            along.withUnsafeBufferPointer { along in
                state.withUnsafeMutableBufferPointer { state in
                    let threshold = UInt16(threshold), darkEnough = UInt16(thinLineDarkness), contrast = UInt16(contrast)
                    for row in 3..<(count - 4) {
                        let at = row * length
                        var thinHere = 0
                        for position in 0..<length {
                            let band = along[at &+ position] &+ along[at &+ length &+ position]
                            let pair = UInt16(dark[at &+ position]) &+ UInt16(dark[at &+ length &+ position])
                            let before = along[at &- 3 &* length &+ position] &+ along[at &- 2 &* length &+ position]
                            let after = along[at &+ 3 &* length &+ position] &+ along[at &+ 4 &* length &+ position]
                            let isDark = band >= threshold && 2 &* pair >= darkEnough
                            let thin = isDark && contrast &* before <= band && contrast &* after <= band
                            state[at &+ position] = (isDark ? 1 : 0) &+ (thin ? 1 : 0)
                            thinHere &+= thin ? 1 : 0
                        }
                        thinCount[row] = thinHere
                    }
                }
            }
        }
        // Runs where this band or a neighbour is thin and dark (a line drifting across rows,
        // as a bent page's lines do, passes in one band and then the next), going on over at
        // most `crossingGap` positions that are dark but not thin (where a line crosses).
        // A run of `minimumLength` holds a thin position at least every `crossingGap` + 1.
        let fewestThin = max(1, minimumLength / (crossingGap + 1))
        var lines: [(row: Int, first: Int, last: Int)] = []
        state.withUnsafeBufferPointer { state in
            for row in 4..<(count - 5) where thinCount[row - 1] + thinCount[row] + thinCount[row + 1] >= fewestThin {
                let at = row * length
                var runStart = -1, lastOn = -1
                var position = -1
                while position < length {
                    position += 1
                    // Outside a run, eight positions at a time are passed over when none of
                    // the three bands is thin and dark at any (no state byte holds 2's bit).
                    while runStart < 0, position + 8 <= length {
                        let raw = UnsafeRawPointer(state.baseAddress!)
                        let words = raw.loadUnaligned(fromByteOffset: at - length + position, as: UInt64.self)
                            | raw.loadUnaligned(fromByteOffset: at + position, as: UInt64.self)
                            | raw.loadUnaligned(fromByteOffset: at + length + position, as: UInt64.self)
                        guard words & 0x0202_0202_0202_0202 == 0 else { break }
                        position += 8
                    }
                    let best = position < length ? max(state[at + position], state[at - length + position], state[at + length + position]) : 0
                    if best == 2 {
                        if runStart < 0 { runStart = position }
                        lastOn = position
                        continue
                    }
                    guard runStart >= 0, best == 0 || position - lastOn > crossingGap else { continue }
                    if lastOn + 1 - runStart >= minimumLength { lines.append((row, runStart, lastOn)) }
                    runStart = -1
                }
            }
        }
        for line in lines {
            markLine(&ink, darkness: darkness, state: state, row: line.row, length: length, from: line.first, to: line.last, crossingGap: crossingGap, inkIndex: inkIndex)
        }
    }

    /// Marks a line's thin and dark positions in `row` between `first` and `last` (the
    /// darker pixel of the band at each), and carries each stretch of them on over dark
    /// positions to ink within `crossingGap`: the line it ends at or crosses.
    static func markLine(
        _ ink: inout [Bool], darkness: [UInt8], state: [UInt8], row: Int, length: Int, from first: Int, to last: Int, crossingGap: Int,
        inkIndex: (Int) -> Int
    ) {
        let at = row * length
        func mark(_ position: Int) {
            ink[inkIndex(darkness[at + position] >= darkness[at + length + position] ? at + position : at + length + position)] = true
        }
        func reach(from end: Int, _ direction: Int) {
            var position = end + direction
            while position >= 0, position < length, abs(position - end) <= crossingGap, state[at + position] >= 1 {
                if ink[inkIndex(at + position)] || ink[inkIndex(at + length + position)] {
                    for between in stride(from: end + direction, to: position, by: direction) { mark(between) }
                    return
                }
                position += direction
            }
        }
        var position = first
        while position <= last {
            guard state[at + position] == 2 else {
                position += 1
                continue
            }
            let start = position
            while position + 1 <= last, state[at + position + 1] == 2 { position += 1 }
            for thin in start...position { mark(thin) }
            reach(from: start, -1)
            reach(from: position, 1)
            position += 1
        }
    }

    /// A row-major plane of bytes (levels, or Bools: one byte each) of `width` × `height`
    /// turned over its diagonal: `height` × `width`.
    ///
    /// Blocks of 8 × 8 are turned in eight 64-bit words, one a row: the top right and bottom
    /// left 4 × 4 quarters swapped, then the 2 × 2 quarters of each, then single bytes; each
    /// word is then a column. What the blocks leave at the right and bottom edges is turned
    /// a byte at a time.
    static func transposed<Element>(_ plane: [Element], width: Int, height: Int) -> [Element] {
        precondition(MemoryLayout<Element>.stride == 1, "bytes only")
        guard let first = plane.first else { return plane }
        var turned = [Element](repeating: first, count: plane.count)
        plane.withUnsafeBytes { source in
            turned.withUnsafeMutableBytes { target in
                let (fullWidth, fullHeight) = (width - width % 8, height - height % 8)
                var rows = [UInt64](repeating: 0, count: 8)
                rows.withUnsafeMutableBufferPointer { r in
                    @inline(__always) func swap(_ i: Int, _ j: Int, _ shift: UInt64, _ mask: UInt64) {
                        let t = ((r[i] >> shift) ^ r[j]) & mask
                        r[i] ^= t << shift
                        r[j] ^= t
                    }
                    for y0 in stride(from: 0, to: fullHeight, by: 8) {
                        for x0 in stride(from: 0, to: fullWidth, by: 8) {
                            for i in 0..<8 { r[i] = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: (y0 + i) * width + x0, as: UInt64.self)) }
                            for i in 0..<4 { swap(i, i + 4, 32, 0x0000_0000_FFFF_FFFF) }
                            for i in 0..<4 { swap(i + i / 2 * 2, i + i / 2 * 2 + 2, 16, 0x0000_FFFF_0000_FFFF) }  // 0, 1, 4, 5
                            for i in 0..<4 { swap(2 * i, 2 * i + 1, 8, 0x00FF_00FF_00FF_00FF) }
                            for k in 0..<8 { target.storeBytes(of: r[k].littleEndian, toByteOffset: (x0 + k) * height + y0, as: UInt64.self) }
                        }
                    }
                }
                for y in 0..<height {
                    for x in (y < fullHeight ? fullWidth : 0)..<width { target[x * height + y] = source[y * width + x] }
                }
            }
        }
        return turned
    }

    /// The widest gap a ruling line may have in it and still be one line, in working pixels.
    static let lineGap = 2

    /// The widest stretch of faint ink a ruling line may have in it and still be one line.
    static let faintGap = 6

    /// Joins the pieces of thin ruling lines a photo's blur and noise broke, along each row
    /// (and each column). Ink runs separated by at most `lineGap` pixels are one piece; a
    /// piece that reaches `minimumLength` is filled. Pieces separated by at most `faintGap`
    /// pixels all of faint ink form a dashed line when there are three or more and none is
    /// half of the whole: the dashes of a line resampled at a slant. A letter's stroke beside
    /// a rule is one long piece next to a short crossing, and stays apart from it. Text
    /// otherwise is not touched: its runs are short, and the paper between letters is not
    /// faint ink.
    static func bridgeLines(_ ink: inout [Bool], faint: [Bool], width: Int, height: Int, minimumLength: Int) {
        bridgeRows(&ink, faint: faint, count: height, length: width, minimumLength: minimumLength)
        // The columns as rows of the planes turned over their diagonal (the pass then reads
        // memory in order), the ink turned back after.
        var turned = transposed(ink, width: width, height: height)
        bridgeRows(&turned, faint: transposed(faint, width: width, height: height), count: width, length: height, minimumLength: minimumLength)
        ink = transposed(turned, width: height, height: width)
    }

    /// `bridgeLines` along the `count` rows of `length` pixels of row-major planes.
    static func bridgeRows(_ ink: inout [Bool], faint: [Bool], count: Int, length: Int, minimumLength: Int) {
        var pieces: [(start: Int, end: Int, faintBefore: Bool)] = []
        ink.withUnsafeMutableBufferPointer { ink in
            faint.withUnsafeBufferPointer { faint in
                for line in 0..<count {
                    let base = line * length
                    // The pieces of the line, and whether the gap before each is faint ink throughout.
                    pieces.removeAll(keepingCapacity: true)
                    var faintSinceEnd = true
                    var position = 0
                    while position < length {
                        defer { position += 1 }
                        // Eight positions without ink at a time (a Bool is a byte, 0 or 1): the
                        // gap stays faint throughout only if all eight are faint ink.
                        while position + 8 <= length {
                            let inkWord = UnsafeRawPointer(ink.baseAddress!).loadUnaligned(fromByteOffset: base + position, as: UInt64.self)
                            guard inkWord == 0 else { break }
                            let faintWord = UnsafeRawPointer(faint.baseAddress!).loadUnaligned(fromByteOffset: base + position, as: UInt64.self)
                            faintSinceEnd = faintSinceEnd && faintWord == 0x0101_0101_0101_0101
                            position += 8
                        }
                        guard position < length else { break }
                        if ink[base &+ position] {
                            if let last = pieces.last, position - last.end - 1 <= lineGap {
                                pieces[pieces.count - 1].end = position
                            } else {
                                let gap = position - (pieces.last?.end ?? -faintGap - 2) - 1
                                pieces.append((position, position, faintSinceEnd && gap <= faintGap))
                            }
                            faintSinceEnd = true
                        } else if !faint[base &+ position] {
                            faintSinceEnd = false
                        }
                    }
                    func fill(_ start: Int, _ end: Int) {
                        for p in start...end { ink[base + p] = true }
                    }
                    var first = 0
                    while first < pieces.count {
                        var last = first
                        while last + 1 < pieces.count && pieces[last + 1].faintBefore { last += 1 }
                        let span = pieces[last].end - pieces[first].start + 1
                        let longest = pieces[first...last].map { $0.end - $0.start + 1 }.max()!
                        if last - first >= 2, 2 * longest <= span, span >= minimumLength {
                            fill(pieces[first].start, pieces[last].end)
                        } else {
                            for piece in pieces[first...last] where piece.end - piece.start + 1 >= minimumLength { fill(piece.start, piece.end) }
                        }
                        first = last + 1
                    }
                }
            }
        }
    }


    /// The median height of components shaped like characters: taller than 4 pixels, shorter
    /// than a twentieth of the page, no more than three times as wide as tall.
    static func characterHeight(_ components: [Component], pageHeight: Int) -> Double {
        var heights = components.filter { $0.height >= 5 && $0.height <= max(6, pageHeight / 20) && $0.width <= 3 * $0.height }.map(\.height)
        guard !heights.isEmpty else { return 0 }
        heights.sort()
        return Double(heights[heights.count / 2])
    }

    /// A working-scale rectangle in full-resolution pixels, within `size`.
    func fullResolution(_ rect: PixelRect, within size: ImageSize) -> PixelRect {
        let x0 = min(size.width, rect.x * factor), y0 = min(size.height, rect.y * factor)
        let x1 = min(size.width, (rect.x + rect.width) * factor), y1 = min(size.height, (rect.y + rect.height) * factor)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// Whether the component numbered `index` (its label less one) is a ruling line
    /// (`isRule(_:label:labels:width:scale:thickness:)`, found once when the ink is).
    func isRule(_ index: Int) -> Bool { rules[index] }

    /// Whether a component is a ruling line: long (six character heights, `scale`) and thin
    /// (its mean thickness at most `thickness` of `scale`), at any small angle, and as thick all
    /// along: across at least three quarters of its length its thickness is within half of its
    /// median (within a pixel, for a line a pixel or two thick). A long word of small print,
    /// run together into one piece, can be as thin for its length; its ascenders, descenders
    /// and the narrow joins between its letters make it uneven.
    static func isRule(_ component: Component, label: Int32, labels: [Int32], width: Int, scale: Double, thickness: Double) -> Bool {
        let length = max(component.width, component.height)
        let scale = max(scale, 4)
        guard Double(length) >= 6 * scale && Double(component.area) <= thickness * scale * Double(length) else { return false }
        // A line along the image's edge is the page's edge or its shadow, however uneven.
        let height = labels.count / width
        if component.minX == 0 || component.minY == 0 || component.maxX == width - 1 || component.maxY == height - 1 { return true }
        // The thickness across the line at each step along it.
        let across = component.width >= component.height
        var profile = [Int](repeating: 0, count: length)
        for y in component.minY...component.maxY {
            for x in component.minX...component.maxX where labels[y * width + x] == label {
                profile[across ? x - component.minX : y - component.minY] += 1
            }
        }
        let median = profile.sorted()[length / 2]
        let tolerance = max(1, median / 2)
        let even = profile.filter { abs($0 - median) <= tolerance }.count
        return 4 * even >= 3 * length
    }
}
