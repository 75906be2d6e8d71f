import Foundation
import ImagingCore
import QualityMetrics
import Testing
import _ImagingTestSupport

/// The detector models as data: the bundled files load and drive the detectors, a broken
/// file is refused with its error code, and no fitted number is left in the Swift sources.
@Suite("Detector models")
struct ModelTests {
    /// The folder of the bundled model files in this checkout.
    static let modelFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/QualityMetrics/Models").path

    /// A model file's JSON as written, for building broken variants.
    func json(_ detector: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.modelFolder + "/" + detector + ".json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Writes `object` to a temporary file and loads it as a model.
    func load(_ object: [String: Any]) throws -> Result<DetectorModel, ModelError> {
        let path = NSTemporaryDirectory() + "imgquality-model-\(UUID().uuidString).json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Result { () throws(ModelError) in try ModelSet.loadModel(contentsOf: path) }
    }

    func errorCode(_ result: Result<DetectorModel, ModelError>) -> String? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test func theBundledModelsAreTheFilesInTheSourceTree() throws {
        let bundled = try ModelSet.loadBundled()
        let source = try ModelSet.load(directory: Self.modelFolder)
        #expect(bundled == source)
        #expect(bundled.models.keys.sorted() == ["aesthetic", "blur", "compression", "exposure", "noise", "smudge", "text"])
    }

    @Test func theDetectorsReadTheirWeightsFromTheModelFiles() throws {
        let smudge = try json("smudge")
        let evidence = try #require((smudge["evidence"] as? [String: Any])?["smudge"] as? [String: Any])
        let weights = try #require(evidence["weights"] as? [String: Double])
        let detector = SmudgeDetector()
        #expect(detector.evidence.intercept == evidence["intercept"] as? Double)
        #expect(detector.evidence.weights == weights)

        let exposure = try json("exposure")
        let over = try #require((exposure["evidence"] as? [String: Any])?["over"] as? [String: Any])
        #expect(ExposureDetector().overModel.weights == over["weights"] as? [String: Double])
        let blurMapping = try #require(try json("blur")["mapping"] as? [String: Any])
        #expect(BlurDetector().mapping.midpoint == blurMapping["midpoint"] as? Double)
        #expect(BlurDetector().mapping.slope == blurMapping["slope"] as? Double)
    }

    /// A model with a large intercept makes the same image read as smudged: the evidence
    /// comes from the model, not from constants.
    @Test func anotherModelChangesTheConfidence() throws {
        let plane = Scenes.plane(Scenes.photo(width: 256, height: 192, seed: 3), width: 256, height: 192)
        let image = AnalysisImage(luma: plane, fullSize: plane.size)
        let bundled = SmudgeDetector().analyze(image)
        var object = try json("smudge")
        object["evidence"] = ["smudge": ["intercept": 40.0, "weights": ["veilFraction": 0.0, "veilShare": 0.0]]]
        let model = try load(object).get()
        let shifted = SmudgeDetector(model: model).analyze(image)
        #expect(bundled.confidence < 0.5)
        #expect(shifted.evidence == 40 && shifted.confidence == 1)
    }

    @Test func eachBrokenModelIsRefusedWithItsCode() throws {
        var missingWeight = try json("smudge")
        missingWeight["evidence"] = ["smudge": ["intercept": 1.0, "weights": ["veilFraction": 1.0]]]
        var unknownKey = try json("blur")
        unknownKey["weights"] = [1.0]
        var nestedUnknownKey = try json("blur")
        nestedUnknownKey["mapping"] = ["midpoint": 1.0, "slope": 2.0, "logarithmic": true, "offset": 0.0]
        var laterFormat = try json("blur")
        laterFormat["format"] = 2
        var unknownDetector = try json("blur")
        unknownDetector["detector"] = "sharpness"
        var confidenceAboveOne = try json("smudge")
        confidenceAboveOne["thresholds"] = ["smudge": ["value": 1.5, "rule": "none"]]
        var otherDetectorsThreshold = try json("blur")
        otherDetectorsThreshold["thresholds"] = ["smudge": ["value": 0.5, "rule": "none"]]
        var noMapping = try json("exposure")
        noMapping.removeValue(forKey: "mapping")
        var notANumber = try json("text")
        notANumber["thresholds"] = ["minimumLinePitch": ["value": "twelve", "rule": "none"]]
        for broken in [
            missingWeight, unknownKey, nestedUnknownKey, laterFormat, unknownDetector, confidenceAboveOne, otherDetectorsThreshold,
            noMapping, notANumber,
        ] {
            #expect(try errorCode(load(broken)) == "model.invalid", "\(broken)")
        }
        let missing = Result { () throws(ModelError) in try ModelSet.loadModel(contentsOf: "/nonexistent/blur.json") }
        #expect(errorCode(missing) == "model.unreadable")
    }

    /// The blur model may leave out `cepstralDip`, an optional measure (models fitted before
    /// it weigh the two widths), and must weigh the others: without the dip it reads the widths
    /// alone; without a width, or with a measure the detector does not read, it is refused.
    @Test func anOptionalMeasureMayBeLeftOutAndNoOther() throws {
        var widths = try json("blur")
        widths["evidence"] = ["blur": ["intercept": -3.0, "weights": ["edgeWidth": 4.0, "spread": 1.0]]]
        let model = try load(widths).get()
        let plane = Scenes.plane(Scenes.photo(width: 512, height: 384, seed: 3), width: 512, height: 384)
        let blur = BlurDetector(model: model).analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(abs(blur.evidence - (-3 + 4 * log(blur.edgeWidth) + log(blur.spread))) < 1e-9)
        #expect(blur.cepstralDip > 0)
        // Without its own motion evidence, the model names a blur's kind by the bundled one.
        let bundled = BlurDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(blur.motionEvidence == bundled.motionEvidence && blur.dipIsotropy == bundled.dipIsotropy)
        var dipAlone = try json("blur")
        dipAlone["evidence"] = ["blur": ["intercept": -3.0, "weights": ["cepstralDip": 50.0]]]
        var unread = try json("blur")
        unread["evidence"] = ["blur": ["intercept": -3.0, "weights": ["edgeWidth": 4.0, "spread": 1.0, "laplacianVariance": 1.0]]]
        for broken in [dipAlone, unread] {
            let result = try load(broken)
            #expect(errorCode(result) == "model.invalid")
            if case .failure(let error) = result {
                #expect(error.message.contains("must weigh edgeWidth, spread (and may weigh cepstralDip)"), "\(error.message)")
            }
        }
    }

    /// The blur model's `motion` evidence may be left out (models fitted before it) and is
    /// read when present; an evidence the detector does not read is refused, naming both.
    @Test func anOptionalEvidenceMayBeLeftOutAndNoOther() throws {
        var ownMotion = try json("blur")
        var evidence = ownMotion["evidence"] as! [String: Any]
        evidence["motion"] = ["intercept": 1.0, "weights": ["dipIsotropy": -2.0]]
        ownMotion["evidence"] = evidence
        let plane = Scenes.plane(Scenes.photo(width: 512, height: 384, seed: 3), width: 512, height: 384)
        let blur = BlurDetector(model: try load(ownMotion).get()).analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(abs(blur.motionEvidence - (1 - 2 * blur.dipIsotropy)) < 1e-12)
        var spin = try json("blur")
        evidence["spin"] = ["intercept": 1.0, "weights": ["dipIsotropy": -2.0]]
        spin["evidence"] = evidence
        let result = try load(spin)
        #expect(errorCode(result) == "model.invalid")
        if case .failure(let error) = result {
            #expect(error.message.contains("must have evidence models blur (and may have motion), has blur, motion, spin"), "\(error.message)")
        }
    }

    /// A folder is what a model file given alone falls back on, so its blur model must have
    /// the `motion` evidence that such a file may leave out: without it, the folder is refused
    /// with a message naming it, not loaded to stop the process later.
    @Test func aFolderMustHoldTheEvidenceAModelFileMayLeaveOut() throws {
        let folder = NSTemporaryDirectory() + "imgquality-models-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ModelSet.requirements.keys where name != "blur" {
            try FileManager.default.copyItem(atPath: Self.modelFolder + "/\(name).json", toPath: folder + "/\(name).json")
        }
        var blur = try json("blur")
        var evidence = blur["evidence"] as! [String: Any]
        evidence.removeValue(forKey: "motion")
        blur["evidence"] = evidence
        try JSONSerialization.data(withJSONObject: blur).write(to: URL(fileURLWithPath: folder + "/blur.json"))
        #expect(throws: Never.self) { try load(blur).get() }
        let result = Result { () throws(ModelError) in try ModelSet.load(directory: folder) }
        guard case .failure(let error) = result else {
            Issue.record("a folder whose blur model has no motion evidence loaded")
            return
        }
        #expect(error.code == "model.invalid" && error.message.contains("must have the evidence models motion too"), "\(error.message)")
    }

    @Test func aFolderWithoutOneDetectorsModelSaysWhich() throws {
        let folder = NSTemporaryDirectory() + "imgquality-models-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["aesthetic", "blur", "compression", "exposure", "noise", "smudge"] {
            try FileManager.default.copyItem(atPath: Self.modelFolder + "/\(name).json", toPath: folder + "/\(name).json")
        }
        let result = Result { () throws(ModelError) in try ModelSet.load(directory: folder) }
        guard case .failure(let error) = result else {
            Issue.record("a folder without text.json loaded")
            return
        }
        #expect(error.code == "model.unreadable" && error.message.contains("text.json"))
    }

    /// Every fitted number lives in a model file: none of the models' weights, mappings or
    /// thresholds (other than round values such as 0.5 or 12) is written in a Swift source.
    @Test func noFittedNumberIsCopiedIntoSwift() throws {
        var numbers: Set<String> = []
        func collect(_ value: Any) {
            if let number = value as? Double, number != number.rounded(), (number * 10).rounded() != number * 10 {
                numbers.insert(String(number))
            } else if let object = value as? [String: Any] {
                object.filter { $0.key != "fit" }.values.forEach(collect)
            }
        }
        for name in ["blur", "exposure", "smudge", "text"] { collect(try json(name)) }
        #expect(numbers.count >= 8)
        let sources = URL(fileURLWithPath: Self.modelFolder).deletingLastPathComponent().deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        for file in files {
            let text = try String(contentsOfFile: sources.path + "/" + file, encoding: .utf8)
            for number in numbers where text.contains(number) {
                Issue.record("\(file) holds \(number), a number of a model file")
            }
        }
    }
}
