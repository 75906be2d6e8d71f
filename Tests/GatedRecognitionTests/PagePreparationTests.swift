import Foundation
@testable import DocumentStructure
import GatedRecognition
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import Testing
import TextRecognition
import _ImagingTestSupport

/// A page the gate judges as a document is read seen straight on (`GatedTextRecognizer.preparation`),
/// and what is read is placed in the image as it was given.
@Suite("Pages prepared before they are read")
struct PagePreparationTests {
    /// The synthetic page's sheet (600 × 800) photographed from above and to one side on a dark
    /// desk, in a 1 000 × 1 200 frame: its top edge falls 35 pixels over 610 (3.3°).
    static let corners = [(180.0, 140.0), (790.0, 175.0), (820.0, 1000.0), (150.0, 965.0)]

    /// The photo as a grayscale JPEG file, and its decoded pixels (what the recognizer's
    /// pixels are made from).
    static func photographedPage(in folder: TemporaryDirectory) throws -> (path: String, luma: PixelBuffer<UInt8>) {
        var sheet = Page.pixels
        // The sheet's outermost pixels are the desk: the photo's pixels outside the sheet take them.
        for x in 0..<sheet.width { (sheet[x, 0, 0], sheet[x, sheet.height - 1, 0]) = (60, 60) }
        for y in 0..<sheet.height { (sheet[0, y, 0], sheet[sheet.width - 1, y, 0]) = (60, 60) }
        let (w, h) = (Double(sheet.width - 1), Double(sheet.height - 1))
        let toSheet = try #require(Homography(from: corners, to: [(0.5, 0.5), (w + 0.5, 0.5), (w + 0.5, h + 0.5), (0.5, h + 0.5)]))
        let camera = PageGeometry(
            sourceSize: sheet.size, pageSize: ImageSize(width: 1000, height: 1200),
            corners: corners.map { PixelPoint(x: Int($0.0), y: Int($0.1)) }, toSource: toSheet)
        let path = try folder.write("photographed.jpg", JPEGEncoder.encode(camera.rectify(sheet), quality: 95))
        let decoded = try ImageDecoder().decode(contentsOf: path)
        return (path, decoded.luma.eightBit)
    }

    /// An observation's normalized box, if its pixel box lay in an image of `size`.
    static func normalized(_ observation: RecognizedTextObservation, in size: ImageSize) -> NormalizedRect {
        RecognizedTextObservation(
            candidates: observation.candidates, pixelBox: observation.pixelBox, imageSize: size, words: [], block: 0, paragraph: 0
        ).boundingBox
    }

    /// A gate that judges every image as `content` (the tests read with `force`, whatever it decides).
    static func configuration(judging content: ContentJudgement) -> Assessor.Configuration {
        var configuration = Assessor.Configuration()
        configuration.gate.policy.content = content
        return configuration
    }

    @Test func aPhotographedPageIsReadStraightOnAndItsWordsPlacedInThePhoto() async throws {
        let folder = try TemporaryDirectory()
        let (path, luma) = try Self.photographedPage(in: folder)
        // Where the document path finds the sheet in the same pixels.
        let geometry = try #require(DocumentAnalyzer().prepare(luma).geometry)
        #expect(geometry.pageSize != luma.size)
        for (corner, truth) in zip(geometry.corners, Self.corners) {
            #expect(abs(Double(corner.x) - truth.0) <= 6 && abs(Double(corner.y) - truth.1) <= 6, "\(corner) against \(truth)")
        }
        // The fake reads its scripted lines wherever it is given a page: in the upright page's
        // coordinates here, which the result gives in the photo's.
        let fake = FakeTextRecognizer(lines: Page.lines)
        let gated = GatedTextRecognizer(recognizer: fake, configuration: Self.configuration(judging: .document))
        let result = try await gated.recognize(contentsOf: path, force: true)
        #expect(result.decision.content == .document && fake.callCount == 1)
        // The recognizer was given the prepared page, not the photo.
        #expect(fake.lastImageSize == geometry.pageSize)
        let observations = try #require(result.observations)
        #expect(observations.count == Page.lines.count)
        for (observation, line) in zip(observations, Page.lines) {
            #expect(observation.text == line.text)
            #expect(observation.pixelBox == geometry.sourceRect(line.box) && observation.pixelBox != line.box)
            #expect(observation.boundingBox == Self.normalized(observation, in: luma.size))
            for word in observation.words {
                #expect(word.pixelBox.x >= observation.pixelBox.x && word.pixelBox.x + word.pixelBox.width <= observation.pixelBox.x + observation.pixelBox.width)
            }
        }
        // The first line's box, scripted at the sheet's top left, lies at the sheet's top left in the photo.
        let first = observations[0].pixelBox
        #expect(first.x > 180 && first.x < 260 && first.y > 150 && first.y < 240, "\(first)")
        #expect(result.timing.recognition != nil && result.timing.structure == nil)
    }

    @Test func withoutPreparationOrForAPhotoOrARegionThePixelsAreReadAsTheyAre() async throws {
        let folder = try TemporaryDirectory()
        let (path, luma) = try Self.photographedPage(in: folder)
        let scripted = Page.lines.map(\.box)
        func boxes(_ gated: GatedTextRecognizer<FakeTextRecognizer>, _ options: RecognitionOptions = RecognitionOptions()) async throws -> [PixelRect] {
            let result = try await gated.recognize(contentsOf: path, options: options, force: true)
            #expect(result.observations?.allSatisfy { $0.boundingBox == Self.normalized($0, in: luma.size) } == true)
            return try #require(result.observations).map(\.pixelBox)
        }
        let fake = FakeTextRecognizer(lines: Page.lines)
        // Asked to read the pixels as they are.
        let asIs = GatedTextRecognizer(recognizer: fake, configuration: Self.configuration(judging: .document), preparation: nil)
        #expect(try await boxes(asIs) == scripted && fake.lastImageSize == luma.size)
        // A photo is never prepared.
        let photo = GatedTextRecognizer(recognizer: fake, configuration: Self.configuration(judging: .photo))
        #expect(try await boxes(photo) == scripted)
        // A region of the image is read where the caller put it: the lines inside its top half.
        let document = GatedTextRecognizer(recognizer: fake, configuration: Self.configuration(judging: .document))
        var options = RecognitionOptions()
        options.regionOfInterest = NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5)  // normalized boxes count from the bottom
        #expect(try await boxes(document, options) == scripted && fake.lastImageSize == luma.size)
        #expect(fake.callCount == 3)
    }

    /// A page read prepared is gated as prepared: the decision is the one the gate makes on
    /// the prepared page's text (`judgePreparedPage`), marked `preparedPage`; read as it is
    /// (no preparation, a photo, a region), the decision is the photo's.
    @Test func aPageReadPreparedIsGatedAsPrepared() async throws {
        let folder = try TemporaryDirectory()
        let (path, luma) = try Self.photographedPage(in: folder)
        let configuration = Self.configuration(judging: .document)
        let expected = try #require(configuration.judgePreparedPage(DocumentAnalyzer.textPreparation.prepare(luma).cleaned))
        #expect(expected.preparedPage && expected.content == .document && expected.predictedAccuracy != nil)
        let asAssessed = try #require(Assessor(configuration).assess(contentsOf: path).image?.decision)
        #expect(!asAssessed.preparedPage)
        // The prepared page is judged on other pixels than the photo: its prediction differs.
        #expect(expected.predictedAccuracy != asAssessed.predictedAccuracy)

        let fake = FakeTextRecognizer(lines: Page.lines)
        let prepared = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: path, force: true)
        #expect(prepared.decision == expected)
        let asIs = try await GatedTextRecognizer(recognizer: fake, configuration: configuration, preparation: nil).recognize(contentsOf: path, force: true)
        #expect(asIs.decision == asAssessed)
        var region = RecognitionOptions()
        region.regionOfInterest = NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5)
        let part = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: path, options: region, force: true)
        #expect(part.decision == asAssessed)
        // The document path prepares with its own rule bound, and is gated on that page.
        let document = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).readDocument(contentsOf: path, force: true)
        #expect(document.decision == configuration.judgePreparedPage(DocumentAnalyzer().prepare(luma).cleaned))
        #expect(document.decision.preparedPage)
    }

    /// Nothing to judge on a page without text: the photo's decision stands.
    @Test func aPreparedPageWithoutTextIsNotJudged() {
        let blank = PixelBuffer<UInt8>(width: 400, height: 300, samples: [UInt8](repeating: 235, count: 400 * 300))
        #expect(Self.configuration(judging: .document).judgePreparedPage(blank) == nil)
    }

    /// The record says which pixels the decision was made on, only when they were prepared.
    @Test func theRecordSaysWhenTheDecisionWasMadeOnThePreparedPage() throws {
        var decision = GateDecision(pass: true, score: 0.9, content: .document, failures: [], predictedAccuracy: 0.9, predictor: "image")
        let plain = String(decoding: try JSONEncoder().encode(decision), as: UTF8.self)
        #expect(!plain.contains("preparedPage"))
        decision.preparedPage = true
        let data = try JSONEncoder().encode(decision)
        #expect(String(decoding: data, as: UTF8.self).contains("\"preparedPage\":true"))
        #expect(try JSONDecoder().decode(GateDecision.self, from: data) == decision)
        #expect(try JSONDecoder().decode(GateDecision.self, from: Data(plain.utf8)).preparedPage == false)
    }

    @Test func aPageIsPreparedForItsTextWithTheThinnerRuleBound() {
        #expect(GatedTextRecognizer(recognizer: FakeTextRecognizer(lines: [])).preparation?.ruleThickness == DocumentAnalyzer.textRuleThickness)
        #expect(DocumentAnalyzer.textRuleThickness == 0.4 && DocumentAnalyzer().ruleThickness == DocumentAnalyzer.documentRuleThickness)
    }
}
