import ImagingCore
import Testing

@testable import QualityMetrics

/// A sheet of paper on a darker ground, drawn: a quadrilateral page with rows of dark
/// marks on a brown desk, and the things that are not sheets.
@Suite("Paper sheet")
struct PaperSheetTests {
    typealias Colour = (r: UInt8, g: UInt8, b: UInt8)
    static let desk: Colour = (140, 100, 60)
    static let paper: Colour = (242, 240, 236)
    static let ink: Colour = (40, 40, 45)
    /// A page seen at an angle: top left, top right, bottom right, bottom left.
    static let corners: [(Double, Double)] = [(180, 70), (470, 95), (450, 420), (150, 400)]

    /// Whether (x, y) lies inside the convex quadrilateral `quad` (clockwise on screen).
    static func inside(_ quad: [(Double, Double)], _ x: Double, _ y: Double) -> Bool {
        (0..<4).allSatisfy { k in
            let (a, b) = (quad[k], quad[(k + 1) % 4])
            return (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0) >= 0
        }
    }

    static func area(_ quad: [(Double, Double)]) -> Double {
        var twice = 0.0
        for k in 0..<4 {
            let (a, b) = (quad[k], quad[(k + 1) % 4])
            twice += a.0 * b.1 - b.0 * a.1
        }
        return abs(twice) / 2
    }

    /// RGB and luma of a 640 × 480 frame painted by `colour`.
    static func frame(_ colour: (Int, Int) -> Colour) -> (luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>) {
        let (width, height) = (640, 480)
        var rgb: [UInt8] = [], luma: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                rgb += [c.r, c.g, c.b]
                let level: Double = 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b)
                luma.append(UInt8(level.rounded()))
            }
        }
        return (PixelBuffer(width: width, height: height, samples: luma), PixelBuffer(width: width, height: height, channels: 3, samples: rgb))
    }

    /// The page: rows of word-sized marks 14 pixels apart inside its quadrilateral, on
    /// `sheet`, with an optional dark block (a photograph printed on it).
    static func page(sheet: Colour = paper, block: (x: ClosedRange<Int>, y: ClosedRange<Int>)? = nil) -> (luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>) {
        frame { x, y in
            guard inside(corners, Double(x), Double(y)) else { return desk }
            if let block, block.x.contains(x), block.y.contains(y) { return ink }
            let row = (y - 120) % 14, column = (x - 200) % 40
            let marked = y >= 120 && y < 380 && x >= 200 && x < 420 && row < 4 && column < 30
            return marked ? ink : sheet
        }
    }

    @Test func aPageOnADeskIsASheet() throws {
        let (luma, rgb) = Self.page()
        let sheet = try #require(PaperSheet.measure(luma: luma, rgb: rgb))
        #expect(sheet.isSheet, "\(sheet)")
        let share = Self.area(Self.corners) / (640 * 480)
        #expect(abs(sheet.share - share) < 0.01, "\(sheet.share) against \(share)")
        #expect(sheet.quadrilateralOverlap >= 0.97)
        #expect(sheet.edgeShare == 0)
        #expect(sheet.colourfulness < 8, "grey paper and ink: far below the colourless bound")
        #expect(abs(sheet.paperLevel - 240) < 2 && abs(sheet.groundLevel - 107) < 2)
        #expect(sheet.largestHole < 0.01, "marks a word wide")
    }

    @Test func aColouredSheetIsNot() throws {
        let (luma, rgb) = Self.page(sheet: (250, 225, 90))
        let sheet = try #require(PaperSheet.measure(luma: luma, rgb: rgb))
        #expect(sheet.colourfulness >= TextObservation.colourlessBelow && !sheet.isSheet, "\(sheet)")
        #expect(PaperSheet.measure(luma: luma, rgb: nil)?.isSheet == false, "without colour, no sheet is taken")
    }

    @Test func aBigDarkHoleIsNoPage() throws {
        let (luma, rgb) = Self.page(block: (220...360, 150...330))
        let sheet = try #require(PaperSheet.measure(luma: luma, rgb: rgb))
        #expect(sheet.largestHole >= PaperSheet.largestHoleBelow && !sheet.isSheet, "\(sheet)")
    }

    @Test func aBrightSkyAlongTheEdgeIsNot() throws {
        let (luma, rgb) = Self.frame { _, y in y < 200 ? (235, 236, 238) : Self.desk }
        let sheet = try #require(PaperSheet.measure(luma: luma, rgb: rgb))
        #expect(sheet.edgeShare > PaperSheet.mostEdgeShare && !sheet.isSheet, "\(sheet)")
    }

    @Test func aRoundBrightShapeIsNot() throws {
        let (luma, rgb) = Self.frame { x, y in
            let (dx, dy) = (Double(x) - 320, Double(y) - 240)
            return dx * dx + dy * dy < 150 * 150 ? Self.paper : Self.desk
        }
        let sheet = try #require(PaperSheet.measure(luma: luma, rgb: rgb))
        // The diagonals' extremes of a disc make its inscribed square: 2/π of its area.
        #expect(abs(sheet.quadrilateralOverlap - 2 / Double.pi) < 0.03 && !sheet.isSheet, "\(sheet)")
    }

    @Test func aFlatFrameHasNone() {
        let (luma, rgb) = Self.frame { _, _ in Self.desk }
        #expect(PaperSheet.measure(luma: luma, rgb: rgb) == nil)
    }
}

/// The sheet's branch of the page rule, and when the sheet is looked for.
@Suite("The page rule on a sheet")
struct SheetPageRuleTests {
    @Test(arguments: [(0.3, 0.5, 12.0, true), (0, 0.5, 12, false), (0.3, 0.95, 12, false), (0.3, 0.5, 9, false)])
    func aFewWordsOnASheetMakeAPage(sheet: Double, ungrouped: Double, characters: Double, page: Bool) {
        var text = TextObservation()
        text.sheet = sheet
        text.ungrouped = ungrouped
        text.characters = characters
        #expect(text.showsPage == page)
    }

    /// Text found at `count` characters in `lines` lines, for `locating`.
    static func found(characters count: Int) -> TextFinder.Result {
        var found = TextFinder.Result()
        found.characterCount = count
        return found
    }

    @Test func theSheetIsLookedForOnlyWhenTheFramesRulesFail() {
        let aSheet = PaperSheet(
            share: 0.4, quadrilateralOverlap: 0.98, edgeShare: 0, colourfulness: 2, paperLevel: 230, groundLevel: 100, largestHole: 0.01)
        var calls = 0
        let look = { () -> PaperSheet? in
            calls += 1
            return aSheet
        }
        let few = TextDetector.locating(TextObservation(), found: Self.found(characters: 12), colourfulness: nil, sheet: look)
        #expect(calls == 1 && few.sheet == 0.4 && few.showsPage)
        let none = TextDetector.locating(TextObservation(), found: Self.found(characters: 5), colourfulness: nil, sheet: look)
        #expect(calls == 1 && none.sheet == 0 && !none.showsPage, "too few characters: not looked for")
        let many = TextDetector.locating(TextObservation(), found: Self.found(characters: 150), colourfulness: nil, sheet: look)
        #expect(calls == 1 && many.sheet == 0 && many.showsPage, "a page by the frame's rules: not looked for")
    }
}
