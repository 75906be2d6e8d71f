import ImageKernels
import ImagingCore

/// Finds text: character-like marks, grouped into lines by alignment and spacing.
///
/// 1. Each pixel is compared with the mean of its neighbourhood (a box of about a 48th of
///    the long side, at least 17 pixels): darker by `margin` levels is dark ink, brighter
///    by as much is light ink (text on a dark ground). Both polarities are searched.
/// 2. Connected marks of each polarity (8-connectivity, labelled run by run) are kept as
///    character candidates when they have a character's proportions: at least
///    `minimumCharacterHeight` pixels tall and at most a fifth of the plane, width 0.1 to
///    `widestMark` heights, filling 12–85% of their box, with strokes (mean horizontal run)
///    under `thickestStroke` of their height. Small print that blur has thickened keeps
///    strokes under about two thirds of its height, and its letters touch into one mark a
///    word long. Bars (planks, blinds, railings) fail the proportions or the strokes (a
///    level bar is one long run), blocks (bricks, windows) the fill or the strokes, and blobs
///    of foliage rarely survive the next step.
/// 3. Candidates link to the next on their right when their heights differ by less than
///    2×, their centres by less than 0.3 height vertically, and the gap between them is
///    under 1.2 heights. A chain of at least `minimumLineCharacters` candidates whose
///    centres stay within a quarter height of their median, and whose heights and stroke
///    widths are as even as a typeface's, is a line of text.
///
/// Regions, heights and line pitch are in full-resolution pixels.
public enum TextFinder {
    /// Marks shorter than this (plane pixels) are not read as characters: below it even a
    /// recognizer that is given them reads little.
    public static let minimumCharacterHeight = 7
    /// Contrast (8-bit levels) a mark needs over its neighbourhood's mean.
    public static let margin = 10
    /// Characters a line needs: a word or two.
    public static let minimumLineCharacters = 6
    /// Widest mark, in heights, read as a character: a short word whose letters blur together
    /// (set so the blurred print of low-resolution phone photos of pages is found).
    static let widestMark = 12.0
    /// Thickest stroke (mean horizontal run), as a share of the mark's height, of a character:
    /// a filled disc's is 0.79, a small blurred letter's at most about two thirds.
    static let thickestStroke = 0.7

    /// What was found on one plane.
    public struct Result: Sendable, Equatable {
        /// Line boxes, in full-resolution pixels, top to bottom.
        public var lines: [PixelRect] = []
        /// Characters in all lines.
        public var characterCount = 0
        /// Median character height in full-resolution pixels (close to the x-height for
        /// lower-case text): 0 without lines.
        public var characterHeight = 0.0
        /// Median height of every character-like mark of the polarities lines were found in,
        /// in lines or not, full-resolution pixels (0 without lines): where lines took only a
        /// heading, the small print they left brings it under `characterHeight`.
        public var markHeight = 0.0
        /// Median distance between the centres of vertically adjacent lines that overlap
        /// horizontally, in full-resolution pixels: 0 with fewer than two such lines.
        public var linePitch = 0.0
        /// Share of the frame covered by line boxes.
        public var coverage = 0.0
        /// Share of the frame covered by the box around every line: how much of the frame the text spans.
        public var extent = 0.0
        /// Which marks the lines are made of.
        public var polarity = Polarity.none
        /// The lines' measures as distributions over the page (`TextLineStatistics`).
        public var lineStatistics = TextLineStatistics()
    }

    /// Dark marks on a light ground, light marks on a dark ground, or both.
    public enum Polarity: String, Sendable, CaseIterable {
        case none, dark, light, mixed
    }

    /// A connected mark.
    struct Mark {
        var minX: Int32, minY: Int32, maxX: Int32, maxY: Int32
        var pixels: Int32, runs: Int32

        var width: Int { Int(maxX - minX) + 1 }
        /// Mean horizontal run: about the stroke width for a character.
        var stroke: Double { Double(pixels) / Double(runs) }
        var height: Int { Int(maxY - minY) + 1 }
        var centreY: Double { (Double(minY) + Double(maxY)) / 2 }
        var centreX: Double { (Double(minX) + Double(maxX)) / 2 }
    }

    /// Finds the text of a plane and its scale, as `AnalysisImage.textPlane()` gives them.
    public static func find(_ text: (plane: PixelBuffer<UInt8>, scale: Double)) -> Result {
        find(text.plane, scale: text.scale)
    }

    /// Finds the text of `plane`, whose pixels are `scale` full-resolution pixels wide.
    public static func find(_ plane: PixelBuffer<UInt8>, scale: Double) -> Result {
        let width = plane.width, height = plane.height
        guard width >= 3 * minimumCharacterHeight, height >= 2 * minimumCharacterHeight else { return Result() }
        let radius = max(8, max(width, height) / 96)
        let ink = inkMask(plane, radius: radius)
        let inkMarks = connectedMarks(ink, width: width, height: height)
        var lines: [(box: PixelRect, characters: [Mark])] = []
        var found: Set<Polarity> = []
        var candidates: [Mark] = []
        for (polarity, all) in [(Polarity.dark, inkMarks.dark), (.light, inkMarks.light)] {
            let marks = all.filter { isCharacter($0, planeHeight: height) }
            let chains = textLines(marks)
            if !chains.isEmpty {
                found.insert(polarity)
                candidates += marks
            }
            lines += chains
        }
        guard !lines.isEmpty else { return Result() }
        // Top to bottom, then left to right: a total order, so records do not depend on the
        // order groups were collected in.
        lines.sort { ($0.box.y, $0.box.x, $0.box.width, $0.box.height) < ($1.box.y, $1.box.x, $1.box.width, $1.box.height) }
        var result = Result()
        result.polarity = found.count == 2 ? .mixed : found.first ?? .none
        result.lines = lines.map { line in
            PixelRect(
                x: Int(Double(line.box.x) * scale), y: Int(Double(line.box.y) * scale),
                width: Int((Double(line.box.width) * scale).rounded(.up)), height: Int((Double(line.box.height) * scale).rounded(.up)))
        }
        let characters = lines.flatMap(\.characters)
        result.characterCount = characters.count
        // One threshold for the whole frame, as Tesseract binarises a page by default; the
        // frame's levels counted on every other row and column (a quarter of the work, and
        // the same threshold within a level or two).
        let threshold = Histogram(plane, step: 2).otsuThreshold
        result.lineStatistics = TextLineStatistics(
            lines: lines.map { TextLineStatistics.measure(plane, box: $0.box, characters: $0.characters, scale: scale, threshold: threshold) },
            ungrouped: 1 - Double(characters.count) / Double(max(candidates.count, characters.count)))
        result.characterHeight = median(characters.map { Double($0.height) }) * scale
        result.markHeight = median(candidates.map { Double($0.height) }) * scale
        result.coverage = min(1, Double(lines.reduce(0) { $0 + $1.box.width * $1.box.height }) / Double(width * height))
        result.linePitch = linePitch(lines.map(\.box)) * scale
        let left = lines.map(\.box.x).min()!, top = lines.map(\.box.y).min()!
        let right = lines.map { $0.box.x + $0.box.width }.max()!, bottom = lines.map { $0.box.y + $0.box.height }.max()!
        result.extent = Double((right - left) * (bottom - top)) / Double(width * height)
        return result
    }

    // MARK: - Steps

    /// The values of `inkMask`: dark ink, light ink (0 is neither); one bit each, never both.
    static let darkInk: UInt8 = 1, lightInk: UInt8 = 2

    /// Dark and light ink in one mask (`darkInk`, `lightInk`, or 0): pixels `margin` levels
    /// below or above the mean of a (2·radius + 1)² box.
    static func inkMask(_ plane: PixelBuffer<UInt8>, radius: Int) -> [UInt8] {
        let width = plane.width, height = plane.height, stride = plane.rowStride
        guard width > 0, height > 0 else { return [] }
        // Column sums over the vertical window, updated row by row; a running sum across
        // them. Unsafe buffers: this loop visits every pixel of a plane of up to 4 MP.
        let columns = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * width)
        columns.initialize(repeating: 0, count: 3 * width)
        defer { columns.deallocate() }
        // How many columns each pixel's window spans.
        let sums = columns + width, spans = columns + 2 * width
        for x in 0..<width { spans[x] = Int32(min(width - 1, x + radius) - max(0, x - radius) + 1) }
        let margin = Int32(Self.margin)
        // Every pixel of the mask is written below, so it starts uninitialised.
        return [UInt8](unsafeUninitializedCapacity: width * height) { mask, initialized in
            plane.withUnsafeBufferPointer { samples in
                do {
                    let base = samples.baseAddress!
                    var top = 0, bottom = -1  // rows currently summed: top...bottom
                    for y in 0..<height {
                        let wantTop = max(0, y - radius), wantBottom = min(height - 1, y + radius)
                        while bottom < wantBottom {
                            bottom += 1
                            let row = base + bottom * stride
                            for x in 0..<width { columns[x] &+= Int32(row[x]) }
                        }
                        while top < wantTop {
                            let row = base + top * stride
                            for x in 0..<width { columns[x] &-= Int32(row[x]) }
                            top += 1
                        }
                        let rows = Int32(bottom - top + 1)
                        let row = base + y * stride
                        let inkRow = mask.baseAddress! + y * width
                        // The box sums of the row (a running sum over the column sums), then
                        // the comparisons, in a loop of their own that the compiler vectorises.
                        var sum: Int32 = 0
                        for x in 0..<min(radius, width) { sum &+= columns[x] }
                        // The window is columns max(0, x − radius)...min(width − 1, x + radius):
                        // columns enter while x + radius < width and leave once x > radius.
                        let entering = max(0, width - radius), leaving = min(width, radius + 1)
                        for x in 0..<min(entering, leaving) {
                            sum &+= columns[x &+ radius]
                            sums[x] = sum
                        }
                        if leaving < entering {
                            // The usual case (the row wider than the window): a column enters
                            // and one leaves at every step, with no test in the loop.
                            for x in leaving..<entering {
                                sum = sum &+ columns[x &+ radius] &- columns[x &- radius &- 1]
                                sums[x] = sum
                            }
                        } else {
                            // The window wider than the row: the middle steps only hold every column.
                            for x in entering..<leaving { sums[x] = sum }
                        }
                        for x in max(entering, leaving)..<width {
                            sum &-= columns[x &- radius &- 1]
                            sums[x] = sum
                        }
                        for x in 0..<width {
                            let count = rows &* spans[x], value = Int32(row[x]) &* count, threshold = margin &* count
                            let dark = value < sums[x] &- threshold ? Self.darkInk : 0
                            let light = value > sums[x] &+ threshold ? Self.lightInk : 0
                            inkRow[x] = dark | light
                        }
                    }
                }
            }
            initialized = width * height
        }
    }

    /// The 8-connected components of the pixels of `mask` equal to `value`, labelled run by
    /// run with union–find, in the order of their first run (top to bottom, left to right).
    static func connectedMarks(_ mask: [UInt8], value: UInt8, width: Int, height: Int) -> [Mark] {
        let both = connectedMarks(mask, width: width, height: height)
        return value == darkInk ? both.dark : value == lightInk ? both.light : []
    }

    /// The marks of dark and of light ink (`connectedMarks(_:value:width:height:)` of each), from
    /// one scan of the mask.
    static func connectedMarks(_ mask: [UInt8], width: Int, height: Int) -> (dark: [Mark], light: [Mark]) {
        var dark = Runs(rows: height, capacity: max(256, width * height / 64))
        var light = Runs(rows: height, capacity: max(256, width * height / 64))
        // Runs of one ink value, row by row, left to right.
        let anyInk = UInt64(darkInk | lightInk) &* 0x0101_0101_0101_0101
        mask.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                dark.rowFirst[y] = dark.count
                light.rowFirst[y] = light.count
                let row = pixels.baseAddress! + y * width
                var x = 0
                while x < width {
                    // Skip to the first of the next eight pixels that holds ink, eight at a time.
                    if x + 8 <= width {
                        let word = UnsafeRawPointer(row + x).loadUnaligned(as: UInt64.self).littleEndian & anyInk
                        if word == 0 {
                            x += 8
                            continue
                        }
                        x += word.trailingZeroBitCount / 8
                    }
                    let value = row[x]
                    guard value != 0 else {
                        x += 1
                        continue
                    }
                    let start = x
                    x += 1
                    // The run's end, eight pixels at a time: the first byte that differs from
                    // `value` is the first non-zero byte of the word XOR the repeated value.
                    let pattern = UInt64(value) &* 0x0101_0101_0101_0101
                    while x + 8 <= width {
                        let difference = UnsafeRawPointer(row + x).loadUnaligned(as: UInt64.self).littleEndian ^ pattern
                        if difference != 0 {
                            x += difference.trailingZeroBitCount / 8
                            break
                        }
                        x += 8
                    }
                    while x < width && row[x] == value { x += 1 }
                    if value == darkInk {
                        dark.append(Int32(start), Int32(x - 1))
                    } else {
                        light.append(Int32(start), Int32(x - 1))
                    }
                }
            }
            dark.rowFirst[height] = dark.count
            light.rowFirst[height] = light.count
        }
        return (marks(of: dark, height: height), marks(of: light, height: height))
    }

    /// Runs of one ink value: each run's first and last column, and where each row's runs
    /// begin, in buffers grown by doubling (an array's append checks its storage is unshared
    /// at every run). Not copyable, so it owns its buffers without being a class, whose
    /// stored properties each append would check for exclusive access at run time.
    struct Runs: ~Copyable {
        private(set) var start: UnsafeMutablePointer<Int32>
        private(set) var end: UnsafeMutablePointer<Int32>
        private(set) var count = 0
        private var capacity: Int
        /// `rowFirst[y]`: the index of row y's first run; `rowFirst[rows]` is `count`.
        let rowFirst: UnsafeMutablePointer<Int>

        init(rows: Int, capacity: Int) {
            self.capacity = capacity
            start = .allocate(capacity: capacity)
            end = .allocate(capacity: capacity)
            rowFirst = .allocate(capacity: rows + 1)
            rowFirst.initialize(repeating: 0, count: rows + 1)
        }

        deinit {
            start.deallocate()
            end.deallocate()
            rowFirst.deallocate()
        }

        @inline(__always)
        mutating func append(_ first: Int32, _ last: Int32) {
            if count == capacity {
                let larger = 2 * capacity
                let starts = UnsafeMutablePointer<Int32>.allocate(capacity: larger), ends = UnsafeMutablePointer<Int32>.allocate(capacity: larger)
                starts.moveInitialize(from: start, count: count)
                ends.moveInitialize(from: end, count: count)
                start.deallocate()
                end.deallocate()
                (start, end, capacity) = (starts, ends, larger)
            }
            start[count] = first
            end[count] = last
            count += 1
        }
    }

    /// The 8-connected components of `runs`, joined with union–find, in the order of their
    /// first run.
    static func marks(of runs: borrowing Runs, height: Int) -> [Mark] {
        let runCount = runs.count
        guard runCount > 0 else { return [] }
        // The buffers below are the runs' own, which live while `runs` is borrowed.
        let runStart = runs.start, runEnd = runs.end, rowFirstRun = runs.rowFirst
        let parent = UnsafeMutablePointer<Int32>.allocate(capacity: runCount)
        defer { parent.deallocate() }
        for i in 0..<runCount { parent[i] = Int32(i) }
        func find(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }
        // Join each run to the runs of the row above that touch it (diagonals included).
        // Both rows' runs are sorted and disjoint, so one forward pointer finds them.
        for y in 1..<max(1, height) {
            var above = rowFirstRun[y - 1]
            let aboveEnd = rowFirstRun[y]
            for run in rowFirstRun[y]..<rowFirstRun[y + 1] {
                let start = runStart[run], end = runEnd[run]
                while above < aboveEnd && runEnd[above] < start - 1 { above += 1 }
                var p = above
                while p < aboveEnd && runStart[p] <= end + 1 {
                    let a = find(Int32(p)), b = find(Int32(run))
                    if a != b { parent[Int(max(a, b))] = min(a, b) }
                    p += 1
                }
            }
        }
        // Each root's mark, numbered by its first run; at most one mark per run, so the marks
        // are gathered in a buffer of that size and copied out once.
        let markOfRoot = UnsafeMutablePointer<Int32>.allocate(capacity: runCount)
        markOfRoot.initialize(repeating: -1, count: runCount)
        defer { markOfRoot.deallocate() }
        let marks = UnsafeMutablePointer<Mark>.allocate(capacity: runCount)
        defer { marks.deallocate() }
        var markCount = 0
        for y in 0..<height {
            for i in rowFirstRun[y]..<rowFirstRun[y + 1] {
                let root = Int(find(Int32(i)))
                let length = runEnd[i] - runStart[i] + 1
                let m = Int(markOfRoot[root])
                if m >= 0 {
                    marks[m].minX = min(marks[m].minX, runStart[i])
                    marks[m].maxX = max(marks[m].maxX, runEnd[i])
                    marks[m].maxY = Int32(y)
                    marks[m].pixels += length
                    marks[m].runs += 1
                } else {
                    markOfRoot[root] = Int32(markCount)
                    (marks + markCount).initialize(to: Mark(minX: runStart[i], minY: Int32(y), maxX: runEnd[i], maxY: Int32(y), pixels: length, runs: 1))
                    markCount += 1
                }
            }
        }
        return Array(UnsafeBufferPointer(start: marks, count: markCount))
    }

    /// Whether a mark has a character's proportions.
    static func isCharacter(_ mark: Mark, planeHeight: Int) -> Bool {
        let h = mark.height, w = mark.width
        guard h >= minimumCharacterHeight, h <= max(minimumCharacterHeight, planeHeight / 5) else { return false }
        let aspect = Double(w) / Double(h)
        guard aspect >= 0.1, aspect <= widestMark else { return false }
        let fill = Double(mark.pixels) / Double(w * h)
        guard fill >= 0.12, fill <= 0.85 else { return false }
        let stroke = Double(mark.pixels) / Double(mark.runs)
        return stroke < thickestStroke * Double(h)
    }

    /// Chains of character candidates aligned as text lines, with their boxes.
    static func textLines(_ marks: [Mark]) -> [(box: PixelRect, characters: [Mark])] {
        guard marks.count >= 3 else { return [] }
        let order = marks.indices.sorted { marks[$0].minX < marks[$1].minX }
        var chains = DisjointSets(count: marks.count)
        for (position, i) in order.enumerated() {
            let a = marks[i]
            let ha = Double(a.height)
            var next = position + 1
            while next < order.count {
                let b = marks[order[next]]
                next += 1
                let gap = Double(b.minX) - Double(a.maxX)
                // Later marks start further right; none can link once the gap exceeds what
                // the tallest partner allowed (twice this height) would allow.
                if gap > 2.4 * ha { break }
                let hb = Double(b.height), tallest = max(ha, hb)
                guard gap <= 1.2 * tallest else { continue }
                guard gap >= -0.3 * tallest, tallest <= 2 * min(ha, hb), abs(a.centreY - b.centreY) <= 0.3 * tallest else { continue }
                chains.union(i, order[next - 1])
            }
        }
        var groups: [Int: [Mark]] = [:]
        for i in marks.indices { groups[chains.root(i), default: []].append(marks[i]) }
        let candidates = groups.values.filter { $0.count >= minimumLineCharacters }
        // The page's slope: the median over characters of the chains' own slopes, at most
        // `steepestLine` either way, when the chains agree on it (their median distance from
        // it at most half of it) and it is a degree or more; else level. A page held askew
        // slopes every line alike; rows of windows on a building seen in perspective converge,
        // and the chains of a photo's textures point every way.
        let slopes = candidates.map { (value: slope(of: $0), weight: Double($0.count)) }
        let typicalSlope = TextLineStatistics.weightedQuantile(slopes, 0.5)
        let spread = TextLineStatistics.weightedQuantile(slopes.map { (abs($0.value - typicalSlope), $0.weight) }, 0.5)
        let agreed = abs(typicalSlope) >= leastSlope && spread <= 0.5 * abs(typicalSlope)
        let pageSlope = agreed ? max(-steepestLine, min(steepestLine, typicalSlope)) : 0
        var lines: [(box: PixelRect, characters: [Mark])] = []
        for members in candidates {
            let heights = members.map { Double($0.height) }
            let typical = median(heights)
            // A line: centres within a quarter height of the median line at the page's slope
            // (level: of their median height), heights and strokes as even as a typeface makes
            // them (a font's x-height and cap height differ by about 1.4×; texture varies
            // freely), and as wide as three characters.
            let offsets = members.map { $0.centreY - pageSlope * $0.centreX }
            let centre = median(offsets)
            guard offsets.allSatisfy({ abs($0 - centre) <= 0.25 * typical + 1 }) else { continue }
            guard relativeSpread(heights) <= 0.25, relativeSpread(members.map(\.stroke)) <= 0.3 else { continue }
            let minX = members.map(\.minX).min()!, maxX = members.map(\.maxX).max()!
            let minY = members.map(\.minY).min()!, maxY = members.map(\.maxY).max()!
            guard Double(maxX - minX + 1) >= 3 * typical else { continue }
            lines.append((PixelRect(x: Int(minX), y: Int(minY), width: Int(maxX - minX) + 1, height: Int(maxY - minY) + 1), members))
        }
        return lines
    }

    /// The steepest slope the page's lines of text may have: tan 10°, a page held well askew.
    static let steepestLine = 0.176
    /// The least slope taken as the page's: tan 1°. Below it lines are level enough.
    static let leastSlope = 0.0175

    /// The least-squares slope of the marks' centres (0 when they share one x).
    static func slope(of marks: [Mark]) -> Double {
        let count = Double(marks.count)
        let mx = marks.reduce(0.0) { $0 + $1.centreX } / count, my = marks.reduce(0.0) { $0 + $1.centreY } / count
        var sxy = 0.0, sxx = 0.0
        for mark in marks {
            sxy += (mark.centreX - mx) * (mark.centreY - my)
            sxx += (mark.centreX - mx) * (mark.centreX - mx)
        }
        return sxx > 0 ? sxy / sxx : 0
    }

    /// The median distance between centres of lines stacked one under the other.
    static func linePitch(_ boxes: [PixelRect]) -> Double {
        let sorted = boxes.sorted { $0.y + $0.height / 2 < $1.y + $1.height / 2 }
        var distances: [Double] = []
        for (i, line) in sorted.enumerated() {
            let centre = Double(line.y) + Double(line.height) / 2
            // The nearest line below that overlaps this one horizontally.
            for other in sorted[(i + 1)...] where other.x < line.x + line.width && line.x < other.x + other.width {
                let distance = Double(other.y) + Double(other.height) / 2 - centre
                if distance > 0.5 * Double(line.height) {
                    distances.append(distance)
                    break
                }
            }
        }
        return median(distances)
    }

    /// Median absolute deviation over the median.
    static func relativeSpread(_ values: [Double]) -> Double {
        let centre = median(values)
        guard centre > 0 else { return .infinity }
        return median(values.map { abs($0 - centre) }) / centre
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return percentile(values.sorted(), 0.5)
    }
}
