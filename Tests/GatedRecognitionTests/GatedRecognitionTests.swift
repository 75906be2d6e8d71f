import Foundation
import GatedRecognition
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics
import Testing
import TextRecognition
import _ImagingTestSupport

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
        #expect(!result.decision.pass && result.decision.reasons.contains(.predictedAccuracy), "\(result.decision)")
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
        let counter = ImageDecoder.Counter()
        let result = try await ImageDecoder.$counter.withValue(counter) {
            try await GatedTextRecognizer(recognizer: fake).recognize(contentsOf: sharp)
        }
        // Decoded once: the recognizer reads the pixels the gate judged.
        #expect(counter.count == 1)
        #expect(result.decision.pass, "\(result.decision)")
        #expect(result.observations?.count == 11 && fake.callCount == 1)
        #expect(result.imageSize == ImageSize(width: 600, height: 800))
        #expect(result.report.blur != nil && result.report.text?.detected == true)
    }

    /// A reading predictor whose layout model weighs the probe's laid-out share (`layout`
    /// true) or only the image's legibility, as a model file may have it either way.
    static func predictor(weighingTheProbe layout: Bool) -> ReadingPredictor {
        let image = DetectorModel.LinearModel(intercept: -2, weights: ["logLegibility": 1])
        let withLayout = DetectorModel.LinearModel(intercept: -2, weights: layout ? ["logLegibility": 1, "logLaidOutShare": 1] : ["logLegibility": 1])
        return ReadingPredictor(imageModel: image, layoutModel: withLayout)
    }

    @Test func theLayoutProbeReadsWhereTheRecognizerFindsLines() async throws {
        let (folder, sharp, _) = try pages()
        _ = folder
        let fake = FakeTextRecognizer(lines: Page.lines)
        var configuration = Assessor.Configuration()
        configuration.gate.policy.content = .document
        configuration.gate.predictor = Self.predictor(weighingTheProbe: true)
        configuration.layoutProbe = RecognizerLayoutProbe(fake, options: RecognitionOptions(), name: "scripted layout")
        let probed = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: sharp)
        let probe = try #require(probed.decision.probe)
        // The 11 scripted lines, 500 × 14 pixels each: 500 / 7 characters a line.
        #expect(probe.probe == "scripted layout" && probe.lines == 11 && abs(probe.characters - 11 * 500 / 7.0) < 1e-9 && probe.error == nil)
        #expect(probed.decision.predictor == "image+layout")
        let found = try #require(probed.report.text?.characters)
        #expect(probe.laidOutShare == min(ReadingPredictor.largestLaidOutShare, probe.characters / found))
        // A recognizer whose layout finds nothing predicts less from the same pixels.
        let blind = FakeTextRecognizer(lines: [])
        configuration.layoutProbe = RecognizerLayoutProbe(blind, options: RecognitionOptions(), name: "blind layout")
        let unseen = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: sharp, force: true)
        #expect(unseen.decision.probe?.lines == 0 && unseen.decision.probe?.laidOutShare == 0)
        #expect(try #require(unseen.decision.predictedAccuracy) < (try #require(probed.decision.predictedAccuracy)))
        // Without a probe the image's model decides, and the record says so.
        configuration.layoutProbe = nil
        let imageOnly = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: sharp)
        #expect(imageOnly.decision.predictor == "image" && imageOnly.decision.probe == nil)
        // A model that weighs nothing the probe measures: the probe is not run at all (a
        // probe that ran would be in the decision, and its model named "image+layout").
        configuration.layoutProbe = RecognizerLayoutProbe(fake, options: RecognitionOptions(), name: "unused layout")
        configuration.gate.predictor = Self.predictor(weighingTheProbe: false)
        let unprobed = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: sharp)
        #expect(unprobed.decision.probe == nil && unprobed.decision.predictor == "image" && unprobed.decision.predictedAccuracy != nil)
        // Asked to probe every document (records for a fit), it runs and is recorded, and the
        // image model still predicts: the layout model weighs nothing the probe measured.
        configuration.probesEveryDocument = true
        let recorded = try await GatedTextRecognizer(recognizer: fake, configuration: configuration).recognize(contentsOf: sharp, force: true)
        #expect(recorded.decision.probe?.lines == 11 && recorded.decision.probe?.probe == "unused layout")
        #expect(recorded.decision.predictor == "image" && recorded.decision.predictedAccuracy == unprobed.decision.predictedAccuracy)
    }

    @Test func photosAreNeverProbed() throws {
        let fake = FakeTextRecognizer(lines: Page.lines)
        var configuration = Assessor.Configuration()
        configuration.layoutProbe = RecognizerLayoutProbe(fake, options: RecognitionOptions(), name: "scripted layout")
        let folder = try TemporaryDirectory()
        let photo = try folder.write("photo.jpg", JPEGEncoder.encode(Scenes.plane(Scenes.photo(), width: 512, height: 384), quality: 90))
        let assessment = Assessor(configuration).assess(contentsOf: photo)
        let decision = try #require(assessment.image?.decision)
        #expect(decision.content == .photo && decision.probe == nil && decision.predictedAccuracy == nil)
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

    @Test func theGatesTextLayoutReachesTheRecognizer() async throws {
        let (folder, sharp, _) = try pages()
        _ = folder
        let fake = FakeTextRecognizer(lines: Page.lines)
        let result = try await GatedTextRecognizer(recognizer: fake).recognize(contentsOf: sharp)
        let text = try #require(result.report.text)
        #expect(fake.lastOptions?.textLayout == TextLayout(linePitch: text.linePitch, strokeWidth: text.strokeWidth))
        // The synthetic page's lines are 30 pixels apart.
        #expect(abs(text.linePitch - 30) < 1.5, "\(text)")
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
