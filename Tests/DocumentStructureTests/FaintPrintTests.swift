import ImageKernels
import ImagingCore
import Testing

@testable import DocumentStructure

/// Faint print beside dark print: what Otsu's one threshold loses is deepened before reading.
@Suite("Faint print")
struct FaintPrintTests {
    /// A 1000 × 1000 page of paper at level 235 with `dark` heading characters (30 × 40 pixels
    /// at level 40) along the top and `faint` body characters (10 × 16 pixels at level 200)
    /// in rows below.
    static func page(dark: Int, faint: Int) -> PixelBuffer<UInt8> {
        var image = PixelBuffer<UInt8>(width: 1000, height: 1000, channels: 1, samples: Array(repeating: 235, count: 1_000_000))
        for index in 0..<dark {
            let left = 40 + index * 45
            for y in 40..<80 { for x in left..<(left + 30) { image[x, y, 0] = 40 } }
        }
        for index in 0..<faint {
            let left = 40 + (index % 50) * 18, top = 150 + (index / 50) * 40
            for y in top..<(top + 16) { for x in left..<(left + 10) { image[x, y, 0] = 200 } }
        }
        return image
    }

    @Test("a page whose faint print lies above Otsu's threshold is read with that print black and the paper white")
    func faintPrintUnderADarkHeadingIsDeepened() {
        // 16 000 faint pixels against 12 000 dark ones: Otsu's threshold is level 40, and all
        // 100 faint characters (of 110) are lost in the binary image.
        let page = DocumentAnalyzer().prepare(Self.page(dark: 10, faint: 100))
        #expect(page.faintPrintDeepened)
        // The faint characters' level (the median of the lost ones) becomes black, the paper's
        // (the 90th percentile) white, the heading stays black.
        #expect(page.cleaned[45, 155, 0] == 0)
        #expect(page.cleaned[500, 600, 0] == 255)
        #expect(page.cleaned[50, 50, 0] == 0)
        // Otsu's threshold of the deepened page now keeps the faint characters as ink.
        let threshold = Histogram(page.cleaned).otsuThreshold
        #expect(Int(page.cleaned[45, 155, 0]) <= threshold && Int(page.cleaned[500, 600, 0]) > threshold)
    }

    @Test("a faint grid on a deepened page is found in the deepened page's ink")
    func aFaintGridIsFoundOnceThePageIsDeepened() throws {
        // Under the faint print, a grid of 3 × 3 cells (120 × 50 pixels) ruled a pixel wide at
        // level 225: 10 levels under the paper, too faint for the ink (12 levels, a thin line's two
        // rows together) before deepening.
        var image = Self.page(dark: 10, faint: 100)
        let (left, top, columns, rows) = (300, 500, [0, 120, 240, 360], [0, 50, 100, 150])
        for x in columns { for y in top..<(top + 151) { image[left + x, y, 0] = 225 } }
        for y in rows { for x in left..<(left + 361) { image[x, top + y, 0] = 225 } }
        let deepened = DocumentAnalyzer().prepare(image)
        #expect(deepened.faintPrintDeepened)
        let grid = try #require(deepened.grids.first)
        #expect(deepened.gridCount == 1 && grid.rows == 3 && grid.columns == 3)
        // Read as it is, the page has no grid.
        #expect(DocumentAnalyzer(faintShare: 2).prepare(image).gridCount == 0)
    }

    @Test("a page whose print Otsu's threshold keeps, or loses too little of, is read as it is")
    func printTheThresholdKeepsIsLeftAlone() {
        // Faint print alone: the threshold falls at its level (200), and nothing is lost.
        let faintOnly = Self.page(dark: 0, faint: 100)
        let kept = DocumentAnalyzer().prepare(faintOnly)
        #expect(!kept.faintPrintDeepened)
        #expect(kept.cleaned.withUnsafeBufferPointer(Array.init) == faintOnly.withUnsafeBufferPointer(Array.init))
        // One faint character of 21 lost: under the 5% share.
        let fewLost = DocumentAnalyzer().prepare(Self.page(dark: 20, faint: 1))
        #expect(!fewLost.faintPrintDeepened)
        // The same page with the share set at 4%: deepened.
        #expect(DocumentAnalyzer(faintShare: 0.04).prepare(Self.page(dark: 20, faint: 1)).faintPrintDeepened)
        // A share over 1: never.
        #expect(!DocumentAnalyzer(faintShare: 2).prepare(Self.page(dark: 10, faint: 100)).faintPrintDeepened)
    }
}
