import Foundation
import ImageCodecs
import ImageKernels
import ImagingCore
import QualityAssessment
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// Text found where it is, on pages whose answer is known, and not found in periodic
/// structure that is not text.
@Suite("Text finder")
struct TextFinderTests {
    static let datasets = Fixtures.datasets

    static func luma(_ relative: String) throws -> PixelBuffer<UInt8> {
        try ImageDecoder().decode(contentsOf: "\(datasets)/\(relative)").luma.eightBit
    }

    /// Rendered pages of `Datasets/documents` (150 ppi, 10–12 pt body text: about 60 lines).
    @Test func findsTheLinesOfARenderedPage() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        let found = TextFinder.find(page, scale: 1)
        #expect(found.lines.count >= 30, "\(found.lines.count) lines")
        #expect(found.characterCount >= 1000, "\(found.characterCount) characters")
        #expect(found.polarity == .dark)
        // Body text at 150 ppi: characters about 10–20 pixels tall, lines about 30 apart.
        #expect((9...22).contains(found.characterHeight), "\(found.characterHeight)")
        #expect(abs(found.linePitch - 32) < 4, "\(found.linePitch)")
        #expect(found.extent > 0.4 && found.coverage > 0.1 && found.coverage <= found.extent)
        for line in found.lines {
            #expect(line.x >= 0 && line.y >= 0 && line.x + line.width <= page.width && line.y + line.height <= page.height)
        }
        // A total order (top to bottom, then left to right), so records are the same in every run.
        #expect(zip(found.lines, found.lines.dropFirst()).allSatisfy { ($0.y, $0.x) <= ($1.y, $1.x) }, "top to bottom, left to right")
    }

    @Test func findsLightTextOnADarkGround() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        var inverted = page
        for y in 0..<page.height { for x in 0..<page.width { inverted[x, y] = 255 - page[x, y] } }
        let dark = TextFinder.find(page, scale: 1), light = TextFinder.find(inverted, scale: 1)
        #expect(light.polarity == .light)
        #expect(abs(light.lines.count - dark.lines.count) <= dark.lines.count / 10, "\(light.lines.count) against \(dark.lines.count)")
    }

    @Test func boxesAreInFullResolutionPixels() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        let full = TextFinder.find(page, scale: 1)
        let half = AreaResample.resize(page, to: ImageSize(width: page.width / 2, height: page.height / 2))
        let reduced = TextFinder.find(half, scale: 2)
        // The line pitch agrees in full-resolution pixels. At half size the shortest
        // characters fall under the smallest height a mark needs, so the median height can
        // only grow, and not by more than half.
        #expect(abs(reduced.linePitch - full.linePitch) < 3, "\(reduced.linePitch) against \(full.linePitch)")
        #expect(reduced.characterHeight >= full.characterHeight - 1 && reduced.characterHeight <= 1.5 * full.characterHeight,
                "\(reduced.characterHeight) against \(full.characterHeight)")
    }

    /// A page in the corner of a large frame whose centre is a plain wall: the text estimate
    /// measures the page, not the wall, and in full-resolution pixels.
    @Test func theTextIsMeasuredWhereItIsNotAtTheCentre() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        var frame = PixelBuffer<UInt8>(width: 3600, height: 2600)
        for y in 0..<frame.height { for x in 0..<frame.width { frame[x, y] = UInt8(120 + 40 * x / frame.width) } }
        for y in 0..<page.height { for x in 0..<page.width { frame[x, y] = page[x, y] } }
        let image = AnalysisImage(luma: frame, fullSize: frame.size)
        let found = TextFinder.find(image.textPlane())
        #expect(found.characterCount >= 30, "\(found.characterCount) characters")
        // The centre crop holds only the wall; the crop over the text holds ink on paper.
        let wall = DetailAnalysis(image.detail)
        #expect(wall.split.brightMean - wall.split.darkMean < 30)
        let crop = TextDetector.detail(of: image, found: found)
        let estimate = TextDetector.estimate(detail: crop, analysis: DetailAnalysis(crop), scale: image.detailScale, measuresEdges: true)
        #expect(estimate.detected && estimate.contrast > 100, "contrast \(estimate.contrast)")
        #expect(abs(estimate.linePitch - 32) < 4, "\(estimate.linePitch)")
        // Too few characters to stand for a page: the centre crop, as before.
        var few = found
        few.characterCount = 29
        #expect(TextDetector.detail(of: image, found: few) == image.detail)
    }

    /// A heading the finder groups above small marks it cannot (rings 11 pixels tall, each
    /// standing alone, as small print blurred past grouping does): the lines' x-height is the
    /// heading's, the marks' median height the small print's. On a page of body text the two agree.
    @Test func theMarksHeightIsTheSmallPrintsWhenTheLinesAreAHeading() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        let body = TextFinder.find(page, scale: 1)
        #expect(abs(body.markHeight - body.characterHeight) <= 1, "\(body.markHeight) against \(body.characterHeight)")

        var frame = PixelBuffer<UInt8>(width: 1600, height: 1600)
        for y in 0..<frame.height { for x in 0..<frame.width { frame[x, y] = 250 } }
        // A line of body text enlarged three times.
        let line = page.cropped(to: PixelRect(x: 121, y: 242, width: 480, height: 22))
        for y in 0..<(3 * line.height) { for x in 0..<(3 * line.width) { frame[60 + x, 40 + y] = line[x / 3, y / 3] } }
        for row in 0..<20 {
            for column in 0..<12 {
                let cx = 80 + 120 * column + (row % 3) * 17, cy = 200 + 65 * row
                for y in -5...5 { for x in -5...5 where (9...30).contains(x * x + y * y) { frame[cx + x, cy + y] = 30 } }
            }
        }
        let found = TextFinder.find(frame, scale: 1)
        #expect(found.characterHeight >= 30, "\(found.characterHeight)")
        #expect(found.markHeight == 11, "\(found.markHeight)")
    }

    /// A page on a dark desk, as Tesseract's default binarisation sees it: one Otsu threshold
    /// for the whole frame falls between the desk and the paper. Black print stays below it;
    /// the same print lightened to grey (ink at about 166 of 255) lies above it and is lost.
    @Test func oneThresholdForTheFrameKeepsBlackPrintAndLosesGreyPrintOnADarkDesk() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        #expect(TextFinder.find(page, scale: 1).lineStatistics.binarized > 0.95)
        func onDesk(ink: Double) -> PixelBuffer<UInt8> {
            var frame = PixelBuffer<UInt8>(width: page.width * 2, height: page.height * 3 / 2)
            for y in 0..<frame.height { for x in 0..<frame.width { frame[x, y] = 40 } }
            let left = page.width / 2, top = page.height / 4
            for y in 0..<page.height {
                for x in 0..<page.width {
                    // Paper stays at the page's level; ink is raised towards `ink`.
                    let value = Double(page[x, y])
                    frame[left + x, top + y] = UInt8((255 - (255 - value) * (255 - ink) / 255).rounded())
                }
            }
            return frame
        }
        let black = TextFinder.find(onDesk(ink: 0), scale: 1), grey = TextFinder.find(onDesk(ink: 166), scale: 1)
        #expect(black.characterCount >= 1000 && grey.characterCount >= 1000, "\(black.characterCount), \(grey.characterCount) characters")
        #expect(black.lineStatistics.binarized > 0.9, "\(black.lineStatistics.binarized)")
        #expect(grey.lineStatistics.binarized < 0.2, "\(grey.lineStatistics.binarized)")
    }

    /// The share a threshold keeps of a line's levels, on histograms with a known answer:
    /// ink at 50 and paper at 220 split at 120 are both kept; a threshold under the ink loses
    /// it; one over the midpoint turns the paper between them dark.
    @Test func theShareAThresholdKeepsOfALine() {
        var counts = [Int](repeating: 0, count: 256)
        counts[50] = 100
        counts[100] = 100
        counts[220] = 600
        counts[200] = 200
        let histogram = Histogram(counts: counts)
        #expect(TextLineStatistics.binarizedShare(histogram, midpoint: 135, threshold: 120) == 1)
        #expect(TextLineStatistics.binarizedShare(histogram, midpoint: 135, threshold: 40) == 0)
        #expect(TextLineStatistics.binarizedShare(histogram, midpoint: 135, threshold: 70) == 0.5)
        #expect(TextLineStatistics.binarizedShare(histogram, midpoint: 135, threshold: 210) == 0.75)
        #expect(TextLineStatistics.binarizedShare(Histogram(counts: [Int](repeating: 0, count: 255) + [10]), midpoint: 135, threshold: 120) == 0)
    }

    /// Periodic structure: every scene repeats at a text-like period, and none is text.
    /// Small print softened by the lens: the page reduced to characters about 7 pixels tall
    /// and blurred (σ 0.6 px), so strokes thicken and the letters of each word touch. It is
    /// still found line by line (marks a word wide, strokes up to 0.7 of the height; with
    /// the older limits of 2.5 heights and half the height, one line of 32 marks) and
    /// judged as a page.
    @Test func findsSmallBlurredPrintWhoseLettersTouch() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        let size = ImageSize(width: page.width * 11 / 20, height: page.height * 11 / 20)
        let small = AreaResample.resize(page, to: size)
        let blurred = Scenes.gaussian(small.samples.map(Float.init), width: size.width, height: size.height, sigma: 0.6)
        let plane = Scenes.plane(blurred, width: size.width, height: size.height)
        let found = TextFinder.find(plane, scale: 1)
        #expect(found.lines.count >= 20, "\(found.lines.count) lines")
        #expect(found.characterCount >= Int(TextObservation.pageCharacters), "\(found.characterCount) characters")
        let report = QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(report.text?.showsPage == true)
    }

    @Test(arguments: ["planks", "blinds", "brick", "railings", "foliage", "checkerboard"])
    func findsNoTextInPeriodicStructure(_ scene: String) {
        let plane = Self.scene(scene)
        let found = TextFinder.find(plane, scale: 1)
        #expect(found.characterCount < Int(TextObservation.inkOnPaperCharacters), "\(scene): \(found.characterCount) characters in \(found.lines.count) lines")
        let report = QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(report.text?.showsPage == false, "\(scene): \(String(describing: report.text))")
        #expect(QualityGate().decide(report).content == .photo)
    }

    @Test func aFewLinesMakeAPageOnlyWhenTheySpanTheFrame() {
        var text = TextObservation()
        text.detected = true
        text.characters = 40
        text.extent = 0.05  // a label or a sign in a photo
        #expect(!text.showsPage)
        text.extent = 0.2  // a short note filling the frame
        #expect(text.showsPage)
        text.detected = false
        #expect(!text.showsPage, "not ink on paper")
        text.characters = 120
        text.extent = 0.01
        #expect(text.showsPage, "two lines of body text make a page wherever they are")
    }

    /// A page too blurred for its characters: rows at a regular pitch on a bright frame
    /// without colour that is mostly paper. A night scene's few lights over JPEG blocks
    /// repeating in the dark noise have the rows and the bright class, not the paper.
    @Test func rowsMakeAPageOnlyOnPaper() {
        var text = TextObservation()
        text.colourfulness = 5
        text.paperLevel = 176
        text.linePitch = 8
        text.lineRegularity = 0.7
        text.inkFraction = 0.3
        #expect(text.showsPage)
        text.inkFraction = 0.99
        #expect(!text.showsPage)
    }

    @Test func aPageIsJudgedByItsTextAndAPhotoByItsConfidences() throws {
        let page = try Self.luma("documents/images/page01_clean.png")
        let pageReport = QualityAnalyzer().analyze(AnalysisImage(luma: page, fullSize: page.size))
        #expect(pageReport.text?.showsPage == true && pageReport.aesthetic?.isUtility == true)
        #expect(QualityGate().decide(pageReport).content == .document)
        var photoPolicy = QualityPolicy.default
        photoPolicy.content = .photo
        #expect(QualityGate(policy: photoPolicy).decide(pageReport).content == .photo)

        let photo = try Self.luma("blur/images/kde-bythewater_clean.jpg")
        let photoReport = QualityAnalyzer().analyze(AnalysisImage(luma: photo, fullSize: photo.size))
        #expect(photoReport.text?.showsPage == false, "\(String(describing: photoReport.text))")
        #expect(QualityGate().decide(photoReport).content == .photo)
        var documentPolicy = QualityPolicy.default
        documentPolicy.content = .document
        let forced = QualityGate(policy: documentPolicy).decide(photoReport)
        #expect(forced.content == .document && forced.failures.allSatisfy { [.predictedAccuracy, .textLegibility, .textContrast, .textSize].contains($0.reason) })
    }

    @Test func everyCleanPhotographOfTheDatasetsIsAPhoto() throws {
        let rows = try Fixtures.datasetRows("blur").filter { $0["degradation"] == "clean" }
        #expect(rows.count == 16)
        let assessor = Assessor()
        for row in rows {
            let assessment = assessor.assess(contentsOf: "\(Self.datasets)/blur/\(row["path"]!)")
            #expect(assessment.image?.decision.content == .photo, "\(row["path"]!): \(String(describing: assessment.image?.report.text))")
        }
    }

    // MARK: - Scenes

    static let size = (width: 640, height: 480)

    /// Periodic non-text scenes at periods of 10–40 pixels, with texture and noise.
    static func scene(_ name: String) -> PixelBuffer<UInt8> {
        let (width, height) = size
        var generator = SeededGenerator(seed: 11)
        var pixels = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let grain = Float.random(in: -6...6, using: &generator)
                let value: Float
                switch name {
                case "planks":
                    // Boards 28 px tall with dark seams and a wavy grain along them.
                    let seam = y % 28 < 2
                    value = seam ? 60 : 150 + 20 * sin(Float(x) / 9 + Float(y / 28) * 1.7) + 10 * sin(Float(y) * 0.9)
                case "blinds":
                    // Slats 18 px with a shaded edge.
                    let phase = Float(y % 18) / 18
                    value = 90 + 140 * phase
                case "brick":
                    // Bricks 48 × 20 with 3-px mortar, alternate rows offset by half a brick.
                    let row = y / 20, offset = row % 2 == 0 ? 0 : 24
                    let mortar = y % 20 < 3 || (x + offset) % 48 < 3
                    value = mortar ? 200 : 110 + Float((x + offset) / 48 * 37 % 30)
                case "railings":
                    // Vertical bars 4 px wide every 22 px, a rail every 120 rows.
                    let bar = x % 22 < 4 || y % 120 < 5
                    value = bar ? 30 : 200
                case "foliage":
                    // Overlapping leaves: dark ellipses on a mid-tone ground.
                    value = 150
                case "checkerboard":
                    value = ((x / 16) + (y / 16)) % 2 == 0 ? 40 : 220
                default:
                    value = 128
                }
                pixels[y * width + x] = value + grain
            }
        }
        if name == "foliage" {
            for _ in 0..<900 {
                let cx = Int.random(in: 0..<width, using: &generator), cy = Int.random(in: 0..<height, using: &generator)
                let rx = Float.random(in: 4...12, using: &generator), ry = Float.random(in: 3...9, using: &generator)
                let tone = Float.random(in: 30...110, using: &generator)
                for y in max(0, cy - 12)..<min(height, cy + 12) {
                    for x in max(0, cx - 12)..<min(width, cx + 12) {
                        let dx = Float(x - cx) / rx, dy = Float(y - cy) / ry
                        if dx * dx + dy * dy <= 1 { pixels[y * width + x] = tone }
                    }
                }
            }
        }
        return Scenes.plane(pixels, width: width, height: height)
    }

    // MARK: - The steps against plain references

    /// Dark and light ink by the definition: each pixel against the mean of its clipped box.
    static func referenceInk(_ plane: PixelBuffer<UInt8>, radius: Int) -> (dark: [UInt8], light: [UInt8]) {
        var dark = [UInt8](repeating: 0, count: plane.width * plane.height), light = dark
        for y in 0..<plane.height {
            for x in 0..<plane.width {
                var sum = 0, count = 0
                for v in max(0, y - radius)...min(plane.height - 1, y + radius) {
                    for u in max(0, x - radius)...min(plane.width - 1, x + radius) {
                        sum += Int(plane[u, v])
                        count += 1
                    }
                }
                let value = Int(plane[x, y]) * count, threshold = TextFinder.margin * count
                if value < sum - threshold { dark[y * plane.width + x] = 1 } else if value > sum + threshold { light[y * plane.width + x] = 1 }
            }
        }
        return (dark, light)
    }

    /// Connected components by flood fill (8-connectivity): boxes, pixels and horizontal runs,
    /// in the order of each component's first pixel in raster order.
    static func referenceMarks(_ mask: [UInt8], width: Int, height: Int) -> [TextFinder.Mark] {
        var label = [Int](repeating: -1, count: mask.count)
        var marks: [TextFinder.Mark] = []
        for start in mask.indices where mask[start] != 0 && label[start] < 0 {
            let id = marks.count
            var stack = [start]
            label[start] = id
            var members: [Int] = []
            while let i = stack.popLast() {
                members.append(i)
                let x = i % width, y = i / width
                for dy in -1...1 {
                    for dx in -1...1 {
                        let u = x + dx, v = y + dy
                        guard u >= 0, u < width, v >= 0, v < height, mask[v * width + u] != 0, label[v * width + u] < 0 else { continue }
                        label[v * width + u] = id
                        stack.append(v * width + u)
                    }
                }
            }
            let xs = members.map { $0 % width }, ys = members.map { $0 / width }
            // A run starts at a member whose left neighbour is not set.
            let runs = members.filter { $0 % width == 0 || mask[$0 - 1] == 0 }.count
            marks.append(TextFinder.Mark(
                minX: Int32(xs.min()!), minY: Int32(ys.min()!), maxX: Int32(xs.max()!), maxY: Int32(ys.max()!),
                pixels: Int32(members.count), runs: Int32(runs)))
        }
        return marks
    }

    @Test func inkMasksAndMarksMatchPlainReferences() {
        // Noise with blobs and strokes: runs of many lengths, components that merge diagonally.
        for (width, height, seed) in [(61, 47, 1), (130, 90, 2), (17, 200, 3)] {
            var state = UInt64(seed)
            let plane = PixelBuffer<UInt8>.make(width: width, height: height) { x, y in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Double(state >> 58)
                let stroke = (x / 3 + y / 5) % 4 == 0 ? 90.0 : 0
                return 120 + noise - stroke + (x * y % 23 == 0 ? 80 : 0)
            }
            for radius in [2, 8] {
                let ink = TextFinder.inkMask(plane, radius: radius)
                let reference = Self.referenceInk(plane, radius: radius)
                #expect(ink.map { $0 == TextFinder.darkInk ? 1 : 0 } == reference.dark, "\(width)×\(height) radius \(radius)")
                #expect(ink.map { $0 == TextFinder.lightInk ? 1 : 0 } == reference.light, "\(width)×\(height) radius \(radius)")
                for (value, mask) in [(TextFinder.darkInk, reference.dark), (TextFinder.lightInk, reference.light)] {
                    let marks = TextFinder.connectedMarks(ink, value: value, width: width, height: height)
                    let expected = Self.referenceMarks(mask, width: width, height: height)
                    #expect(marks.count == expected.count)
                    #expect(zip(marks, expected).allSatisfy { a, b in
                        (a.minX, a.minY, a.maxX, a.maxY, a.pixels, a.runs) == (b.minX, b.minY, b.maxX, b.maxY, b.pixels, b.runs)
                    })
                }
            }
        }
    }
}
