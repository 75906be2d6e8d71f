import Foundation
import ImageKernels
import ImagingCore
import Testing

@testable import DocumentStructure

/// The text lines' slant found and levelled, on drawn pages whose slant is known.
@Suite("Page geometry")
struct PageGeometryTests {
    /// A page filling the frame with 24 lines of character-sized blocks (10 × 16 pixels,
    /// 4 apart, a space every 6) from x = 60 to 940, each line falling to the right by
    /// `slant(y)` degrees about the page's centre column.
    static func lines(width: Int = 1000, height: Int = 1300, slant: (Double) -> Double) -> PixelBuffer<UInt8> {
        var image = PixelBuffer<UInt8>(width: width, height: height, channels: 1, samples: Array(repeating: 235, count: width * height))
        let centre = Double(width) / 2
        for line in 0..<24 {
            let baseline = 120 + Double(line) * 44
            let slope = tan(slant(baseline) * .pi / 180)
            for (index, left) in stride(from: 60, to: width - 70, by: 14).enumerated() where index % 7 != 6 {
                let top = Int((baseline + slope * (Double(left) + 5 - centre)).rounded())
                for y in top..<(top + 16) where y >= 0 && y < height {
                    for x in left..<(left + 10) { image[x, y, 0] = 40 }
                }
            }
        }
        return image
    }

    /// The slope of the geometry's top and bottom edges in the photo, in degrees.
    static func edgeSlants(_ geometry: PageGeometry) -> (top: Double, bottom: Double) {
        let c = geometry.corners
        func degrees(_ a: PixelPoint, _ b: PixelPoint) -> Double { atan2(Double(b.y - a.y), Double(b.x - a.x)) * 180 / .pi }
        return (degrees(c[0], c[1]), degrees(c[3], c[2]))
    }

    @Test(arguments: [2.0, -3.5, 5.0, -9.0])
    func aPageTurnedInItsPlaneIsLevelledByItsSlant(degrees: Double) throws {
        let image = Self.lines { _ in degrees }
        let geometry = try #require(PageGeometry.levelling(in: image))
        #expect(geometry.pageSize == image.size)
        // Read at about 600 pixels, the slant is right to a quarter of a degree (4 pixels
        // across a 1 000-pixel page, a quarter of this print's line height).
        let (top, bottom) = Self.edgeSlants(geometry)
        #expect(abs(top - degrees) <= 0.25)
        #expect(abs(bottom - degrees) <= 0.25)
        // The page's centre stays where it is; its sides are square to the lines.
        let centre = geometry.toSource.apply(500, 650)
        #expect(abs(centre.x - 500) < 1 && abs(centre.y - 650) < 1)
        let c = geometry.corners
        let side = atan2(Double(c[0].x - c[3].x), Double(c[3].y - c[0].y)) * 180 / .pi
        #expect(abs(side - degrees) <= 0.25)
    }

    @Test func convergingLinesAreLevelledWithTheirSlantDownThePage() throws {
        // 1° at the top line, 2.5° at the bottom one: a phone turned about the page's vertical axis.
        let image = Self.lines { y in 1 + 1.5 * (y - 120) / (23 * 44) }
        let geometry = try #require(PageGeometry.levelling(in: image))
        let (top, bottom) = Self.edgeSlants(geometry)
        #expect(top > 0.5 && top < 1.2)
        #expect(bottom > 2.4 && bottom < 3.1)
        #expect(bottom - top > 1.5)
    }

    @Test func aLevelPageAndABlankOneAreLeftAlone() {
        #expect(PageGeometry.levelling(in: Self.lines { _ in 0 }) == nil)
        #expect(PageGeometry.levelling(in: Self.lines { _ in 0.2 }) == nil)
        let blank = PixelBuffer<UInt8>(width: 800, height: 1000, channels: 1, samples: Array(repeating: 235, count: 800 * 1000))
        #expect(PageGeometry.levelling(in: blank) == nil)
    }

    @Test func aLevelledPageReadsItsLinesLevel() throws {
        let image = Self.lines { _ in 3 }
        let geometry = try #require(PageGeometry.levelling(in: image))
        // Levelled, the page has no slant left to find.
        #expect(PageGeometry.levelling(in: geometry.rectify(image)) == nil)
    }

    /// `page` photographed on a desk of level 60: its corners at `corners` (top left, top
    /// right, bottom right, bottom left) in a `width` × `height` frame.
    static func photographed(_ page: PixelBuffer<UInt8>, corners: [(Double, Double)], width: Int, height: Int) throws -> PixelBuffer<UInt8> {
        var sheet = page
        // The sheet's outermost pixels are the desk: the photo's pixels outside the sheet take them.
        for x in 0..<sheet.width { (sheet[x, 0, 0], sheet[x, sheet.height - 1, 0]) = (60, 60) }
        for y in 0..<sheet.height { (sheet[0, y, 0], sheet[sheet.width - 1, y, 0]) = (60, 60) }
        let (w, h) = (Double(sheet.width - 1), Double(sheet.height - 1))
        let toSheet = try #require(Homography(from: corners, to: [(0.5, 0.5), (w + 0.5, 0.5), (w + 0.5, h + 0.5), (0.5, h + 0.5)]))
        let frame = PixelBuffer<UInt8>(width: width, height: height, channels: 1, samples: Array(repeating: 60, count: width * height))
        let camera = PageGeometry(
            sourceSize: sheet.size, pageSize: frame.size, corners: corners.map { PixelPoint(x: Int($0.0), y: Int($0.1)) }, toSource: toSheet)
        return camera.rectify(sheet)
    }

    /// A sheet seen from above and a little to the side: its top edge falls 40 pixels over
    /// 950 (2.4°), its bottom edge 50 over 1 010.
    static let sheetCorners = [(200.0, 150.0), (1150.0, 190.0), (1180.0, 1560.0), (170.0, 1510.0)]

    @Test func aSheetOnADeskIsFoundByItsEdgesAndSeenStraightOn() throws {
        let photo = try Self.photographed(Self.lines { _ in 0 }, corners: Self.sheetCorners, width: 1400, height: 1700)
        let (geometry, page) = PageGeometry.upright(photo)
        let found = try #require(geometry)
        #expect(found == PageGeometry.find(in: photo))
        #expect(page.size == found.pageSize)
        // Straight on, the lines are level.
        #expect(PageGeometry.LevellingInk(page)?.slant == 0)
        #expect(try #require(PageGeometry.LevellingInk(photo)).slant > 1.5)
    }

    @Test func aRegionThatIsNotTheSheetIsNotTakenForItsCorners() throws {
        // Bright ground joined to the sheet's top right corner and reaching the frame's: the
        // largest bright region's corner there is the frame's, and the map through it leans
        // the lines the other way. The photo is levelled by its lines instead.
        var photo = try Self.photographed(Self.lines { _ in 0 }, corners: Self.sheetCorners, width: 1400, height: 1700)
        for y in 0..<260 { for x in 1060..<1400 { photo[x, y, 0] = 235 } }
        let wrong = try #require(PageGeometry.find(in: photo))
        #expect(abs(try #require(PageGeometry.LevellingInk(wrong.rectify(photo))).slant) >= PageGeometry.levelWithin)
        let (geometry, page) = PageGeometry.upright(photo)
        let levelled = try #require(geometry)
        #expect(levelled == PageGeometry.levelling(in: photo))
        #expect(page.size == photo.size)
        #expect(abs(try #require(PageGeometry.LevellingInk(page)).slant) < PageGeometry.levelWithin)
    }

    @Test func aSheetOnABrightGroundIsFoundByItsEdges() throws {
        // The ground falls from 225 at the frame's top left to 60 at its bottom right, the
        // paper is 235: the ground's upper part lies above Otsu's threshold and joins the sheet
        // into a region reaching the frame's corner, whose corners are not the sheet's. The
        // sheet's edge, a step of at least 10 levels, bounds it.
        var photo = try Self.photographed(Self.lines { _ in 0 }, corners: Self.sheetCorners, width: 1400, height: 1700)
        let span = Double(photo.width + photo.height - 2)
        for y in 0..<photo.height {
            for x in 0..<photo.width where photo[x, y, 0] == 60 {
                photo[x, y, 0] = UInt8((225 - 165 * Double(x + y) / span).rounded())
            }
        }
        let threshold = Histogram(photo).otsuThreshold
        let (topLeft, bottomRight) = (Int(photo[0, 0, 0]), Int(photo[photo.width - 1, photo.height - 1, 0]))
        #expect(topLeft > threshold && bottomRight < threshold)
        let geometry = PageGeometry.find(in: photo)
        let found = try #require(geometry)
        for (corner, truth) in zip(found.corners, Self.sheetCorners) {
            #expect(abs(Double(corner.x) - truth.0) <= 8 && abs(Double(corner.y) - truth.1) <= 8, "\(corner) against \(truth)")
        }
        let (upright, page) = PageGeometry.upright(photo)
        #expect(upright == found)
        #expect(PageGeometry.LevellingInk(page)?.slant == 0)
    }

    @Test func aRuledBoxOnAPageFillingTheFrameIsNotTakenForThePage() throws {
        // A page filling the frame, turned by 3°, with a box ruled around its lower half: the
        // box closes off a region of paper larger than a fifth of the frame, but the lines
        // above it lie outside. The whole page is levelled by its lines, none of it cut off.
        var photo = Self.lines { _ in 3 }
        let slope = tan(3 * Double.pi / 180)
        func rule(_ from: (Double, Double), _ to: (Double, Double)) {
            for step in 0...2000 {
                let t = Double(step) / 2000
                let (x, y) = (from.0 + t * (to.0 - from.0), from.1 + t * (to.1 - from.1))
                for dy in -2...2 { for dx in -2...2 { photo[Int(x) + dx, Int(y) + dy, 0] = 30 } }
            }
        }
        // The box's corners, turned with the lines about the page's centre column.
        let box = [(70.0, 660.0), (930.0, 660.0), (930.0, 1240.0), (70.0, 1240.0)].map { ($0.0, $0.1 + slope * ($0.0 - 500)) }
        for side in 0..<4 { rule(box[side], box[(side + 1) % 4]) }
        #expect(PageGeometry.find(in: photo) == nil)
        let (geometry, page) = PageGeometry.upright(photo)
        let levelled = try #require(geometry)
        #expect(levelled == PageGeometry.levelling(in: photo))
        #expect(page.size == photo.size)
    }

    @Test func aPhotoWithNoSheetInItIsUsedAsItIs() {
        let photo = Self.lines { _ in 0 }
        let (geometry, page) = PageGeometry.upright(photo)
        #expect(geometry == nil)
        #expect(page == photo)
    }

    @Test(arguments: [203, 204])
    func theRectifiedPageIsThePhotoSampledWhereTheMapPutsEachPixel(width: Int) throws {
        // A photo with a smooth pattern, and a page of `width` columns (four at a time, and
        // three left over) whose corners lie askew in it, as a phone sees a sheet.
        let (sw, sh) = (400, 300)
        let samples = (0..<(sw * sh)).map { UInt8(128 + 100 * sin(Double($0 % sw) / 9) * cos(Double($0 / sw) / 13)) }
        let photo = PixelBuffer<UInt8>(width: sw, height: sh, channels: 1, samples: samples)
        let height = 150
        let upright = [(0.0, 0.0), (Double(width), 0), (Double(width), Double(height)), (0, Double(height))]
        let corners = [(52.0, 31.0), (371.0, 12.0), (390.0, 281.0), (33.5, 262.0)]
        let map = try #require(Homography(from: upright, to: corners))
        let geometry = PageGeometry(
            sourceSize: photo.size, pageSize: ImageSize(width: width, height: height),
            corners: corners.map { PixelPoint(x: Int($0.0), y: Int($0.1)) }, toSource: map)
        let page = geometry.rectify(photo)
        #expect(page.width == width && page.height == height)
        var differing = 0
        for y in 0..<height {
            for x in 0..<width {
                // Each pixel's centre mapped into the photo, read between its four neighbours.
                let (sx, sy) = map.apply(Double(x) + 0.5, Double(y) + 0.5)
                let fx = min(max(sx - 0.5, 0), Double(sw - 1)), fy = min(max(sy - 0.5, 0), Double(sh - 1))
                let (x0, y0) = (Int(fx), Int(fy))
                let (x1, y1) = (min(x0 + 1, sw - 1), min(y0 + 1, sh - 1))
                let (ax, ay) = (fx - Double(x0), fy - Double(y0))
                func at(_ x: Int, _ y: Int) -> Double { Double(photo[x, y, 0]) }
                let top = at(x0, y0) * (1 - ax) + at(x1, y0) * ax, bottom = at(x0, y1) * (1 - ax) + at(x1, y1) * ax
                let expected = Int(top * (1 - ay) + bottom * ay + 0.5)
                let got = Int(page[x, y, 0])
                #expect(abs(got - expected) <= 1)
                if got != expected { differing += 1 }
            }
        }
        // The reciprocal moves a pixel by a level only where its value lies at a half level.
        #expect(differing <= width * height / 1000)
    }
}
