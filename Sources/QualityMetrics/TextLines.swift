import Glibc
import ImageKernels
import ImagingCore

/// What a recognizer meets on each text line `TextFinder` found, kept as distributions over
/// the page rather than one crop: a page reads as well as its smallest, softest and faintest
/// lines let it.
///
/// For each line, on the text plane's pixels inside its box:
/// - **x-height**: the mean height of the middle half of its characters, full-resolution pixels.
/// - **contrast**: paper minus ink, the 95th minus the 5th percentile of the box's levels
///   (light text on a dark ground the other way round; the magnitude is the same).
/// - **blur**: the width of a stroke's edge over the line's x-height. The edge width is the
///   contrast over the 95th percentile of the horizontal central difference (vertical strokes
///   dominate Latin and Cyrillic text): a sharp edge measures 2 plane pixels, a ramp of L
///   pixels about L; in full-resolution pixels a sharp edge's own width is counted once
///   (`TextDetector.fullResolutionWidth`). Over the x-height it says how much of a letter's
///   inside the blur fills, at any resolution.
/// - **noise**: the mean absolute second difference along rows over the paper (levels above
///   the midpoint between ink and paper by a quarter of the contrast), relative to the
///   contrast: grain and JPEG ringing on the ground the letters stand on.
/// - **skew**: the slope of the characters' baselines (least squares through their bottoms),
///   in degrees.
/// - **binarized**: how much of the line survives one threshold for the whole frame, as
///   Tesseract binarises a page by default (Otsu's threshold of the frame's levels): the share
///   of its ink pixels (beyond the midpoint between ink and paper) on the ink's side of the
///   frame's threshold, times the share of its paper pixels on the paper's side. Light print on
///   a page photographed on a dark desk lies above a threshold the desk pulls down and
///   vanishes; paper in a shadow falls below it and turns to ink; glare lifts ink above it.
///
/// The page's figures weigh each line by its characters: quantiles are over characters, so a
/// long line of body text counts more than a heading.
public struct TextLineStatistics: Sendable, Equatable {
    /// Median x-height over the characters of all lines, full-resolution pixels.
    public var xHeight = 0.0
    /// 10th percentile of the lines' x-heights (the small print).
    public var xHeightP10 = 0.0
    /// Median of the lines' edge width over x-height.
    public var blur = 0.0
    /// 90th percentile of the same (the softest lines).
    public var blurP90 = 0.0
    /// Median of the lines' contrast, 8-bit levels.
    public var contrast = 0.0
    /// 10th percentile of the same (the faintest lines).
    public var contrastP10 = 0.0
    /// Median of the lines' paper noise over their contrast.
    public var noise = 0.0
    /// Median absolute baseline slope, degrees.
    public var skew = 0.0
    /// 90th minus 10th percentile of the baseline slopes, degrees: how far the lines disagree
    /// (perspective, a curled page).
    public var skewSpread = 0.0
    /// Share of the character-like marks that no line took: text the finder saw but could
    /// not read as lines (too small, too blurred, too distorted).
    public var ungrouped = 0.0
    /// Mean over characters of their line's share that one threshold for the whole frame
    /// keeps (`binarized` above): about the share of the text a global binarisation leaves.
    public var binarized = 0.0

    public init() {}

    /// One line's measures.
    public struct Line: Sendable, Equatable {
        public var characters: Int
        public var xHeight: Double
        public var contrast: Double
        public var blur: Double
        public var noise: Double
        public var skew: Double
        public var binarized: Double
    }

    /// The page's figures from its lines, and the share of character-like marks left ungrouped.
    public init(lines: [Line], ungrouped: Double) {
        self.ungrouped = ungrouped
        guard !lines.isEmpty else { return }
        func quantile(_ value: KeyPath<Line, Double>, _ fraction: Double) -> Double {
            Self.weightedQuantile(lines.map { ($0[keyPath: value], Double($0.characters)) }, fraction)
        }
        xHeight = quantile(\.xHeight, 0.5)
        xHeightP10 = quantile(\.xHeight, 0.1)
        blur = quantile(\.blur, 0.5)
        blurP90 = quantile(\.blur, 0.9)
        contrast = quantile(\.contrast, 0.5)
        contrastP10 = quantile(\.contrast, 0.1)
        noise = quantile(\.noise, 0.5)
        skew = Self.weightedQuantile(lines.map { (abs($0.skew), Double($0.characters)) }, 0.5)
        skewSpread = quantile(\.skew, 0.9) - quantile(\.skew, 0.1)
        let characters = lines.reduce(0.0) { $0 + Double($1.characters) }
        binarized = characters > 0 ? lines.reduce(0.0) { $0 + $1.binarized * Double($1.characters) } / characters : 0
    }

    /// The smallest value whose cumulative weight reaches `fraction` of the total.
    static func weightedQuantile(_ values: [(value: Double, weight: Double)], _ fraction: Double) -> Double {
        let sorted = values.sorted { $0.value < $1.value }
        let total = sorted.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return 0 }
        var running = 0.0
        for entry in sorted {
            running += entry.weight
            if running >= fraction * total { return entry.value }
        }
        return sorted.last!.value
    }

    /// The measures of one line of `characters` (boxes in plane pixels) on `plane`, whose
    /// pixels are `scale` full-resolution pixels wide; `threshold` is Otsu's threshold of the
    /// whole plane.
    static func measure(
        _ plane: PixelBuffer<UInt8>, box: PixelRect, characters: [TextFinder.Mark], scale: Double, threshold: Int
    ) -> Line {
        let x0 = max(0, box.x), y0 = max(0, box.y)
        let x1 = min(plane.width, box.x + box.width), y1 = min(plane.height, box.y + box.height)
        guard !characters.isEmpty, x1 > x0, y1 > y0 else {
            return Line(characters: characters.count, xHeight: 0, contrast: 0, blur: 0, noise: 0, skew: 0, binarized: 0)
        }
        let histogram = Histogram(plane, in: box)
        // The steps across each pixel, counted through the buffers' pointers: an array's `+=`
        // checks its bounds and that its storage is unshared at every pixel.
        var slopes = [Int](repeating: 0, count: 256)
        if x1 - x0 >= 3 {
            plane.withUnsafeBufferPointer { pixels in
                slopes.withUnsafeMutableBufferPointer { slopes in
                    let slopes = slopes.baseAddress!
                    for y in y0..<y1 {
                        let row = pixels.baseAddress! + y * plane.rowStride
                        for x in (x0 + 1)..<(x1 - 1) { slopes[abs(Int(row[x + 1]) - Int(row[x - 1])) / 2] += 1 }
                    }
                }
            }
        }
        let ink = Double(histogram.percentile(0.05)), paper = Double(histogram.percentile(0.95))
        let contrast = paper - ink
        let steepest = Double(Histogram(counts: slopes).percentile(0.95))
        let edge = steepest > 0 ? contrast / steepest : 0
        // The mean of the middle half of the heights: the median of whole pixels is too coarse
        // for small print (7 or 8 pixels), and the mean of all is pulled by capitals and descenders.
        let heights = characters.map { Double($0.height) }.sorted()
        let middle = heights[(heights.count / 4)...((3 * heights.count - 1) / 4)]
        let xHeight = middle.reduce(0, +) / Double(middle.count) * scale
        let blur = xHeight > 0 ? TextDetector.fullResolutionWidth(edge, scale: scale) / xHeight : 0
        // Paper noise: which side is paper depends on the polarity; the brighter side is
        // paper for dark text, and the larger class of the box is the ground either way.
        let midpoint = (ink + paper) / 2
        let darkShare = histogram.fraction(atOrBelow: Int(midpoint))
        let paperIsBright = darkShare < 0.5
        let cut = paperIsBright ? midpoint + contrast / 4 : midpoint - contrast / 4
        var roughness = 0.0, count = 0
        plane.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress!
            for y in y0..<y1 where x1 - x0 >= 3 {
                let row = base + y * plane.rowStride
                for x in (x0 + 1)..<(x1 - 1) {
                    let a = Double(row[x - 1]), b = Double(row[x]), c = Double(row[x + 1])
                    let onPaper = paperIsBright ? min(a, b, c) > cut : max(a, b, c) < cut
                    if onPaper {
                        roughness += abs(2 * b - a - c) / 2
                        count += 1
                    }
                }
            }
        }
        let noise = count > 0 && contrast > 0 ? roughness / Double(count) / contrast : 0
        return Line(
            characters: characters.count, xHeight: xHeight, contrast: contrast, blur: blur, noise: noise,
            skew: baselineSlope(characters),
            binarized: binarizedShare(histogram, midpoint: Int(midpoint), threshold: threshold))
    }

    /// The share of a line's pixels at or below `midpoint` that are at or below `threshold`,
    /// times the share of those above it that are above `threshold`: ink and paper each on
    /// their own side, whichever of them is the darker. 0 for a box without both.
    static func binarizedShare(_ histogram: Histogram, midpoint: Int, threshold: Int) -> Double {
        let total = histogram.total
        let belowMid = histogram.count(atOrBelow: midpoint), aboveMid = total - belowMid
        guard belowMid > 0, aboveMid > 0 else { return 0 }
        let darkKept: Double, brightKept: Double
        if threshold < midpoint {
            // Dark-side pixels above the threshold are read as bright.
            darkKept = Double(histogram.count(atOrBelow: threshold)) / Double(belowMid)
            brightKept = 1
        } else {
            // Bright-side pixels at or below the threshold are read as dark.
            darkKept = 1
            brightKept = Double(total - histogram.count(atOrBelow: threshold)) / Double(aboveMid)
        }
        return darkKept * brightKept
    }

    /// The slope, in degrees, of the least-squares line through the characters' bottoms
    /// against their centres (positive: falling to the right in image coordinates).
    static func baselineSlope(_ characters: [TextFinder.Mark]) -> Double {
        guard characters.count >= 2 else { return 0 }
        let xs = characters.map { (Double($0.minX) + Double($0.maxX)) / 2 }, ys = characters.map { Double($0.maxY) }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        guard sxx > 0 else { return 0 }
        return atan(sxy / sxx) * 180 / .pi
    }
}
