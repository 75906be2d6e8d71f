import Foundation
import ImagingCore
import Testing
@testable import TextRecognition
import _ImagingTestSupport


/// A recognizer that breaks the contract: boxes outside the image, region ignored.
struct BrokenRecognizer: TextRecognizer {
    func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> [RecognizedTextObservation] {
        let size = image.size
        return [RecognizedTextObservation(
            candidates: [RecognizedText(string: "nothing", confidence: 1.5)],
            pixelBox: PixelRect(x: size.width - 10, y: size.height - 5, width: 50, height: 20), imageSize: size, words: [], block: 0, paragraph: 0)]
    }
}

@Suite("TextRecognizer seam")
struct TextRecognizerTests {
    @Test func theFakeConforms() async {
        let failures = await TextRecognizerConformance.check(FakeTextRecognizer(lines: Page.lines), page: Page.pixels, expectedWords: Set(Page.words))
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func refusingAnOptionIsConformingIgnoringIsNot() async throws {
        let fake = FakeTextRecognizer(lines: Page.lines, unsupportedOptions: ["customWords"])
        var options = RecognitionOptions()
        options.customWords = ["imgquality"]
        await #expect(throws: RecognitionError.self) { try await fake.recognize(Page.pixels, options: options) }
        let failures = await TextRecognizerConformance.check(fake, page: Page.pixels, expectedWords: Set(Page.words))
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func theSuiteCatchesABrokenRecognizer() async {
        let failures = await TextRecognizerConformance.check(BrokenRecognizer(), page: Page.pixels, expectedWords: Set(Page.words))
        let checks = Set(failures.map(\.check))
        #expect(checks.contains("geometry") && checks.contains("candidates") && checks.contains("word recall") && checks.contains("invalid region"), "\(failures)")
    }

    @Test func boxesInBothConventions() {
        let size = ImageSize(width: 200, height: 100)
        let box = PixelRect(x: 20, y: 10, width: 60, height: 30)
        let normalized = box.normalized(in: size)
        #expect(normalized == NormalizedRect(x: 0.1, y: 0.6, width: 0.3, height: 0.3))
        #expect(normalized.pixelRect(in: size) == box)
        #expect(box.quadrilateral == [PixelPoint(x: 20, y: 10), PixelPoint(x: 80, y: 10), PixelPoint(x: 80, y: 40), PixelPoint(x: 20, y: 40)])
    }

    @Test func regionAndHeightOptionsFilterLines() async throws {
        let fake = FakeTextRecognizer(lines: Page.lines)
        var bottom = RecognitionOptions()
        bottom.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 1, height: 0.5)  // lower half (lower-left origin)
        let lines = try await fake.recognize(Page.pixels, options: bottom)
        #expect(lines.allSatisfy { $0.pixelBox.y >= 400 })
        var tall = RecognitionOptions()
        tall.minimumTextHeightFraction = 0.1
        #expect(try await fake.recognize(Page.pixels, options: tall).isEmpty)
        var invalid = RecognitionOptions()
        invalid.minimumTextHeightFraction = 2
        await #expect(throws: RecognitionError(.invalidOption, "minimumTextHeightFraction 2.0 is outside 0…1")) {
            try await fake.recognize(Page.pixels, options: invalid)
        }
    }

    @Test func topCandidatesAreBestFirst() {
        let line = RecognizedTextObservation(
            candidates: [RecognizedText(string: "b", confidence: 0.2), RecognizedText(string: "a", confidence: 0.8)],
            pixelBox: PixelRect(x: 0, y: 0, width: 10, height: 10), imageSize: ImageSize(width: 10, height: 10), words: [], block: 0, paragraph: 0)
        #expect(line.topCandidates(1).map(\.string) == ["a"])
        #expect(line.topCandidates(5).count == 2 && line.text == "a")
    }
}

@Suite("Command recognizer output")
struct CommandParsingTests {
    @Test func tsvLinesAndWords() {
        let tsv = """
            level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
            1\t1\t0\t0\t0\t0\t0\t0\t200\t100\t-1\t
            2\t1\t1\t0\t0\t0\t10\t10\t150\t40\t-1\t
            3\t1\t1\t1\t0\t0\t10\t10\t150\t40\t-1\t
            4\t1\t1\t1\t1\t0\t10\t10\t150\t15\t-1\t
            5\t1\t1\t1\t1\t1\t10\t10\t60\t15\t96.5\tHello
            5\t1\t1\t1\t1\t2\t80\t10\t80\t15\t90.0\tworld
            4\t1\t1\t1\t2\t0\t10\t35\t100\t15\t-1\t
            5\t1\t1\t1\t2\t1\t10\t35\t100\t15\t50\tagain
            """
        let lines = CommandTextRecognizer.parseTSV(tsv, size: ImageSize(width: 200, height: 100))
        #expect(lines.map(\.text) == ["Hello world", "again"])
        #expect(lines[0].words.map(\.text.confidence) == [0.965, 0.9])
        #expect(lines[0].pixelBox == PixelRect(x: 10, y: 10, width: 150, height: 15))
        #expect(lines[1].boundingBox == NormalizedRect(x: 0.05, y: 0.5, width: 0.5, height: 0.15))
        #expect(lines.map(\.paragraph) == [0, 0] && lines.map(\.block) == [0, 0])
    }
}
