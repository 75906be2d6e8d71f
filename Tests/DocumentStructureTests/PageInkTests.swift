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

    /// A deepened page: a heading of 30 letters 16 pixels high sets the median character
    /// height, a word of small print run together into one piece 100 × 8, and a ruling line
    /// 300 × 2. Against the heading's height the word is as thin for its length as a rule
    /// (8 under 0.6 × 16); against the small print's own height, 8, it is not.
    @Test func aLongWordOfDeepenedSmallPrintIsNoRule() throws {
        let (width, height) = (700, 400)
        var image = PixelBuffer<UInt8>(width: width, height: height, channels: 1, samples: Array(repeating: 235, count: width * height))
        func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { image[x, y] = 40 } }
        }
        for letter in 0..<30 { fill(20 + 20 * letter, 30, 10, 16) }
        fill(40, 120, 100, 8)
        fill(40, 200, 300, 2)
        func pieces(_ ink: PageInk) throws -> (word: PageInk.Component, rule: PageInk.Component) {
            (try #require(ink.components.first { $0.box == PixelRect(x: 40, y: 120, width: 100, height: 8) }),
             try #require(ink.components.first { $0.box == PixelRect(x: 40, y: 200, width: 300, height: 2) }))
        }
        let ink = PageInk(image)
        #expect(ink.characterHeight == 16)
        let (word, rule) = try pieces(ink)
        #expect(ink.isRule(word) && ink.isRule(rule))
        let deepened = PageInk(image, characterHeightAtMost: 8)
        #expect(deepened.characterHeight == 16 && deepened.ruleScale == 8)
        let (deepWord, deepRule) = try pieces(deepened)
        #expect(!deepened.isRule(deepWord) && deepened.isRule(deepRule))
        // A page whose first reading found no characters keeps its own height.
        #expect(PageInk(image, characterHeightAtMost: 0).ruleScale == 16)
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

