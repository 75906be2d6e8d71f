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
}
