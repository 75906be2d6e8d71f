import Foundation
import ImageCodecs
import ImagingCore
import QualityGating
import Testing
@testable import TextRecognition
import _ImagingTestSupport

/// The synthetic page of `Scenes.page` (600 × 800) and a script of its lines.
enum Page {
    static let width = 600, height = 800
    static var pixels: PixelBuffer<UInt8> { Scenes.plane(Scenes.page(), width: width, height: height) }
    static let words = ["quality", "gate", "reads", "only", "what", "will", "read", "well", "every", "line", "counts"]
    static var lines: [FakeTextRecognizer.Line] {
        (0..<11).map { index in
            let text = "\(words[index]) \(words[(index + 3) % words.count])"
            return FakeTextRecognizer.Line(text, box: PixelRect(x: 40, y: 40 + 30 * index, width: 500, height: 14), confidence: 0.9, block: index / 6, paragraph: index / 3)
        }
    }
}

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

@Suite("Gated recognition", .serialized)
struct GatedRecognitionTests {
    /// A sharp page and the same page blurred far beyond reading, as JPEG files.
    func pages() throws -> (TemporaryDirectory, sharp: String, blurred: String) {
        let folder = try TemporaryDirectory()
        let page = Scenes.page()
        let sharp = try folder.write("sharp.jpg", JPEGEncoder.encode(Scenes.plane(page, width: Page.width, height: Page.height), quality: 92))
        let soft = Scenes.gaussian(page, width: Page.width, height: Page.height, sigma: 6)
        let blurred = try folder.write("blurred.jpg", JPEGEncoder.encode(Scenes.plane(soft, width: Page.width, height: Page.height), quality: 92))
        return (folder, sharp, blurred)
    }

    @Test func aRejectedImageNeverReachesTheRecognizer() async throws {
        let (folder, _, blurred) = try pages()
        _ = folder
        let fake = FakeTextRecognizer(lines: Page.lines)
        let gated = GatedTextRecognizer(recognizer: fake)
        let result = try await gated.recognize(contentsOf: blurred)
        #expect(!result.decision.pass && result.decision.reasons.contains("blur"), "\(result.decision)")
        #expect(result.observations == nil && result.text == nil)
        #expect(fake.callCount == 0)
        let forced = try await gated.recognize(contentsOf: blurred, force: true)
        #expect(fake.callCount == 1)
        #expect(forced.text?.hasPrefix("quality") == true && !forced.decision.pass)
    }

    @Test func aGoodPageIsRecognizedWithItsReport() async throws {
        let (folder, sharp, _) = try pages()
        _ = folder
        let fake = FakeTextRecognizer(lines: Page.lines)
        let result = try await GatedTextRecognizer(recognizer: fake).recognize(contentsOf: sharp)
        #expect(result.decision.pass, "\(result.decision)")
        #expect(result.observations?.count == 11 && fake.callCount == 1)
        #expect(result.imageSize == ImageSize(width: 600, height: 800))
        #expect(result.report.blur != nil && result.report.text?.detected == true)
    }

    @Test func encodedBytesAreGatedLikeTheFile() async throws {
        let (folder, sharp, blurred) = try pages()
        _ = folder
        let fake = FakeTextRecognizer(lines: Page.lines)
        let gated = GatedTextRecognizer(recognizer: fake)
        let good = try await gated.recognize(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: sharp))))
        #expect(good.decision.pass && good.observations?.count == 11 && good.timing.decode != nil)
        let bad = try await gated.recognize(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: blurred))))
        #expect(!bad.decision.pass && bad.observations == nil && fake.callCount == 1)
        await #expect(throws: ImagingError.self) { try await gated.recognize(encoded: [0x89, 0x50, 0x4E, 0x47]) }
    }

    @Test func theFilesResolutionReachesTheRecognizer() async throws {
        let folder = try TemporaryDirectory()
        var bytes = try JPEGEncoder.encode(Scenes.plane(Scenes.page(), width: Page.width, height: Page.height), quality: 92)
        let plain = try folder.write("plain.jpg", bytes)
        // The JFIF APP0 density fields: unit 1 (dots per inch), 300 × 300.
        bytes.replaceSubrange(13..<18, with: [1, 0x01, 0x2C, 0x01, 0x2C])
        let declared = try folder.write("declared.jpg", bytes)
        let fake = FakeTextRecognizer(lines: Page.lines)
        let gated = GatedTextRecognizer(recognizer: fake)
        _ = try await gated.recognize(contentsOf: declared)
        #expect(fake.lastOptions?.sourceResolution == 300)
        _ = try await gated.recognize(contentsOf: plain)
        #expect(fake.callCount == 2 && fake.lastOptions?.sourceResolution == nil)
        _ = try await gated.recognize(contentsOf: declared, options: RecognitionOptions(sourceResolution: 200))
        #expect(fake.lastOptions?.sourceResolution == 200, "the caller's value wins")
    }

    @Test func eachStepIsTimed() async throws {
        let (folder, sharp, blurred) = try pages()
        _ = folder
        let gated = GatedTextRecognizer(recognizer: FakeTextRecognizer(lines: Page.lines))
        let recognized = try await gated.recognize(contentsOf: sharp).timing
        #expect(recognized.decode.map { $0 > .zero } == true && recognized.analysis > .zero && recognized.recognition != nil)
        let rejected = try await gated.recognize(contentsOf: blurred).timing
        #expect(rejected.decode != nil && rejected.recognition == nil)
        let decoded = try ImageDecoder().decode(contentsOf: sharp)
        #expect(try await gated.recognize(decoded).timing.decode == nil, "no decode when given pixels")
    }

    @Test func invalidOptionsFailBeforeDecoding() async {
        var options = RecognitionOptions()
        options.regionOfInterest = NormalizedRect(x: 0.9, y: 0, width: 0.5, height: 1)
        await #expect(throws: RecognitionError.self) {
            try await GatedTextRecognizer(recognizer: FakeTextRecognizer(lines: [])).recognize(contentsOf: "/no/such/file.jpg", options: options)
        }
        await #expect(throws: ImagingError.self) {
            try await GatedTextRecognizer(recognizer: FakeTextRecognizer(lines: [])).recognize(contentsOf: "/no/such/file.jpg")
        }
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
