import ImageKernels
import ImagingCore

/// A sheet of paper photographed on a darker ground (a page on a desk, a receipt on a
/// table): the largest region brighter than Otsu's threshold of the frame, with the holes
/// its ink makes filled in, when it is a four-sided shape clear of most of the frame's edge,
/// without colour of its own and clearly brighter than what surrounds it.
///
/// The page rules of `TextObservation.showsPage` read the whole frame (its colour, its
/// paper level, its row regularity), so a blurred page lying on a coloured desk fails them
/// although the text finder found some of its lines: the desk is colourful, and its rows
/// are broken by the desk at both ends. The sheet is that page's shape.
public struct PaperSheet: Sendable, Equatable {
    /// The share of the frame the sheet covers, holes included.
    public var share: Double
    /// Intersection over union of the sheet and the quadrilateral of its four extreme
    /// points along the diagonals: 1 for a four-sided sheet seen in perspective.
    public var quadrilateralOverlap: Double
    /// The share of the frame's edge pixels the sheet covers (0 when it lies inside the frame).
    public var edgeShare: Double
    /// Hasler–Süsstrunk M over the sheet; −1 without colour.
    public var colourfulness: Double
    /// Mean level of the sheet's bright pixels, and of everything outside the sheet.
    public var paperLevel: Double
    public var groundLevel: Double
    /// The largest hole (dark region inside the sheet) over the sheet's area: text makes
    /// small holes; a dark pattern that the bright region winds around makes big ones.
    public var largestHole: Double

    /// The least share of the frame a sheet covers: about the smallest a page is photographed
    /// to be read (a receipt at arm's length covers more).
    public static let leastShare = 0.15
    /// The least overlap with its quadrilateral: paper is flat and four-sided; curl and lens
    /// distortion bend its edges by a few percent of its area.
    public static let leastQuadrilateralOverlap = 0.9
    /// The most of the frame's edge a sheet may cover: a page that fills the frame is judged
    /// by the frame's own page rules, and sky, snow or a white wall run along the edges.
    public static let mostEdgeShare = 0.25
    /// The least step from the ground to the paper, 8-bit levels.
    public static let leastStandOut = 30.0
    /// The largest hole: a tenth of the sheet (a photograph printed on the page is smaller).
    public static let largestHoleBelow = 0.1
    /// The sheet is measured with the analysis image's long side reduced to about this.
    public static let workingLongSide = 512

    /// Whether this is a sheet of paper: it covers `leastShare` of the frame, has four
    /// sides, lies clear of most of the frame's edge, is bright (the page rules' paper
    /// level), without colour (their colourless bound), stands out from its ground, and its
    /// holes are small.
    public var isSheet: Bool {
        share >= Self.leastShare && quadrilateralOverlap >= Self.leastQuadrilateralOverlap && edgeShare <= Self.mostEdgeShare
            && paperLevel >= TextObservation.paperBrighterThan
            && colourfulness >= 0 && colourfulness < TextObservation.colourlessBelow
            && paperLevel - groundLevel >= Self.leastStandOut && largestHole < Self.largestHoleBelow
    }

    /// The largest bright region of the analysis image measured as a sheet; nil for a frame
    /// without one (a flat frame, a frame too small to measure).
    /// - Parameters:
    ///   - luma: the analysis luma.
    ///   - rgb: the analysis RGB, when the decode had colour (else `colourfulness` is −1 and
    ///     the region is not taken for a sheet, as the frame's page rules do not take a frame
    ///     without colour for paper without colour).
    public static func measure(luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>?) -> PaperSheet? {
        let longSide = max(luma.width, luma.height)
        guard longSide >= 64 else { return nil }
        let factor = max(1, min(16, longSide / workingLongSide))
        let small = AreaDownscale.downscale(luma, by: factor)
        let (w, h) = (small.width, small.height)
        let (levels, labels, components) = ConnectedComponents.brightPieces(of: small)
        guard let (index, _) = components.enumerated().max(by: { $0.element.area < $1.element.area }) else { return nil }
        let label = Int32(index + 1)

        // Outside: what is not the region and is reached from the frame's edge without
        // crossing it (4-connected); the rest is the sheet, its holes filled.
        let (pieces, parts) = ConnectedComponents.label(labels.map { $0 != label }, width: w, height: h, connectivity: .four)
        let reachesFrame = parts.map { $0.minX == 0 || $0.minY == 0 || $0.maxX == w - 1 || $0.maxY == h - 1 }
        let outside = pieces.map { $0 != 0 && reachesFrame[Int($0) - 1] }

        // Corners: the sheet's points furthest along each diagonal (they lie on its region).
        var extremes = DiagonalExtremes()
        var paperSum = 0, paperCount = 0, groundSum = 0, groundCount = 0, sheetArea = 0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if outside[i] {
                    groundSum += Int(levels[i]); groundCount += 1
                    continue
                }
                sheetArea += 1
                guard labels[i] == label else { continue }
                paperSum += Int(levels[i]); paperCount += 1
                extremes.add(x, y)
            }
        }
        guard paperCount > 0 else { return nil }

        // The quadrilateral's pixels (centres inside all four edges, either winding) and
        // its overlap with the sheet.
        let corners = extremes.corners.map { (Double($0.x), Double($0.y)) }
        var edges: [(ax: Double, ay: Double, dx: Double, dy: Double)] = []
        for k in 0..<4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4])
            edges.append((a.0, a.1, b.0 - a.0, b.1 - a.1))
        }
        var both = 0, either = 0, edgeCovered = 0
        for y in 0..<h {
            for x in 0..<w {
                let (px, py) = (Double(x), Double(y))
                var positive = true, negative = true
                for e in edges {
                    let cross = e.dx * (py - e.ay) - e.dy * (px - e.ax)
                    if cross < 0 { positive = false }
                    if cross > 0 { negative = false }
                }
                let inQuad = positive || negative
                let inSheet = !outside[y * w + x]
                if inQuad && inSheet { both += 1 }
                if inQuad || inSheet { either += 1 }
                if inSheet && (x == 0 || y == 0 || x == w - 1 || y == h - 1) { edgeCovered += 1 }
            }
        }

        // Holes: the sheet's pixels that are not its region, in connected pieces.
        let holes = (0..<(w * h)).map { !outside[$0] && labels[$0] != label }
        let largest = ConnectedComponents.label(holes, width: w, height: h).1.map(\.area).max() ?? 0

        var colour = -1.0
        if let rgb {
            var sheet = Colourfulness()
            rgb.withUnsafeBufferPointer { pixels in
                for y in 0..<rgb.height {
                    let row = pixels.baseAddress! + y * rgb.rowStride
                    let sy = min(h - 1, y / factor)
                    for x in 0..<rgb.width where !outside[sy * w + min(w - 1, x / factor)] {
                        sheet.add(red: row[3 * x], green: row[3 * x + 1], blue: row[3 * x + 2])
                    }
                }
            }
            colour = sheet.value
        }
        let paper = Double(paperSum) / Double(paperCount)
        return PaperSheet(
            share: Double(sheetArea) / Double(w * h),
            quadrilateralOverlap: Double(both) / Double(max(1, either)),
            edgeShare: Double(edgeCovered) / Double(max(1, 2 * (w + h) - 4)),
            colourfulness: colour,
            paperLevel: paper,
            groundLevel: groundCount > 0 ? Double(groundSum) / Double(groundCount) : paper,
            largestHole: Double(largest) / Double(max(1, sheetArea)))
    }
}
