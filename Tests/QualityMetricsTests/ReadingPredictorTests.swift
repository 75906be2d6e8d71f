import Foundation
import ImageKernels
import ImagingCore
import QualityGating
import QualityMetrics
import Testing
import _ImagingTestSupport

/// The bundled reading predictor (`Models/text.json`) on the synthetic page of known size,
/// blurred and reduced by known amounts.
@Suite("Reading predictor")
struct ReadingPredictorTests {
    /// The synthetic page drawn at twice its size (strokes 6 pixels wide, marks 28 tall),
    /// blurred by `sigma` pixels, then reduced to `scale` of that.
    static func page(scale: Double, sigma: Float) -> PixelBuffer<UInt8> {
        let (width, height) = (Page.width, Page.height)
        let page = Scenes.page(width: width, height: height)
        var large = [Float](repeating: 0, count: 4 * width * height)
        for y in 0..<(2 * height) {
            for x in 0..<(2 * width) { large[y * 2 * width + x] = page[(y / 2) * width + x / 2] }
        }
        let blurred = Scenes.gaussian(large, width: 2 * width, height: 2 * height, sigma: sigma)
        let plane = Scenes.plane(blurred, width: 2 * width, height: 2 * height)
        let size = ImageSize(width: Int(Double(2 * width) * scale), height: Int(Double(2 * height) * scale))
        return size == plane.size ? plane : AreaResample.resize(plane, to: size)
    }

    /// The gate's decision on a page judged as the document it stands for (its marks are bars,
    /// not letters), with the bundled model and no layout probe.
    static func decision(scale: Double, sigma: Float) -> GateDecision {
        let pixels = page(scale: scale, sigma: sigma)
        let report = QualityAnalyzer().analyze(AnalysisImage(luma: pixels, fullSize: pixels.size))
        var policy = QualityPolicy.default
        policy.content = .document
        return QualityGate(policy: policy).decide(report)
    }

    @Test func largeSharpPrintPassesAndTinyBlurredPrintFails() throws {
        let large = Self.decision(scale: 1, sigma: 0)
        #expect(large.pass && large.predictor == "image", "\(large)")
        let accuracy = try #require(large.predictedAccuracy)
        #expect(accuracy >= QualityPolicy.default.minimumPredictedAccuracy)
        let tiny = Self.decision(scale: 0.25, sigma: 6)
        #expect(!tiny.pass && tiny.reasons.contains(.predictedAccuracy), "\(tiny)")
        #expect(try #require(tiny.predictedAccuracy) < accuracy / 2, "\(accuracy) \(tiny)")
    }

    @Test func thePredictionFallsWithBlur() throws {
        let predictions = try [0, 1, 2, 3, 5].map { try #require(Self.decision(scale: 1, sigma: Float($0)).predictedAccuracy) }
        expectNonDecreasing(predictions.map { -$0 }, tolerance: 0.01, "predicted accuracy along the blur ladder")
        #expect(predictions.last! < predictions.first! - 0.2, "\(predictions)")
    }

    @Test func thePredictionFallsWithSize() throws {
        let predictions = try [1, 0.7, 0.5, 0.35].map { try #require(Self.decision(scale: $0, sigma: 0).predictedAccuracy) }
        expectNonDecreasing(predictions.map { -$0 }, tolerance: 0.01, "predicted accuracy as the page shrinks")
        #expect(predictions.last! < predictions.first! - 0.2, "\(predictions)")
    }

    @Test func measuresAreComputedAsTheFitComputesThem() {
        var text = TextObservation(detected: true, strokeWidth: 2, inkFraction: 0.1, linePitch: 30, lineRegularity: 0.5, contrast: 150)
        text.legibility = 0.1
        text.skew = 1.5
        text.softEdgeWidth = 3
        text.xHeight = 12
        text.lineContrastP10 = 80
        text.skewSpread = 0.9
        let probe = LayoutProbeResult(probe: "scripted", lines: 3, characters: 0, laidOutShare: 0, milliseconds: 0)
        let measures = ReadingPredictor.measures(text, probe: probe)
        #expect(Set(measures.keys) == Set(ReadingPredictor.imageMeasures + ["logLaidOutShare"]))
        // Floors keep the logs finite: legibility 0.5, laid-out share 0.01.
        #expect(measures["logLegibility"] == log(0.5) && measures["logLaidOutShare"] == log(0.01))
        #expect(measures["skew"] == 1.5 && measures["logSoftEdgeOverXHeight"] == log(0.25) && measures["logXHeight"] == log(12))
        #expect(measures["lineContrastP10"] == 0.8 && measures["contrast"] == 1.5 && measures["logSkewSpread"] == log(1.0))
        #expect(ReadingPredictor.measures(text, probe: nil)["logLaidOutShare"] == nil)
        #expect(ReadingPredictor.laidOutShare(laidOut: 300, found: 100) == ReadingPredictor.largestLaidOutShare)
        #expect(ReadingPredictor.laidOutShare(laidOut: 30, found: 100) == 0.3)
    }

    @Test func theBundledModelWeighsOnlyMeasuresItComputes() {
        let model = ModelSet.bundled["text"]
        for (name, measures) in ReadingPredictor.measuresByModel {
            let weights = model.evidence(name).weights
            #expect(!weights.isEmpty && Set(weights.keys).isSubset(of: measures), "\(name): \(weights.keys.sorted())")
        }
        #expect(model.evidence("accuracy").weights["logLaidOutShare"] == nil)
    }
}
