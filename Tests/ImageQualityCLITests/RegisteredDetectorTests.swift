import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityCalibration
import QualityGating
import QualityMetrics
import Testing
import _ImagingTestSupport

@testable import ImageQualityCLI

/// A detector registered by a test and nowhere else: how dark the frame is. With no other
/// file changed, it reaches the record, the schema, the flat formats, calibration and the
/// gate's photo criteria (its observation has a `photoCriterion`).
struct Darkness: Detector {
    static let descriptor = MetricDescriptor(
        name: "darkness", meaning: "confidence that the frame is dark", direction: "defect",
        fields: DarknessObservation.descriptorFields, cost: "one pass over the analysis image", caveats: "A test fixture.",
        calibration: .init(measure: "depth", meaning: "how far the mean level is under white"))

    func analyze(_ context: AnalysisContext) -> DarknessObservation {
        let luma = context.image.luma
        var sum = 0
        for y in 0..<luma.height {
            for x in 0..<luma.width { sum += Int(luma[x, y]) }
        }
        let depth = 255 - Double(sum) / Double(luma.width * luma.height)
        return DarknessObservation(confidence: depth / 255, depth: depth)
    }
}

struct DarknessObservation: DetectorObservation {
    var confidence = 0.0
    var depth = 0.0

    static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "darkness confidence", words: "too dark", explanation: "a photo darker than the policy's darkness threshold",
        defaultThreshold: 0.6)

    static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that the frame is dark", units: "probability", range: 0...1),
        .number("depth", \.depth, "255 minus the mean luma", units: "level", range: 0...255),
    ]
}

@Suite("A registered detector")
struct RegisteredDetectorTests {
    let registry = DetectorRegistry.builtIn.adding(Darkness())

    /// A flat frame of `level` as JPEG bytes: a flat block's DC is exact, so it decodes to `level`.
    func flat(_ level: UInt8) throws -> [UInt8] {
        try JPEGEncoder.encode(Scenes.plane([Float](repeating: Float(level), count: 96 * 64), width: 96, height: 64), quality: 95)
    }

    func assess(_ level: UInt8) throws -> Assessment {
        let assessor = Assessor(Assessor.Configuration(analyzer: QualityAnalyzer(registry: registry)))
        return assessor.assess(.encoded(try flat(level), name: "flat-\(level).jpg"))
    }

    @Test func itsObservationIsInTheRecordAfterTheBuiltInOnes() throws {
        let assessment = try assess(128)
        let report = try #require(assessment.image?.report)
        #expect(report.observations.map(\.name) == ["blur", "smudge", "exposure", "aesthetic", "text", "noise", "compression", "darkness"])
        let darkness = try #require(report.observation("darkness", as: DarknessObservation.self))
        #expect(darkness.depth == 127 && darkness.confidence == 127.0 / 255)
        let record = assessment.record.serialized
        #expect(record.contains(#""text":{"#) && record.contains(#""darkness":{"confidence":0.498,"depth":127},"gate":"#), "\(record)")

        // Read back with the registry, the record gives the same record (numbers as rounded).
        let decoder = JSONDecoder()
        decoder.userInfo[.detectorRegistry] = registry
        let read = try decoder.decode(Assessment.self, from: Data(record.utf8))
        #expect(read.record.serialized == record)
        #expect(read.image?.report.observation("darkness", as: DarknessObservation.self)?.depth == 127)
        // Without it, the member is not read.
        #expect(try JSONDecoder().decode(Assessment.self, from: Data(record.utf8)).image?.report["darkness"] == nil)
    }

    @Test func theSchemaOfTheRegistryDescribesIt() throws {
        let record = try assess(128).record.serialized
        let withDetector = try SchemaValidator(schema: RecordSchema.scoreRecord(registry: registry).serialized)
        #expect(withDetector.problems(record) == [])
        let builtIn = try SchemaValidator(schema: RecordSchema.scoreRecord.serialized)
        let problems = builtIn.problems(record)
        #expect(problems.first?.hasSuffix("matches 0 of oneOf's 2 schemas") == true, "\(problems)")
        #expect(problems.contains { $0.hasSuffix("unexpected member darkness") }, "the built-in schema allows no other member: \(problems)")
        let schema = RecordSchema.scoreRecord(registry: registry)
        #expect(schema[path: "$defs.darkness.required"] == .array([.string("confidence"), .string("depth")]))
    }

    @Test func theFlatFormatsHaveItsColumn() throws {
        let columns = Assessment.columns(registry: registry).map(\.header)
        #expect(
            columns == [
                "status", "format", "width", "height", "blur", "smudge", "exposure", "aesthetic", "text", "noise", "compression", "darkness",
                "gate", "gateScore", "elapsedMs", "path", "message",
            ])
        #expect(try assess(128).flat[path: "darkness"] == .double(0.498))
    }

    @Test func calibrationTakesItAndAnyOfItsFields() throws {
        let quantity = try CalibratedQuantity.named("darkness", registry: registry)
        #expect(quantity.measure == "depth" && quantity.higherIsDefect && quantity.isDetectorsOwn)
        let field = try CalibratedQuantity.named("darkness", field: "confidence", registry: registry)
        #expect(field.measure == "confidence" && !field.isDetectorsOwn)
        #expect(throws: CalibrationError(.unknownQuantity, "darkness has no numeric field \"mean\" (known: confidence, depth)")) {
            try CalibratedQuantity.named("darkness", field: "mean", registry: registry)
        }
        #expect(throws: CalibrationError(.unknownQuantity, "unknown detector \"darkness\" (known: blur, smudge, exposure, aesthetic, text, noise, compression, gate)")) {
            try CalibratedQuantity.named("darkness")
        }
        // Dark frames labelled defective, bright ones good: the depth separates them exactly.
        var samples: [CalibrationSample] = []
        for (index, level) in [UInt8(20), 40, 60, 200, 220, 240, 30, 50, 210, 230].enumerated() {
            var sample = CalibrationSample(
                path: "\(index).jpg", file: "\(index).jpg", label: level < 128 ? 1 : 0, score: nil, split: index < 6 ? "train" : "test",
                extras: [])
            sample.record(try assess(level), quantity: quantity)
            samples.append(sample)
        }
        #expect(samples.map(\.measurement) == [235, 215, 195, 55, 35, 15, 225, 205, 45, 25])
        let result = try Calibrator(quantity: quantity, bootstrapResamples: 0).calibrate(samples, datasetPath: "labels.csv", command: "test", created: "now")
        #expect(result.auc == 1)
        // Not a built-in detector: the report, without a profile or model to load.
        #expect(result.profile == nil && result.model == nil)
    }

    @Test func theGateHoldsItsConfidenceAgainstItsThreshold() throws {
        // Flat frames: a dark one fails the criterion at its default threshold, 0.6.
        let dark = try assess(20)
        let failures = try #require(dark.image?.decision.failures)
        let failure = try #require(failures.first { $0.reason.rawValue == "darkness" })
        #expect(failure.measured == 235.0 / 255 && failure.threshold == 0.6)
        #expect(failure.message == "too dark: darkness confidence 0.9216 > 0.6" && failure.reason.failsAbove)
        #expect(try assess(128).image?.decision.failures.contains { $0.reason.rawValue == "darkness" } == false)

        // The reason is in the registry's schema, and the record with it validates.
        let withDetector = try SchemaValidator(schema: RecordSchema.scoreRecord(registry: registry).serialized)
        #expect(withDetector.problems(dark.record.serialized) == [])
        #expect(GateReason.all(registry: registry).map(\.rawValue).prefix(6) == ["blur", "smudge", "exposure", "noise", "compression", "darkness"])
        #expect(!GateReason.allCases.contains { $0.rawValue == "darkness" })

        // A policy sets its threshold under the detector's name, by key or from a file.
        var policy = QualityPolicy.default
        #expect(throws: PolicyError(.unknownKey, "unknown threshold \"darkness\" (known: \(QualityPolicy.thresholdKeys.joined(separator: ", ")))")) {
            try policy.setThreshold("darkness", to: 0.3)
        }
        try policy.setThreshold("darkness", to: 0.3, registry: registry)
        #expect(policy.confidenceThresholds["darkness"] == 0.3)
        #expect(throws: PolicyError(.invalid, "darkness must be from 0 to 1, got 2.0")) {
            try policy.setThreshold("darkness", to: 2, registry: registry)
        }
        let gate = QualityGate(policy: policy)
        let report = try #require(try assess(128).image?.report)
        let strict = gate.decide(report).failures.first { $0.reason.rawValue == "darkness" }
        #expect(strict?.threshold == 0.3 && strict?.measured == 127.0 / 255)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("darkness-policy-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(#"{"darkness":0.95}"#.utf8).write(to: URL(fileURLWithPath: file))
        let lenient = try QualityPolicy.load(contentsOf: file, registry: registry)
        #expect(lenient.confidenceThresholds["darkness"] == 0.95 && lenient.blur == QualityPolicy.default.blur)
        let darkReport = try #require(dark.image?.report)
        #expect(!QualityGate(policy: lenient).decide(darkReport).failures.contains { $0.reason.rawValue == "darkness" })
        #expect(throws: PolicyError.self) { try QualityPolicy.load(contentsOf: file) }
    }
}
