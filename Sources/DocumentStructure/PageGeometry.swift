import Foundation
import ImageKernels
import ImagingCore

/// A projective map of the plane: (x, y) → ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)).
struct Homography: Sendable, Equatable {
    var m: [Double]  // a b c d e f g h

    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = m[6] * x + m[7] * y + 1
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    /// The map taking each `from` point to its `to` point (four pairs, no three collinear).
    init?(from: [(Double, Double)], to: [(Double, Double)]) {
        // Eight equations in eight unknowns, solved by Gaussian elimination with partial pivoting.
        var rows: [[Double]] = []
        for ((x, y), (u, v)) in zip(from, to) {
            rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
            rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
        }
        for column in 0..<8 {
            guard let pivot = (column..<8).max(by: { abs(rows[$0][column]) < abs(rows[$1][column]) }), abs(rows[pivot][column]) > 1e-12 else { return nil }
            rows.swapAt(column, pivot)
            for row in 0..<8 where row != column {
                let factor = rows[row][column] / rows[column][column]
                for k in column..<9 { rows[row][k] -= factor * rows[column][k] }
            }
        }
        m = (0..<8).map { rows[$0][8] / rows[$0][$0] }
    }
}

/// Where a photographed page lies in the frame, and the page seen straight on.
///
/// A phone held over a page sees it tilted and foreshortened: rows of a table converge and
/// columns lean. The page is the largest bright region of the frame, or the largest region its
/// edges close off when a bright ground joins it to the frame's edge; its four corners give
/// the projective map to an upright rectangle, in which lines are level and columns upright
/// again. Structure is found and text read there, and every box is mapped back to the photo.
public struct PageGeometry: Sendable, Equatable {
    /// The photo's size and the upright page's size.
    public var sourceSize: ImageSize
    public var pageSize: ImageSize
    /// The page's corners in the photo: top left, top right, bottom right, bottom left.
    public var corners: [PixelPoint]
    /// Upright page → photo.
    var toSource: Homography

    /// The rectangle in the photo covering a rectangle of the upright page.
    public func sourceRect(_ rect: PixelRect) -> PixelRect {
        let points = [(rect.x, rect.y), (rect.x + rect.width, rect.y), (rect.x + rect.width, rect.y + rect.height), (rect.x, rect.y + rect.height)]
            .map { toSource.apply(Double($0.0), Double($0.1)) }
        // Clamped as doubles first: a point far outside (or not finite) never reaches Int.
        func clamp(_ value: Double, _ limit: Int) -> Int { value.isFinite ? Int(min(max(value, 0), Double(limit))) : 0 }
        let x0 = clamp(points.map(\.x).min()!.rounded(.down), sourceSize.width), y0 = clamp(points.map(\.y).min()!.rounded(.down), sourceSize.height)
        let x1 = clamp(points.map(\.x).max()!.rounded(.up), sourceSize.width), y1 = clamp(points.map(\.y).max()!.rounded(.up), sourceSize.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The page in `image` when it stands out from what surrounds it and is seen at an angle;
    /// nil when the page fills the frame (no region that is the sheet, or one whose corners are
    /// the frame's) or already lies square in it (a scan, a render).
    public static func find(in image: PixelBuffer<UInt8>) -> PageGeometry? {
        let longSide = max(image.width, image.height)
        guard longSide >= 200 else { return nil }
        let factor = max(1, min(16, longSide / 500))
        let plane = image.packedLuma
        let small = AreaDownscale.downscale(plane, by: factor)
        let (w, h) = (small.width, small.height)
        let (luma, labels, components) = ConnectedComponents.brightPieces(of: small)
        guard let (index, bright) = components.enumerated().max(by: { $0.element.area < $1.element.area }),
            Double(bright.area) >= minimumShare * Double(w * h)
        else { return nil }
        let label = Int32(index + 1)
        var region = labels.withUnsafeBufferPointer { labels in
            Region(width: w, height: h, component: bright) { labels[$0] == label }
        }
        // A bright ground joined to the sheet reaches the frame's edge: the region bounded by
        // the sheet's edges is taken instead, when there is one.
        if region.frameShare(width: w, height: h) > largestFrameShare,
            let bounded = boundedRegion(luma, width: w, height: h)
        {
            region = bounded
        }
        let best = region.corners
        let corners = best.map { (Double($0.x) * Double(factor) + Double(factor) / 2, Double($0.y) * Double(factor) + Double(factor) / 2) }
        // Square already: each corner within 1.5% of the page's bounding box's corner.
        let xs = corners.map(\.0), ys = corners.map(\.1)
        let box = (xs.min()!, ys.min()!, xs.max()!, ys.max()!)
        let boxCorners = [(box.0, box.1), (box.2, box.1), (box.2, box.3), (box.0, box.3)]
        let tolerance = 0.015 * Double(longSide)
        if zip(corners, boxCorners).allSatisfy({ abs($0.0 - $1.0) <= tolerance && abs($0.1 - $1.1) <= tolerance }) { return nil }
        func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double { hypot(a.0 - b.0, a.1 - b.1) }
        let width = max(distance(corners[0], corners[1]), distance(corners[3], corners[2]))
        let height = max(distance(corners[0], corners[3]), distance(corners[1], corners[2]))
        guard width >= 100, height >= 100 else { return nil }
        // Foreshortening shortens the page along the tilt, so its edges in the photo do not give
        // its shape. A page within a tenth of a paper size's shape is taken to have it (ISO A
        // sizes, US Letter and Legal, either way up), keeping its longer side.
        var (pageWidth, pageHeight) = (width, height)
        let ratio = max(width, height) / min(width, height)
        if let paper = Self.paperRatios.min(by: { abs($0 - ratio) < abs($1 - ratio) }), abs(paper - ratio) / paper <= 0.1 {
            if height >= width { pageWidth = height / paper } else { pageHeight = width / paper }
        }
        let pageSize = ImageSize(width: Int(pageWidth.rounded()), height: Int(pageHeight.rounded()))
        let upright = [(0.0, 0.0), (pageWidth, 0), (pageWidth, pageHeight), (0, pageHeight)]
        // A region whose corners coincide or line up (a triangle, a sliver) is no page.
        for corner in 0..<4 {
            let (a, b, c) = (corners[corner], corners[(corner + 1) % 4], corners[(corner + 2) % 4])
            let cross = (b.0 - a.0) * (c.1 - b.1) - (b.1 - a.1) * (c.0 - b.0)
            guard cross > 0.05 * width * height else { return nil }
        }
        guard let toSource = Homography(from: upright, to: corners),
            upright.allSatisfy({ point in
                let mapped = toSource.apply(point.0, point.1)
                return mapped.x.isFinite && mapped.y.isFinite
            })
        else { return nil }
        return PageGeometry(
            sourceSize: image.size, pageSize: pageSize, corners: corners.map { PixelPoint(x: Int($0.0.rounded()), y: Int($0.1.rounded())) },
            toSource: toSource)
    }

    /// The page's region holds at least this share of the frame (at the reduced size).
    static let minimumShare = 0.2
    /// A region with more than this share of the frame's outermost pixels reaches past the
    /// frame: a bright ground joined to the sheet, or a sheet larger than the frame.
    static let largestFrameShare = 0.02
    /// Where the luma changes by this many levels per pixel or more (half the difference of the
    /// two neighbours, at about 500 pixels on the long side) there is an edge: a sheet's edge
    /// against its ground steps by 10 levels or more over a pixel or two, 5 or more a pixel,
    /// while light falling off across paper or a blurred ground changes by under one.
    static let edgeStep = 3
    /// A region closed off by edges is the sheet only when at most this share of the frame's
    /// edge pixels lie outside its bounding box (grown by `edgeMargin` pixels): a sheet on a
    /// plain ground leaves under 1% there (a shadow's sharp edge 7%), a ruled box on a page that
    /// fills the frame leaves the page's other print.
    static let largestEdgeShareOutside = 0.1
    static let edgeMargin = 3

    /// One labelled component of the reduced frame: its box and area, how many of its pixels
    /// lie on the frame's outermost rows and columns, and its corners (`DiagonalExtremes`).
    struct Region {
        let component: ConnectedComponents.Component
        var area: Int { component.area }
        var onFrame = 0
        var extremes = DiagonalExtremes()
        var corners: [DiagonalExtremes.Extreme] { extremes.corners }

        /// The component's pixels: those of its box for which `contains` (given the raster index) holds.
        init(width: Int, height: Int, component: ConnectedComponents.Component, contains: (Int) -> Bool) {
            self.component = component
            for y in component.minY...component.maxY {
                for x in component.minX...component.maxX where contains(y * width + x) {
                    if x == 0 || y == 0 || x == width - 1 || y == height - 1 { onFrame += 1 }
                    extremes.add(x, y)
                }
            }
        }

        /// The share of the frame's outermost pixels that are the region's.
        func frameShare(width: Int, height: Int) -> Double {
            let outermost = width < 3 || height < 3 ? width * height : 2 * (width + height) - 4
            return Double(onFrame) / Double(outermost)
        }
    }

    /// The largest region of the reduced frame enclosed by edges (4-connected pixels where the
    /// luma changes by less than `edgeStep` per pixel) that reaches no further than
    /// `largestFrameShare` onto the frame's edge and holds `minimumShare` of it; nil when there
    /// is none. Paper is flat between its letters, which the region goes around; the sheet's
    /// edge closes it off from the ground whatever their brightness, where a threshold on
    /// brightness joins a bright ground to it. A region with more than
    /// `largestEdgeShareOutside` of the frame's edges outside it is a box on the page, not the
    /// page, and none is returned.
    static func boundedRegion(_ luma: [UInt8], width w: Int, height h: Int) -> Region? {
        var flat = [Bool](repeating: false, count: w * h)
        let limit = 4 * edgeStep * edgeStep  // on the full differences, twice the central ones
        for y in 0..<h {
            for x in 0..<w {
                let dx = x == 0 || x == w - 1 ? 0 : Int(luma[y * w + x + 1]) - Int(luma[y * w + x - 1])
                let dy = y == 0 || y == h - 1 ? 0 : Int(luma[(y + 1) * w + x]) - Int(luma[(y - 1) * w + x])
                flat[y * w + x] = dx * dx + dy * dy < limit
            }
        }
        let (labels, components) = ConnectedComponents.label(flat, width: w, height: h, connectivity: .four)
        var best: Region?
        for (index, component) in components.enumerated()
        where Double(component.area) >= minimumShare * Double(w * h) && component.area > best?.area ?? 0 {
            let label = Int32(index + 1)
            let region = Region(width: w, height: h, component: component) { labels[$0] == label }
            if region.frameShare(width: w, height: h) <= largestFrameShare { best = region }
        }
        guard let best else { return nil }
        let box = best.component
        let x0 = max(0, box.minX - edgeMargin), x1 = min(w - 1, box.maxX + edgeMargin)
        let y0 = max(0, box.minY - edgeMargin), y1 = min(h - 1, box.maxY + edgeMargin)
        let edges = flat.reduce(0) { $1 ? $0 : $0 + 1 }
        var inside = 0
        for y in y0...y1 { for x in x0...x1 where !flat[y * w + x] { inside += 1 } }
        return Double(edges - inside) <= largestEdgeShareOutside * Double(edges) ? best : nil
    }

    // MARK: - Text lines levelled

    /// Slants (in degrees) searched for, either way, and the finest step of the search. A phone
    /// held over a page turns it by a few degrees, now and then by ten or more.
    static let largestSlant = 12.0
    static let slantStep = 0.05
    /// A slant smaller than this everywhere is left alone: the page is level already.
    static let levelWithin = 0.3
    /// The lines' profile must be at least this much sharper at the slant found than level
    /// (sum of squared steps between rows' counts), else the page holds too little text in
    /// lines to tell.
    static let sharperBy = 1.05
    /// The halves' slants are used when both lie within this many degrees of the whole page's.
    static let halvesAgreeWithin = 1.0
    /// The lines' slant is measured with the page's long side reduced to about this many pixels.
    static let levellingLongSide = 600

    /// The map levelling the text lines of a page that fills the frame (so `find` sees no
    /// page edge) photographed at an angle; nil when they are level already or there are too
    /// few to tell.
    ///
    /// The lines' slant is where the ink's row profile along it is sharpest (the sum of the
    /// squared steps between the counts of ink pixels of neighbouring rows is largest: lines'
    /// tops and bottoms are crisp only along them), found over the whole page and in its
    /// upper and lower halves apart: a phone turned about the page's vertical axis makes the
    /// lines converge, so the slant changes down the page; the halves' slants are used when
    /// both lie within `halvesAgreeWithin` of the whole page's. The map takes the upright
    /// page to the quadrilateral whose top and bottom edges have the slants carried to them
    /// from the halves' ink centroids, its sides square to the mean slant (a phone turned in
    /// the page's plane rotates the page).
    public static func levelling(in image: PixelBuffer<UInt8>) -> PageGeometry? {
        LevellingInk(image).flatMap { levelling(ink: $0, size: image.size) }
    }

    /// `levelling(in:)` from the image's ink, measured already.
    static func levelling(ink: LevellingInk, size: ImageSize) -> PageGeometry? {
        let (upper, lower, h, factor) = (ink.upper, ink.lower, ink.height, ink.factor)
        let centreX = Double(ink.width) / 2
        // The whole page's slant; the halves' where each has lines enough and they agree
        // with it (a half with a few lines beside a block of code or a picture misleads).
        // A page level as a whole is used as it is (the halves are not searched).
        let whole = ink.slant
        guard whole != 0 else { return nil }
        var (top, bottom) = (whole, whole)
        if let measuredTop = slant(of: upper, centreX: centreX, height: h), let measuredBottom = slant(of: lower, centreX: centreX, height: h),
            abs(measuredTop - whole) <= halvesAgreeWithin, abs(measuredBottom - whole) <= halvesAgreeWithin
        {
            (top, bottom) = (measuredTop, measuredBottom)
        }
        guard max(abs(top), abs(bottom)) >= levelWithin else { return nil }
        // Slopes at the halves' ink centroids, interpolated (and extrapolated) down the page.
        let yTop = upper.isEmpty ? Double(h) / 4 : upper.reduce(0) { $0 + $1.y } / Double(upper.count)
        let yBottom = lower.isEmpty ? Double(h) * 3 / 4 : lower.reduce(0) { $0 + $1.y } / Double(lower.count)
        let (slopeTop, slopeBottom) = (tan(top * .pi / 180), tan(bottom * .pi / 180))
        func slope(at y: Double) -> Double { slopeTop + (slopeBottom - slopeTop) * (y - yTop) / max(1, yBottom - yTop) }
        let meanSlope = (slopeTop + slopeBottom) / 2
        let (width, height) = (Double(size.width), Double(size.height))
        let (cx, cy) = (width / 2, height / 2)
        func corner(_ x: Double, _ y: Double) -> (Double, Double) {
            let across = x - cx
            return (cx + across - meanSlope * (y - cy), y + slope(at: y / Double(factor)) * across)
        }
        let upright = [(0.0, 0.0), (width, 0), (width, height), (0, height)]
        guard let toSource = Homography(from: upright, to: upright.map { corner($0.0, $0.1) }) else { return nil }
        return PageGeometry(
            sourceSize: size, pageSize: size,
            corners: upright.map { corner($0.0, $0.1) }.map { PixelPoint(x: Int($0.0.rounded()), y: Int($0.1.rounded())) }, toSource: toSource)
    }

    /// The ink pixels `levelling` measures the lines' slant from, in the upper and lower halves
    /// of the page reduced to about `levellingLongSide` pixels on its long side.
    struct LevellingInk {
        var upper: [(x: Double, y: Double)] = [], lower: [(x: Double, y: Double)] = []
        let width: Int, height: Int, factor: Int

        /// Nil for an image under 200 pixels on its long side.
        init?(_ image: PixelBuffer<UInt8>) {
            let longSide = max(image.width, image.height)
            guard longSide >= 200 else { return nil }
            // At most about 600 pixels on the long side: a slant of 0.1° is a pixel across it.
            factor = max(1, min(16, longSide / PageGeometry.levellingLongSide))
            let small = AreaDownscale.downscale(image.packedLuma, by: factor)
            let (w, h) = (small.width, small.height)
            (width, height) = (w, h)
            var luma = [UInt8](repeating: 0, count: w * h)
            small.withUnsafeBufferPointer { pixels in
                for y in 0..<h { for x in 0..<w { luma[y * w + x] = pixels[y * small.rowStride + x] } }
            }
            // Ink as `PageInk` finds it: darker than its neighbourhood's mean by a fraction and a margin.
            let background = PageInk.localMean(luma, width: w, height: h, radius: max(8, max(w, h) / 60))
            for y in 0..<h {
                for x in 0..<w {
                    let mean = Int(background[y * w + x]), value = Int(luma[y * w + x])
                    guard mean - value >= PageInk.minimumContrast, Double(value) < Double(mean) * (1 - PageInk.darkerBy) else { continue }
                    if 2 * y < h { upper.append((Double(x), Double(y))) } else { lower.append((Double(x), Double(y))) }
                }
            }
            slant = PageGeometry.slant(of: upper + lower, centreX: Double(w) / 2, height: h) ?? 0
        }

        /// The whole page's slant in degrees (0 when level or too little text to tell).
        let slant: Double
    }

    /// The page seen straight on, and the map that made it (nil when the photo is used as it is).
    ///
    /// The page found by its edges (`find`) is rectified, unless its text leans more in the
    /// rectified page than in the photo, by `levelWithin` or more: the region taken for the
    /// page was not the page (paper in shade split from paper in light, or a bright ground
    /// joined to the sheet), so its corners are not the page's. The photo is then levelled
    /// by its lines, as a page that fills the frame is.
    public static func upright(_ photo: PixelBuffer<UInt8>) -> (geometry: PageGeometry?, page: PixelBuffer<UInt8>) {
        func levelled(_ ink: LevellingInk?) -> (geometry: PageGeometry?, page: PixelBuffer<UInt8>) {
            guard let geometry = ink.flatMap({ levelling(ink: $0, size: photo.size) }) else { return (nil, photo) }
            return (geometry, geometry.rectify(photo))
        }
        guard let found = find(in: photo) else { return levelled(LevellingInk(photo)) }
        let rectified = found.rectify(photo)
        let leans = abs(LevellingInk(rectified)?.slant ?? 0)
        if leans < levelWithin { return (found, rectified) }
        // The photo's ink is measured once, for the comparison and for the levelling.
        let photoInk = LevellingInk(photo)
        return leans <= abs(photoInk?.slant ?? 0) ? (found, rectified) : levelled(photoInk)
    }

    /// The slant (degrees, positive when lines fall to the right) at which the points' row
    /// profile is sharpest, or nil when there are too few points or no slant sharpens it by
    /// `sharperBy` over level (for a page level within `levelWithin`, 0).
    static func slant(of points: [(x: Double, y: Double)], centreX: Double, height: Int) -> Double? {
        guard points.count >= 200 else { return nil }
        let span = Int((Double(height) + 2 * centreX * tan(largestSlant * .pi / 180)).rounded(.up)) + 2
        let offset = Double(span - height) / 2
        var rows = [Int](repeating: 0, count: span)
        func sharpness(_ degrees: Double) -> Double {
            let slope = tan(degrees * .pi / 180)
            for index in rows.indices { rows[index] = 0 }
            for point in points {
                let row = Int(point.y - slope * (point.x - centreX) + offset)
                if row >= 0 && row < span { rows[row] += 1 }
            }
            var sum = 0.0
            for row in 1..<span {
                let step = Double(rows[row] - rows[row - 1])
                sum += step * step
            }
            return sum
        }
        // Coarse steps, then fine ones around the best.
        var best = (degrees: 0.0, score: sharpness(0))
        let level = best.score
        for step in stride(from: -largestSlant, through: largestSlant, by: 0.25) {
            let score = sharpness(step)
            if score > best.score { best = (step, score) }
        }
        let coarse = best.degrees
        for step in stride(from: coarse - 0.25, through: coarse + 0.25, by: slantStep) {
            let score = sharpness(step)
            if score > best.score { best = (step, score) }
        }
        if abs(best.degrees) < levelWithin { return 0 }
        return best.score >= sharperBy * level ? best.degrees : 0
    }

    /// Long side over short side of ISO A paper, US Letter and US Legal.
    static let paperRatios: [Double] = [(2 as Double).squareRoot(), 11 / 8.5, 14 / 8.5]

    /// The upright page, sampled bilinearly from the photo's first channel.
    public func rectify(_ image: PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var out = PixelBuffer<UInt8>(width: pageSize.width, height: pageSize.height)
        let (sw, sh, stride, channels) = (image.width, image.height, image.rowStride, image.channels)
        guard sw > 0, sh > 0 else { return out }
        let (pw, ph) = (pageSize.width, pageSize.height)
        // `toSource.apply` written out with its coefficients in registers and each row's
        // terms computed once.
        let m = toSource.m
        let (m0, m1, m2, m3, m4, m5, m6, m7) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7])
        let (maxX, maxY) = (Double(sw - 1), Double(sh - 1))
        image.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                let pixels = source.baseAddress!, page = target.baseAddress!
                // A pixel from where the map puts it (`sx`, `sy`): bilinear interpolation
                // between its four neighbours.
                @inline(__always) func sample(_ sx: Double, _ sy: Double) -> UInt8 {
                    // Not finite only where the map is degenerate, which `find` refuses: paper there.
                    guard sx.isFinite, sy.isFinite else { return 255 }
                    let fx = min(max(sx - 0.5, 0), maxX), fy = min(max(sy - 0.5, 0), maxY)
                    let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1)
                    let ax = fx - Double(x0), ay = fy - Double(y0)
                    let r0 = pixels + y0 * stride, r1 = pixels + y1 * stride
                    let top = Double(r0[x0 * channels]) * (1 - ax) + Double(r0[x1 * channels]) * ax
                    let bottom = Double(r1[x0 * channels]) * (1 - ax) + Double(r1[x1 * channels]) * ax
                    return UInt8(min(255, top * (1 - ay) + bottom * ay + 0.5))
                }
                // Four pixels at a time: the map, one division each (by the reciprocal of the
                // projective denominator), and the interpolation, in lanes, each lane the same
                // arithmetic in the same order as `sample` (so the same pixels); `sample` at a
                // row's end and where the map is not finite. Doubles holding whole numbers
                // from 0 to 2⁵¹ pass to and from integers through the bits of 2⁵² + n
                // (`wholeBits`), without the checks of the standard library's conversions.
                let lanes = SIMD4<Double>(0.5, 1.5, 2.5, 3.5)
                let (lowest, highX, highY) = (SIMD4<Double>(repeating: 0), SIMD4<Double>(repeating: maxX), SIMD4<Double>(repeating: maxY))
                let (lastX, lastY) = (SIMD4<UInt64>(repeating: UInt64(sw - 1)), SIMD4<UInt64>(repeating: UInt64(sh - 1)))
                let whole = SIMD4<Double>(repeating: 4_503_599_627_370_496), wholeBits = SIMD4<UInt64>(repeating: 0x4330_0000_0000_0000)
                @inline(__always) func integers(_ value: SIMD4<Double>) -> SIMD4<UInt64> {
                    unsafeBitCast(value + whole, to: SIMD4<UInt64>.self) & 0x000F_FFFF_FFFF_FFFF
                }
                // Each lane as `min(max(value, 0), high)` gives it (the standard library's
                // generic `pointwiseMin` and `clamped` are not specialised for lanes of doubles).
                @inline(__always) func clamp(_ value: SIMD4<Double>, _ high: SIMD4<Double>) -> SIMD4<Double> {
                    let low = value.replacing(with: lowest, where: value .< lowest)
                    return low.replacing(with: high, where: low .> high)
                }
                @inline(__always) func doubles(_ value: SIMD4<UInt64>) -> SIMD4<Double> {
                    unsafeBitCast(value | wholeBits, to: SIMD4<Double>.self) - whole
                }
                let (pitch, step) = (UInt64(stride), UInt64(channels))
                for y in 0..<ph {
                    let v = Double(y) + 0.5
                    let (m1v, m4v, m7v) = (m1 * v, m4 * v, m7 * v)
                    let row = page + y * pw
                    var x = 0
                    while x + 4 <= pw {
                        let u = Double(x) + lanes
                        let r = 1 / (m6 * u + m7v + 1)
                        let sx = (m0 * u + m1v + m2) * r, sy = (m3 * u + m4v + m5) * r
                        // A lane is finite when it times 0 is 0 (not NaN).
                        guard all(sx * 0 .== lowest .& sy * 0 .== lowest) else {
                            for lane in 0..<4 { row[x + lane] = sample(sx[lane], sy[lane]) }
                            x += 4
                            continue
                        }
                        let fx = clamp(sx - 0.5, highX), fy = clamp(sy - 0.5, highY)
                        let wx = fx.rounded(.towardZero), wy = fy.rounded(.towardZero)
                        let (x0, y0) = (integers(wx), integers(wy))
                        let x1 = (x0 &+ 1).replacing(with: lastX, where: x0 .>= lastX), y1 = (y0 &+ 1).replacing(with: lastY, where: y0 .>= lastY)
                        let ax = fx - wx, ay = fy - wy
                        let (r0, r1, c0, c1) = (y0 &* pitch, y1 &* pitch, x0 &* step, x1 &* step)
                        var p00 = SIMD4<UInt64>(), p01 = p00, p10 = p00, p11 = p00
                        for lane in 0..<4 {
                            p00[lane] = UInt64(pixels[Int(truncatingIfNeeded: r0[lane] &+ c0[lane])])
                            p01[lane] = UInt64(pixels[Int(truncatingIfNeeded: r0[lane] &+ c1[lane])])
                            p10[lane] = UInt64(pixels[Int(truncatingIfNeeded: r1[lane] &+ c0[lane])])
                            p11[lane] = UInt64(pixels[Int(truncatingIfNeeded: r1[lane] &+ c1[lane])])
                        }
                        let top = doubles(p00) * (1 - ax) + doubles(p01) * ax
                        let bottom = doubles(p10) * (1 - ax) + doubles(p11) * ax
                        let value = top * (1 - ay) + bottom * ay + 0.5
                        let level = integers(value.replacing(with: 255, where: value .> 255).rounded(.towardZero))
                        for lane in 0..<4 { row[x + lane] = UInt8(truncatingIfNeeded: level[lane]) }
                        x += 4
                    }
                    while x < pw {
                        let u = Double(x) + 0.5
                        let r = 1 / (m6 * u + m7v + 1)
                        row[x] = sample((m0 * u + m1v + m2) * r, (m3 * u + m4v + m5) * r)
                        x += 1
                    }
                }
            }
        }
        return out
    }
}

extension PixelBuffer where Sample == UInt8 {
    /// The first channel as one plane with packed rows: the buffer itself when it already is one,
    /// else a copy. Every step of the document path reads its pixels this way.
    var packedLuma: PixelBuffer<UInt8> {
        guard channels != 1 || rowStride != width else { return self }
        var plane = PixelBuffer<UInt8>(width: width, height: height)
        let (width, height, stride, channels) = (self.width, self.height, rowStride, self.channels)
        plane.withUnsafeMutableBufferPointer { out in
            withUnsafeBufferPointer { pixels in
                for y in 0..<height {
                    for x in 0..<width { out[y * width + x] = pixels[y * stride + x * channels] }
                }
            }
        }
        return plane
    }
}
