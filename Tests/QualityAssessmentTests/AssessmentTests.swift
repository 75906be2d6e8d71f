import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics
import Testing
import _ImagingTestSupport

@Suite("Assessment pipeline and record")
struct AssessmentTests {
    let schema = try! SchemaValidator(schema: RecordSchema.scoreRecord.serialized)

    @Test func aFileIsDecodedOnceAnalysedAndGated() throws {
        let path = Fixtures.path("jpeg/large.jpg")
        let counter = ImageDecoder.Counter()
        let assessment = ImageDecoder.$counter.withValue(counter) { Assessor().assess(contentsOf: path) }
        #expect(counter.count == 1)
        let image = try #require(assessment.image)
        #expect(assessment.path == path && assessment.error == nil)
        #expect(image.format == .jpeg && image.size == ImageSize(width: 256, height: 192) && image.pageCount == 1)
        #expect(image.report.blur != nil && image.report.smudge != nil && image.report.exposure != nil)
        #expect(image.report.aesthetic != nil && image.report.text != nil)
        #expect(image.decision == QualityGate().decide(image.report))
        #expect((assessment.elapsedMilliseconds ?? -1) > 0)
    }

    /// A flash-lit subject on black, encoded as a JPEG: with an EXIF Flash tag that says
    /// it fired, the record says so and the photo, lit from the front, is judged by its
    /// subject's detail; without, the black ground makes it badly exposed.
    @Test func theFlashTagReachesTheExposureJudgement() throws {
        let width = 256, height = 192
        let scene = Scenes.photo(width: width, height: height, seed: 16)
        let flashLit = (0..<(width * height)).map { i in
            (64..<192).contains(i % width) && (48..<144).contains(i / width) ? scene[i] : 2
        }
        let plain = try JPEGEncoder.encode(Scenes.plane(flashLit, width: width, height: height), quality: 95)
        let flash = Assessor().assess(.encoded(Fixtures.withFlashEXIF(plain), name: "flash.jpg"))
        let none = Assessor().assess(.encoded(plain, name: "plain.jpg"))
        let flagged = try #require(flash.image?.report.exposure), unflagged = try #require(none.image?.report.exposure)
        #expect(flagged.flash && flagged.direction == .ok, "\(flagged.underEvidence)")
        #expect(!unflagged.flash && unflagged.direction != .ok, "\(unflagged.underEvidence) \(unflagged.backlitEvidence)")
    }

    @Test func timingsNameEachStageAndChangeNothingElse() throws {
        let path = Fixtures.path("jpeg/large.jpg")
        let timed = Assessor(Assessor.Configuration(measuresStages: true)).assess(contentsOf: path)
        let plain = Assessor().assess(contentsOf: path)
        let timings = try #require(timed.timings)
        #expect(plain.timings == nil && timed.image == plain.image)
        let names = timings.stages.map(\.name)
        #expect(Array(names.prefix(4)) == ["read", "decode", "convert", "prepare"] && names.last == "gate")
        #expect(
            Set(names) == [
                "read", "decode", "convert", "prepare", "tiles", "detail", "colourfulness", "textEstimate", "textFinder",
                "blur", "smudge", "exposure", "aesthetic", "text", "noise", "compression", "gate",
            ] && names.count == Set(names).count)
        #expect(timings.stages.allSatisfy { $0.duration >= .zero })
        // Own times: together no more than the whole.
        let total = timings.stages.reduce(Duration.zero) { $0 + $1.duration }
        #expect(total.milliseconds <= (timed.elapsedMilliseconds ?? 0) + 0.01)
        let record = timed.record
        guard case .object(let members) = record, case .object(let stages)? = record[path: "timings"] else {
            Issue.record("no timings object")
            return
        }
        #expect(members.last?.0 == "timings" && stages.map(\.0) == names.map { $0 + "Ms" })
        #expect(schema.problems(record.serialized).isEmpty)
        // Only the detectors asked for, and the stages they need, are timed.
        let blurOnly = Assessor(Assessor.Configuration(analyzer: QualityAnalyzer(detectors: [.blur]), measuresStages: true))
        #expect(blurOnly.assess(contentsOf: path).timings?.stages.map(\.name) == ["read", "decode", "convert", "prepare", "tiles", "blur", "gate"])
    }

    @Test func anImageTooSmallToMeasureIsSaidSoNotGuessed() throws {
        // 37 × 23: shorter than one analysis tile.
        let small = try #require(Assessor().assess(contentsOf: Fixtures.path("png/rgb8.png")).image)
        #expect(small.report == QualityReport(fullSize: ImageSize(width: 37, height: 23)), "no detector ran")
        #expect(!small.decision.pass && small.decision.reasons == [.tooSmall] && small.decision.score == 0)
        #expect(small.decision.failures.map(\.message) == ["image too small: shorter side (px) 23 < 32"])
        // At the minimum, every detector runs.
        let gate = QualityGate()
        #expect(gate.decide(QualityReport(fullSize: ImageSize(width: 32, height: 400))).pass)
        #expect(gate.decide(QualityReport(fullSize: ImageSize(width: 400, height: 31))).reasons == [.tooSmall])
        let large = try #require(Assessor().assess(contentsOf: Fixtures.path("jpeg/gray.jpg")).image)
        #expect(large.report.blur != nil && large.report.text != nil && !large.decision.reasons.contains(.tooSmall))
    }

    @Test func bytesAndDecodedPixelsGiveTheSameAssessment() throws {
        let path = Fixtures.path("jpeg/large.jpg")
        let assessor = Assessor()
        let fromFile = try #require(assessor.assess(contentsOf: path).image)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let fromBytes = assessor.assess(.encoded(bytes, name: "in-memory"))
        #expect(fromBytes.path == "in-memory" && fromBytes.image == fromFile)
        let decoded = try assessor.decode(.file(path: path))
        #expect(assessor.assess(.decoded(decoded, name: "pixels")).image == fromFile)
    }

    /// A failure's message shows its value and threshold apart even when they differ only
    /// past the usual four digits.
    @Test func failureMessagesNeverReadAsEqualValues() {
        #expect(GateFailure(reason: .blur, measured: 0.61234, threshold: 0.5).message == "blurred: blur confidence 0.6123 > 0.5")
        let tie = GateFailure(reason: .score, measured: 0.00001, threshold: 0.00003)
        #expect(tie.message.hasSuffix(" 1e-05 < 3e-05"), "\(tie.message)")
    }

    @Test func aFailedInputHoldsItsError() {
        let assessment = Assessor().assess(contentsOf: Fixtures.path("png/truncated.png"))
        #expect(assessment.image == nil && assessment.error?.kind == .truncated && !assessment.passed)
        #expect(assessment.record.serialized.hasPrefix(#"{"path":"#))
        #expect(assessment.record[path: "error.code"] == .string("decode.truncated"))
    }

    @Test func theRecordKeepsTheContractsOrderAndRounding() throws {
        let record = Assessor().assess(contentsOf: Fixtures.path("jpeg/large.jpg")).record
        guard case .object(let members) = record else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["path", "format", "width", "height", "blur", "smudge", "exposure", "aesthetic", "text", "noise", "compression", "gate", "elapsedMs"])
        // Each detector's members are its descriptor's fields, in order, the diagnostic ones
        // only when asked for.
        var analyzer = QualityAnalyzer()
        analyzer.diagnostics = true
        let diagnosed = Assessor(Assessor.Configuration(analyzer: analyzer)).assess(contentsOf: Fixtures.path("jpeg/large.jpg")).record
        #expect(diagnosed[path: "smudge.spectralSlope"] != nil && record[path: "smudge.spectralSlope"] == nil)
        #expect(diagnosed[path: "smudge.confidence"] == record[path: "smudge.confidence"])
        for kind in DetectorKind.allCases {
            guard case .object(let fields)? = record[path: kind.descriptor.name] else { Issue.record("no \(kind)"); continue }
            #expect(fields.map(\.0) == kind.descriptor.fields.filter { !$0.isDiagnostic }.map(\.name), "\(kind)")
            guard case .object(let all)? = diagnosed[path: kind.descriptor.name] else { Issue.record("no \(kind)"); continue }
            #expect(all.map(\.0) == kind.descriptor.fields.map(\.name), "\(kind)")
            for (name, value) in fields {
                if case .double(let number) = value { #expect(number == (number * 10_000).rounded() / 10_000, "\(kind).\(name)") }
            }
        }
        #expect(record[path: "gate"].map { Array(Self.keys($0)) } == ["pass", "score", "content", "reasons", "failures"])
    }

    /// One assessment per page read, in page order, each with its page; a file that fails
    /// on its first page selected gives that failure alone.
    @Test func pagesAreAssessedInOrder() throws {
        let assessor = Assessor()
        let all = assessor.assessPages(contentsOf: Fixtures.path("tiff/three-pages.tif"), pages: .all)
        #expect(all.map(\.page) == [1, 2, 3])
        #expect(all.compactMap(\.image?.size) == [ImageSize(width: 64, height: 64), ImageSize(width: 40, height: 48), ImageSize(width: 40, height: 36)])
        var problem = ""
        let chosen = try #require(PageSelection(parsing: "3,2", problem: &problem))
        #expect(assessor.assessPages(contentsOf: Fixtures.path("tiff/three-pages.tif"), pages: chosen).map(\.page) == [2, 3])
        let single = assessor.assessPages(contentsOf: Fixtures.path("png/gray8.png"), pages: .all)
        #expect(single.count == 1 && single[0].page == nil && single[0].image != nil)
        let beyond = assessor.assessPages(contentsOf: Fixtures.path("png/gray8.png"), pages: .page(2))
        #expect(beyond.count == 1 && beyond[0].error?.kind == .pageOutOfRange)
        let broken = assessor.assessPages(contentsOf: Fixtures.path("png/truncated.png"), pages: .all)
        #expect(broken.count == 1 && broken[0].error?.kind == .truncated)
        // The assessor's own page comes back after a run over pages.
        #expect(assessor.assess(contentsOf: Fixtures.path("tiff/three-pages.tif")).image?.size == ImageSize(width: 64, height: 64))
        // The page survives the record.
        let decoded = try JSONDecoder().decode(Assessment.self, from: Data(all[1].record.serialized.utf8))
        #expect(decoded.page == 2 && decoded.record.serialized == all[1].record.serialized)
    }

    @Test func recordsDecodeBackToTheSameAssessment() throws {
        let decoder = JSONDecoder()
        for fixture in ["jpeg/large.jpg", "png/gray8.png", "png/truncated.png", "tiff/multipage.tif"] {
            let assessment = Assessor().assess(contentsOf: Fixtures.path(fixture))
            let text = assessment.record.serialized
            let decoded = try decoder.decode(Assessment.self, from: Data(text.utf8))
            // Encoding again gives the same text: nothing is lost but what rounding already dropped.
            #expect(decoded.record.serialized == text, "\(fixture)")
        }
    }

    @Test func recordsOfTheLastVersionStillDecode() throws {
        // A 0.2 record: reasons were bare codes, with no failures.
        let old = #"{"path":"a.jpg","format":"jpeg","width":10,"height":8,"blur":{"confidence":0.9,"edgeWidth":3,"edgeWidthMedian":3,"texturedFraction":1,"motionWidth":0,"laplacianVariance":0.1},"gate":{"pass":false,"score":0.1,"reasons":["blur"]},"elapsedMs":3.1}"#
        let assessment = try JSONDecoder().decode(Assessment.self, from: Data(old.utf8))
        let image = try #require(assessment.image)
        #expect(image.decision.reasons == [.blur] && image.report.blur?.edgeWidth == 3 && image.report.smudge == nil)
        #expect(assessment.elapsedMilliseconds == 3.1)
    }

    @Test func realRecordsValidateAgainstTheSchema() throws {
        let inputs = [
            "jpeg/large.jpg", "png/gray8.png", "png/rgb16.png", "tiff/multipage.tif", "png/truncated.png", "png/huge-dimensions.png",
            "other/not-an-image.txt", "other/bmp.bmp", "gif/transparent.gif", "webp/orientation-6.webp", "webp/truncated.webp",
        ]
        for fixture in inputs {
            let text = Assessor().assess(contentsOf: Fixtures.path(fixture)).record.serialized
            #expect(schema.problems(text).isEmpty, "\(fixture): \(schema.problems(text))")
        }
        let subset = Assessor(Assessor.Configuration(analyzer: QualityAnalyzer(detectors: [.exposure])))
        let partial = subset.assess(contentsOf: Fixtures.path("jpeg/large.jpg")).record.serialized
        #expect(schema.problems(partial).isEmpty, "\(schema.problems(partial))")
    }

    @Test func theSchemaRejectsWhatIsNotARecord() {
        #expect(!schema.problems(#"{"path":"a"}"#).isEmpty, "neither an image nor an error")
        #expect(!schema.problems(#"{"path":"a","error":{"code":"decode.nonsense","message":"m"}}"#).isEmpty, "unknown code")
        let valid = Assessor().assess(contentsOf: Fixtures.path("jpeg/large.jpg")).record.serialized
        let extra = valid.replacingOccurrences(of: #""blur":{"confidence""#, with: #""blur":{"sharpness":1,"confidence""#)
        #expect(!schema.problems(extra).isEmpty, "a member no descriptor lists")
        let gateExtra = valid.replacingOccurrences(of: #""gate":{"pass":"#, with: #""gate":{"extra":1,"pass":"#)
        #expect(!schema.problems(gateExtra).isEmpty, "a gate member the schema does not list")
        let outOfRange = valid.replacingOccurrences(of: #""aesthetic":{"score":"#, with: #""aesthetic":{"score":7,"was":"#)
        #expect(!schema.problems(outOfRange).isEmpty, "a score above 1")
    }

    @Test func everyDetectorFieldRoundTripsThroughItsDescriptor() throws {
        var exposure = ExposureObservation()
        exposure.direction = .under
        exposure.median = 12.5
        let text = try JSONValue.encoding(exposure).serialized
        #expect(text.hasPrefix(#"{"confidence":0,"direction":"under","median":12.5"#))
        #expect(try JSONDecoder().decode(ExposureObservation.self, from: Data(text.utf8)) == exposure)
        let bad = text.replacingOccurrences(of: "under", with: "sideways")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExposureObservation.self, from: Data(bad.utf8)) }
    }

    static func keys(_ value: JSONValue) -> [String] {
        if case .object(let members) = value { return members.map(\.0) }
        return []
    }
}
