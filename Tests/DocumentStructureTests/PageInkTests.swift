import ImagingCore
import Testing

@testable import DocumentStructure

@Suite("Page ink")
struct PageInkTests {
    /// One row of `pattern` ("#" ink, "f" faint ink, "." paper) bridged along rows, as a string.
    func bridged(_ pattern: String, minimumLength: Int) -> String {
        var ink = pattern.map { $0 == "#" }
        let faint = pattern.map { $0 == "f" }
        PageInk.bridgeLines(&ink, faint: faint, width: ink.count, height: 1, minimumLength: minimumLength)
        return String(ink.map { $0 ? "#" : "." })
    }

    /// A page 700 × 400 of paper at 235 with dark rectangles drawn on it.
    func page(_ rectangles: [(Int, Int, Int, Int)]) -> PixelBuffer<UInt8> {
        let (width, height) = (700, 400)
        var image = PixelBuffer<UInt8>(width: width, height: height, channels: 1, samples: Array(repeating: 235, count: width * height))
        for (x0, y0, w, h) in rectangles {
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { image[x, y] = 40 } }
        }
        return image
    }

    /// The number (label less one) of the component with this box.
    func component(_ ink: PageInk, _ box: PixelRect) throws -> Int {
        try #require(ink.components.firstIndex { $0.box == box })
    }

    /// A heading of 30 letters 16 pixels high sets the median character height.
    let heading = (0..<30).map { (20 + 20 * $0, 30, 10, 16) }

    /// A deepened page: the heading, a word of small print run together into one even piece
    /// 100 × 8, and a ruling line 300 × 2. Against the heading's height the word is as thin
    /// for its length as a rule (8 under 0.6 × 16); against the small print's own height, 8,
    /// it is not.
    @Test func aLongWordOfDeepenedSmallPrintIsNoRule() throws {
        let image = page(heading + [(40, 120, 100, 8), (40, 200, 300, 2)])
        let (wordBox, ruleBox) = (PixelRect(x: 40, y: 120, width: 100, height: 8), PixelRect(x: 40, y: 200, width: 300, height: 2))
        let ink = PageInk(image)
        #expect(ink.characterHeight == 16)
        let (word, rule) = (try component(ink, wordBox), try component(ink, ruleBox))
        let (wordIsRule, ruleIsRule) = (ink.isRule(word), ink.isRule(rule))
        #expect(wordIsRule && ruleIsRule)
        let deepened = PageInk(image, characterHeightAtMost: 8)
        #expect((deepened.characterHeight, deepened.ruleScale) == (16, 8))
        let (deepWord, deepRule) = (try component(deepened, wordBox), try component(deepened, ruleBox))
        let (deepWordIsRule, deepRuleIsRule) = (deepened.isRule(deepWord), deepened.isRule(deepRule))
        #expect(!deepWordIsRule && deepRuleIsRule)
        // A page whose first reading found no characters keeps its own height.
        #expect(PageInk(image, characterHeightAtMost: 0).ruleScale == 16)
    }

    /// A blurred page's long word run together into one even piece 120 × 9 (over half the
    /// heading's 16-pixel height), beside a rule 300 × 3: at the document path's bound (0.6 of
    /// a character's height) both are rules; at the bound for reading text alone (0.4) only the
    /// rule is.
    @Test func aWordRunTogetherIsARuleOnlyAtTheDocumentPathsBound() throws {
        let image = page(heading + [(40, 120, 120, 9), (40, 200, 300, 3)])
        let (wordBox, ruleBox) = (PixelRect(x: 40, y: 120, width: 120, height: 9), PixelRect(x: 40, y: 200, width: 300, height: 3))
        for (bound, wordIsARule) in [(DocumentAnalyzer.documentRuleThickness, true), (DocumentAnalyzer.textRuleThickness, false)] {
            let ink = PageInk(image, ruleThickness: bound)
            #expect(ink.characterHeight == 16)
            let (word, rule) = (try component(ink, wordBox), try component(ink, ruleBox))
            let (wordIsRule, ruleIsRule) = (ink.isRule(word), ink.isRule(rule))
            #expect(wordIsRule == wordIsARule && ruleIsRule, "at \(bound)")
        }
    }

    /// A word of small print run together: a band 100 long, 5 thick, with an ascender 8
    /// higher every 10 pixels along it (half its length, 13 thick there): as thin for its
    /// length as a rule (900 pixels), but uneven. A rule stepping down a pixel every 100 (a slight slant) is even: 2 thick all along.
    @Test func anUnevenPieceIsNoRuleAndASlantedRuleIs() throws {
        let word = [(40, 125, 100, 5)] + (0..<10).map { (40 + 10 * $0, 117, 5, 8) }
        let slanted = (0..<3).map { (40 + 100 * $0, 200 + $0, 100, 2) }
        let ink = PageInk(page(heading + word + slanted))
        let uneven = try component(ink, PixelRect(x: 40, y: 117, width: 100, height: 13))
        let even = try component(ink, PixelRect(x: 40, y: 200, width: 300, height: 4))
        let (unevenIsRule, evenIsRule) = (ink.isRule(uneven), ink.isRule(even))
        #expect(!unevenIsRule && evenIsRule)
        // The same uneven piece along the image's edge is the page's edge.
        let edge = (0..<10).map { (0, 120 + 20 * $0, 6, 10) } + [(0, 120, 3, 200)]
        let framed = PageInk(page(heading + edge))
        let frameIsRule = framed.isRule(try component(framed, PixelRect(x: 0, y: 120, width: 6, height: 200)))
        #expect(frameIsRule)
    }

    @Test func theTabledInkTestsAreTheTestsThemselves() {
        // Every pair of a level (0–255) and its local mean, once.
        let means = (0..<65_536).map { UInt8($0 / 256) }, values = (0..<65_536).map { UInt8($0 % 256) }
        // Each test, and the darkest level under a mean of 200 it fails at: ink is 12% darker
        // (under 176), faint ink 6% (under 188).
        let tests: [((Int, Int) -> Bool, Int)] = [
            ({ mean, value in mean - value >= PageInk.minimumContrast && Double(value) < Double(mean) * (1 - PageInk.darkerBy) }, 176),
            ({ mean, value in 2 * (mean - value) >= PageInk.minimumContrast && Double(value) < Double(mean) * (1 - PageInk.darkerBy / 2) }, 188),
        ]
        for (test, fails) in tests {
            let tabled = PageInk.darker(values, than: means, where: test)
            #expect(tabled == zip(means, values).map { test(Int($0), Int($1)) })
            #expect(tabled[200 * 256 + fails - 1] && !tabled[200 * 256 + fails])
        }
    }

    /// A plane of 19 × 13 bytes (two 8 × 8 blocks across, one down, and edges left over)
    /// turned over its diagonal: the byte at (x, y) is at (y, x), and turned back it is the
    /// plane again; Bools alike.
    @Test func aPlaneTurnedOverItsDiagonalHoldsEachByteAtItsMirror() {
        let (width, height) = (19, 13)
        let plane = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        let turned = PageInk.transposed(plane, width: width, height: height)
        let mirrored = (0..<(width * height)).allSatisfy { index in
            let (x, y) = (index % width, index / width)
            return turned[x * height + y] == plane[index]
        }
        #expect(mirrored)
        #expect(PageInk.transposed(turned, width: height, height: width) == plane)
        let marks = plane.map { $0 % 3 == 0 }
        let turnedMarks = PageInk.transposed(marks, width: width, height: height)
        #expect(turnedMarks == turned.map { $0 % 3 == 0 })
    }

    @Test func aDashedLineWithFaintGapsIsFilled() {
        // Four dashes of 5 with faint gaps of 5 and 6: one line of 36.
        let line = "..#####fffff#####ffffff#####fffff#####.."
        #expect(bridged(line, minimumLength: 20) == ".." + String(repeating: "#", count: 36) + "..")
    }

    @Test func dashesBetweenPaperOrTooFewStayApart() {
        // The same dashes with one gap of paper: two dashed pieces of two dashes, each too few.
        #expect(bridged("..#####fffff#####f.fff#####fffff#####..", minimumLength: 20) == "..#####.....#####.....#####.....#####..")
        // A gap of faint ink wider than six pixels.
        #expect(bridged("#####fffffff#####fffffff#####", minimumLength: 10) == "#####.......#####.......#####")
    }

    @Test func aStrokeBesideARuleIsNotJoinedToIt() {
        // A letter's stroke of 19, a faint gap of 4, a rule crossed in 3 (a column through a
        // "1" above a rule): two pieces, the stroke most of the whole.
        #expect(bridged("###################ffff###", minimumLength: 20) == "###################....###")
        // Even with a second rule beyond it: the stroke is over half of the whole.
        #expect(bridged("###ffff###################ffff###", minimumLength: 20) == "###....###################....###")
    }

    @Test func gapsOfTwoPixelsJoinAsBeforeAndShortRunsStay() {
        #expect(bridged("##########..##########", minimumLength: 20) == "######################")
        #expect(bridged("#####..#####", minimumLength: 20) == "#####..#####")
    }

    /// `markThinLines` over a page of paper at 240, 120 × 40, with `draw` applied to its
    /// luma and `ink` already marked: the ink after, as the set of (x, y) marked.
    func thinLines(draw: (inout [UInt8]) -> Void, ink inked: Set<[Int]> = [], minimumLength: Int = 40) -> Set<[Int]> {
        let (width, height) = (120, 40)
        var luma = [UInt8](repeating: 240, count: width * height)
        draw(&luma)
        var ink = [Bool](repeating: false, count: width * height)
        for point in inked { ink[point[1] * width + point[0]] = true }
        PageInk.markThinLines(
            &ink, luma: luma, paper: [UInt8](repeating: 240, count: width * height), width: width, height: height, minimumLength: minimumLength)
        return Set(ink.indices.filter { ink[$0] }.map { [$0 % width, $0 / width] })
    }

    @Test func aFaintLineSharedBetweenTwoRowsIsMarkedInOne() {
        // A line 100 long whose darkness (14 levels, 6% of the paper: no ink) is shared
        // equally between rows 20 and 21: marked its whole length (in row 20, and in row 21
        // away from its ends), nothing else.
        let marked = thinLines { luma in
            for x in 10..<110 { luma[20 * 120 + x] = 226; luma[21 * 120 + x] = 226 }
        }
        #expect(marked.filter { $0[1] == 20 } == Set((10..<110).map { [$0, 20] }))
        #expect(marked.filter { $0[1] != 20 } == Set((12..<108).map { [$0, 21] }))
        // Only the darker row when one holds most of it.
        let lower = thinLines { luma in
            for x in 10..<110 { luma[20 * 120 + x] = 232; luma[21 * 120 + x] = 224 }
        }
        #expect(lower == Set((10..<110).map { [$0, 21] }))
    }

    @Test func aLineOfTextOrAShortLineIsNoThinLine() {
        // A band 8 rows tall, as dark: a line of text, not a rule.
        #expect(thinLines { luma in for y in 16..<24 { for x in 10..<110 { luma[y * 120 + x] = 226 } } }.isEmpty)
        // A thin line shorter than the minimum length.
        #expect(thinLines { luma in for x in 10..<45 { luma[20 * 120 + x] = 226; luma[21 * 120 + x] = 226 } }.isEmpty)
        // Dots along a row (the feet of letters on their line): no darkness between them.
        #expect(thinLines { luma in for x in stride(from: 10, to: 110, by: 6) { luma[20 * 120 + x] = 200; luma[21 * 120 + x] = 200 } }.isEmpty)
    }

    @Test func aThinLineIsCarriedOnToTheLineItMeets() {
        // A faint line from x = 10 to a dark vertical rule at x = 80, 81 (already ink). Near the
        // rule the rows beside the line are dark too; the line is marked up to the rule.
        let rule = Set((0..<40).flatMap { y in [[80, y], [81, y]] })
        let marked = thinLines(draw: { luma in
            for y in 0..<40 { luma[y * 120 + 80] = 40; luma[y * 120 + 81] = 40 }
            for x in 10..<80 { luma[20 * 120 + x] = 226; luma[21 * 120 + x] = 226 }
        }, ink: rule)
        let line = marked.subtracting(rule)
        #expect(Set(line.map { $0[0] }) == Set(10..<80))
        #expect(line.allSatisfy { $0[1] == 20 || $0[1] == 21 })
    }
}

