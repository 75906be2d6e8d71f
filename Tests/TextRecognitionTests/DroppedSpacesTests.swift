import ImagingCore
import Testing

@testable import TextRecognition

/// Spaces put back into words from their characters' boxes, on words whose spacing is known.
@Suite("Dropped spaces")
struct DroppedSpacesTests {
    static let size = ImageSize(width: 1000, height: 100)

    /// A word at y = 10 whose characters (18 pixels tall) have the given widths, each
    /// separated from the one before by the given gap; the word's box spans them all.
    static func word(_ texts: [String], widths: [Int], gaps: [Int]) -> (RecognizedWord, [DroppedSpaces.Character]) {
        var x = 100
        var characters: [DroppedSpaces.Character] = []
        for (index, text) in texts.enumerated() {
            if index > 0 { x += gaps[index - 1] }
            characters.append(DroppedSpaces.Character(text: text, box: PixelRect(x: x, y: 10, width: widths[index], height: 18)))
            x += widths[index]
        }
        let box = PixelRect(x: 100, y: 10, width: x - 100, height: 18)
        let word = RecognizedWord(text: RecognizedText(string: texts.joined(), confidence: 0.8), pixelBox: box, imageSize: size, language: "en")
        return (word, characters)
    }

    static func split(_ texts: [String], widths: [Int]? = nil, gaps: [Int]) -> [RecognizedWord] {
        let (word, characters) = word(texts, widths: widths ?? texts.map { _ in 10 }, gaps: gaps)
        return DroppedSpaces.split(word, characters: characters, characterHeight: 18, imageSize: size)
    }

    @Test func aNumberAndItsUnitAcrossASpaceAreTwoWords() throws {
        // 8 pixels between "6" and "k": 0.44 character heights, above 0.33.
        let words = Self.split(["1", "6", "k", "g"], widths: [10, 11, 13, 11], gaps: [3, 8, 2])
        #expect(words.map(\.text.string) == ["16", "kg"])
        #expect(words.map(\.pixelBox) == [PixelRect(x: 100, y: 10, width: 24, height: 18), PixelRect(x: 132, y: 10, width: 26, height: 18)])
        #expect(words.allSatisfy { $0.text.confidence == 0.8 && $0.language == "en" })
        #expect(words[1].boundingBox == PixelRect(x: 132, y: 10, width: 26, height: 18).normalized(in: Self.size))
    }

    @Test func aNumberPrintedAgainstItsUnitStaysOneWord() {
        // 3 pixels: 0.17 heights.
        #expect(Self.split(["1", "6", "k", "g"], gaps: [3, 3, 2]).map(\.text.string) == ["16kg"])
        // 5 pixels: 0.28 heights, still under 0.33.
        #expect(Self.split(["1", "6", "k", "g"], gaps: [3, 5, 2]).map(\.text.string) == ["16kg"])
    }

    @Test func twoNamesJoinedAreSplitAndACapitalWithinAWordIsNot() {
        let names = Self.split(["W", "e", "r", "n", "e", "r", "G", "a", "r", "l", "a", "n", "d"], gaps: [2, 2, 2, 2, 2, 8, 2, 2, 2, 2, 2, 2])
        #expect(names.map(\.text.string) == ["Werner", "Garland"])
        #expect(Self.split(["F", "e", "d", "E", "x"], gaps: [2, 2, 4, 2]).map(\.text.string) == ["FedEx"])
    }

    @Test func onlyADigitBeforeALetterOrALowerCaseBeforeACapitalIsSplit() {
        // Wide gaps between two digits ("1" is narrow in its box), two lower-case letters,
        // a letter and a digit, or a capital and a lower-case letter leave the word whole.
        #expect(Self.split(["1", "1"], gaps: [9]).map(\.text.string) == ["11"])
        #expect(Self.split(["e", "x"], gaps: [9]).map(\.text.string) == ["ex"])
        #expect(Self.split(["A", "3"], gaps: [9]).map(\.text.string) == ["A3"])
        #expect(Self.split(["O", "k"], gaps: [9]).map(\.text.string) == ["Ok"])
    }

    @Test func aCodeMixingLettersAndDigitsStaysOneToken() {
        // A tracking number's "1Z…": the gap after the narrow "1" is wide, but "Z6E1" is no word.
        #expect(Self.split(["1", "Z", "6", "E", "1"], gaps: [8, 2, 2, 2]).map(\.text.string) == ["1Z6E1"])
    }

    @Test func punctuationAtTheEndsKeepsTheSplitAndDecimalsStayInTheNumber() {
        #expect(Self.split(["2", "1", ".", "7", "c", "m", "."], gaps: [2, 1, 1, 8, 2, 1]).map(\.text.string) == ["21.7", "cm."])
    }

    @Test func charactersThatDoNotSpellTheWordLeaveItAlone() {
        let (word, characters) = Self.word(["1", "6", "k", "g"], widths: [10, 10, 10, 10], gaps: [3, 8, 2])
        var other = word
        other.text.string = "16 kg"
        #expect(DroppedSpaces.split(other, characters: characters, characterHeight: 18, imageSize: Self.size) == [other])
        #expect(DroppedSpaces.split(word, characters: characters, characterHeight: 0, imageSize: Self.size) == [word])
    }

    @Test func theLineCharacterHeightIsTheMedian() {
        let box = { (height: Int) in DroppedSpaces.Character(text: "a", box: PixelRect(x: 0, y: 0, width: 5, height: height)) }
        #expect(DroppedSpaces.characterHeight([[box(10), box(18)], [box(20), box(4), box(18)]]) == 18)
        #expect(DroppedSpaces.characterHeight([]) == 0)
    }
}
