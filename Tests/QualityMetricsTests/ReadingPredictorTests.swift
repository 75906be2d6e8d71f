import Foundation
import ImageCodecs
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

    /// A rendered page of letters (`Datasets/documents`' page02, of its test split: 150 ppi
    /// body text), blurred by `sigma` pixels, then reduced to `scale` of its size; the gate's
    /// decision on it as a document. The ladders are on letters rather than on the bars of
    /// `page(scale:sigma:)`: the text finder groups those bars erratically as they blur (a
    /// fifth of their ink ungrouped at σ 1, two thirds sharp), so a model weighing what the
    /// finder leaves ungrouped would move on them as it does not on a page.
    static func rendered(scale: Double, sigma: Float) throws -> GateDecision {
        let page = try ImageDecoder().decode(contentsOf: "\(Fixtures.datasets)/documents/images/page02_clean.png").luma.eightBit
        let levels = (0..<page.height).flatMap { y in (0..<page.width).map { Float(page[$0, y]) } }
        let blurred = Scenes.plane(Scenes.gaussian(levels, width: page.width, height: page.height, sigma: sigma), width: page.width, height: page.height)
        let size = ImageSize(width: Int(Double(page.width) * scale), height: Int(Double(page.height) * scale))
        let pixels = size == blurred.size ? blurred : AreaResample.resize(blurred, to: size)
        let report = QualityAnalyzer().analyze(AnalysisImage(luma: pixels, fullSize: pixels.size))
        var policy = QualityPolicy.default
        policy.content = .document
        return QualityGate(policy: policy).decide(report)
    }

    @Test func thePredictionFallsWithBlur() throws {
        let predictions = try [0, 1, 1.5, 2, 2.5, 3].map { try #require(Self.rendered(scale: 1, sigma: Float($0)).predictedAccuracy) }
        expectNonDecreasing(predictions.map { -$0 }, tolerance: 0.01, "predicted accuracy along the blur ladder")
        #expect(predictions.first! >= QualityPolicy.default.minimumPredictedAccuracy, "\(predictions)")
        #expect(predictions.last! < QualityPolicy.default.minimumPredictedAccuracy && predictions.last! < predictions.first! - 0.3, "\(predictions)")
    }

    @Test func thePredictionFallsWithSize() throws {
        let predictions = try [1, 0.7, 0.5, 0.4, 0.3].map { try #require(Self.rendered(scale: $0, sigma: 0).predictedAccuracy) }
        expectNonDecreasing(predictions.map { -$0 }, tolerance: 0.01, "predicted accuracy as the page shrinks")
        #expect(predictions.first! >= QualityPolicy.default.minimumPredictedAccuracy, "\(predictions)")
        #expect(predictions.last! < QualityPolicy.default.minimumPredictedAccuracy && predictions.last! < predictions.first! - 0.3, "\(predictions)")
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
        #expect(Set(measures.keys) == Set(ReadingPredictor.imageMeasures + ReadingPredictor.probeMeasures))
        // Floors keep the logs finite: legibility 0.5, laid-out share 0.01.
        #expect(measures["logLegibility"] == log(0.5) && measures["logLaidOutShare"] == log(0.01))
        #expect(measures["skew"] == 1.5 && measures["logSoftEdgeOverXHeight"] == log(0.25) && measures["logXHeight"] == log(12))
        #expect(measures["lineContrastP10"] == 0.8 && measures["contrast"] == 1.5 && measures["logSkewSpread"] == log(1.0))
        #expect(measures["logLaidOutLineLength"] == 0)
        // The spreads: median against the worst tenth; the marks' height against the lines'.
        var uneven = text
        (uneven.lineXHeight, uneven.xHeightP10) = (20, 10)
        (uneven.lineBlur, uneven.lineBlurP90) = (0.1, 0.3)
        (uneven.lineContrast, uneven.markHeight) = (150, 3)
        let spreads = ReadingPredictor.measures(uneven, probe: nil)
        #expect(spreads["logXHeightSpread"] == log(2.0) && abs(spreads["logLineBlurSpread"]! - log(3.0)) < 1e-12)
        #expect(spreads["lineContrastSpread"] == 0.7 && spreads["logMarkOverXHeight"] == log(0.25))
        uneven.markHeight = 30
        #expect(ReadingPredictor.measures(uneven, probe: nil)["logMarkOverXHeight"] == 0)
        let lines = LayoutProbeResult(probe: "scripted", lines: 4, characters: 120, laidOutShare: 0.3, milliseconds: 0)
        #expect(ReadingPredictor.measures(text, probe: lines)["logLaidOutLineLength"] == log(30.0))
        #expect(ReadingPredictor.measures(text, probe: nil)["logLaidOutShare"] == nil)
        #expect(ReadingPredictor.measures(text, probe: nil)["logLaidOutLineLength"] == nil)
        #expect(ReadingPredictor.laidOutShare(laidOut: 300, found: 100) == ReadingPredictor.largestLaidOutShare)
        #expect(ReadingPredictor.laidOutShare(laidOut: 30, found: 100) == 0.3)
    }

    @Test func theBundledModelWeighsOnlyMeasuresItComputes() {
        let model = ModelSet.bundled["text"]
        for (name, measures) in ReadingPredictor.measuresByModel {
            let read = model.evidence(name).measures
            #expect(!read.isEmpty && read.isSubset(of: measures), "\(name): \(read.sorted())")
        }
        #expect(!model.evidence("accuracy").measures.contains("logLaidOutShare"))
    }

    @Test func aShapeIsLinearBetweenItsKnotsAndGoesStraightOnBeyond() {
        let shape = DetectorModel.Shape(knots: [-4, -1, 0], values: [-3, -0.5, 0])
        #expect(shape.isValid)
        #expect(shape(-4) == -3 && shape(0) == 0 && shape(-1) == -0.5)
        #expect(shape(-2.5) == -1.75 && shape(-0.5) == -0.25)
        // Beyond the knots along the first segment (slope 5/6) and the last (slope 1/2).
        #expect(abs(shape(-10) - -8) < 1e-12 && shape(2) == 1)
        #expect(!DetectorModel.Shape(knots: [0, 0], values: [1, 2]).isValid)
        #expect(!DetectorModel.Shape(knots: [0], values: [1]).isValid)
        #expect(!DetectorModel.Shape(knots: [0, 1], values: [1]).isValid)
    }

    /// A model whose laid-out share enters through a curve: nothing laid out costs 4 log-odds,
    /// a full layout nothing; legibility enters as it is.
    static let shapedModel = DetectorModel.LinearModel(
        intercept: -2, weights: ["logLegibility": 1, "logLaidOutShare": 1], reference: ["logLegibility": log(40), "logLaidOutShare": 0],
        shapes: ["logLaidOutShare": DetectorModel.Shape(knots: [log(0.01), log(0.5), 0, 1], values: [-4, -1, 0, 0])])

    @Test func aShapedMeasureEntersThroughItsCurveAndNamesTheShortfall() throws {
        let model = Self.shapedModel
        #expect(model.term("logLaidOutShare", log(0.01)) == -4 && model.term("logLaidOutShare", 0.3) == 0)
        #expect(model.term("logLaidOutShare", log(0.01) - 1) < -4)
        #expect(model.term("logLegibility", 2) == 2)
        let predictor = ReadingPredictor(imageModel: model, layoutModel: model)
        var text = TextObservation(detected: true, strokeWidth: 2, inkFraction: 0.1, linePitch: 30, lineRegularity: 0.5, contrast: 150)
        text.legibility = 40
        let full = LayoutProbeResult(probe: "scripted", lines: 30, characters: 900, laidOutShare: 1, milliseconds: nil)
        let none = LayoutProbeResult(probe: "scripted", lines: 0, characters: 0, laidOutShare: 0, milliseconds: nil)
        let read = predictor.predict(text, probe: full)
        #expect(abs(read.accuracy - 1 / (1 + exp(2 - log(40)))) < 1e-12 && read.mainShortfall == nil)
        let unread = predictor.predict(text, probe: none)
        #expect(abs(unread.accuracy - 1 / (1 + exp(6 - log(40)))) < 1e-12)
        #expect(unread.mainShortfall?.measure == "logLaidOutShare" && unread.mainShortfall?.logOdds == 4)
    }

    @Test func shapesAreCheckedWhenAModelIsRead() throws {
        func text(_ shapes: String, detector: String = "text") -> Data {
            Data("""
                {"format": 1, "detector": "\(detector)", "evidence": {"accuracy": {"intercept": 0, "weights": {"skew": -1}},
                 "accuracyWithLayout": {"intercept": 0, "weights": {"skew": -1, "logLaidOutShare": 1}, "shapes": \(shapes)}},
                 "thresholds": {"minimumPredictedAccuracy": {"value": 0.5, "rule": "r"}, "minimumLinePitch": {"value": 0, "rule": "r"},
                 "minimumLegibility": {"value": 0, "rule": "r"}, "minimumTextContrast": {"value": 12, "rule": "r"}}}
                """.utf8)
        }
        let requirements = TextDetector.modelRequirements
        let good = try DetectorModel.decode(text(#"{"logLaidOutShare": {"knots": [-4, 0], "values": [-2, 0]}}"#), source: "good.json")
            .validated(as: requirements, source: "good.json")
        #expect(good.evidence("accuracyWithLayout").term("logLaidOutShare", -2) == -1)
        let unsorted = try DetectorModel.decode(text(#"{"logLaidOutShare": {"knots": [0, -4], "values": [0, -2]}}"#), source: "u.json")
        #expect(throws: ModelError.self) { try unsorted.validated(as: requirements, source: "u.json") }
        let unweighed = try DetectorModel.decode(text(#"{"logXHeight": {"knots": [0, 1], "values": [0, 1]}}"#), source: "w.json")
        #expect(throws: ModelError.self) { try unweighed.validated(as: requirements, source: "w.json") }
        #expect(throws: ModelError.self) {
            try DetectorModel.decode(text(#"{"logLaidOutShare": {"knots": [-4, 0], "values": [-2, 0], "slope": 1}}"#), source: "k.json")
        }
        var noShapes = requirements
        noShapes.evidenceTakesShapes = false
        #expect(throws: ModelError.self) { try good.validated(as: noShapes, source: "good.json") }
    }

    /// Two trees: the first splits legibility (log 10) then skew (2°), the second binarized
    /// (0.5); a boosted fit's leaves add to the intercept.
    static let treeModel = DetectorModel.LinearModel(
        intercept: 0.5, weights: [:], reference: ["logLegibility": log(40), "skew": 0.3, "binarized": 0.95],
        trees: [
            [
                .init(measure: "logLegibility", threshold: log(10), atOrBelow: 1, above: 2), .init(value: -2),
                .init(measure: "skew", threshold: 2, atOrBelow: 3, above: 4), .init(value: 1), .init(value: 0.25),
            ],
            [.init(measure: "binarized", threshold: 0.5, atOrBelow: 1, above: 2), .init(value: -1.5), .init(value: 0.5)],
        ])

    @Test func treesAddTheLeavesTheMeasuresReachAndNameTheShortfall() throws {
        let model = Self.treeModel
        #expect(model.measures == ["logLegibility", "skew", "binarized"])
        let values: [String: Double] = ["logLegibility": log(40), "skew": 3, "binarized": 0.4]
        // Legibility above log 10, skew above 2: 0.25; binarized at or below 0.5: −1.5.
        #expect(model.treesValue { values[$0]! } == -1.25 && model.predict { values[$0]! } == -0.75)
        // A value at a threshold goes to the branch at or below it.
        #expect(model.treesValue { ["logLegibility": log(10), "skew": 0, "binarized": 0.5][$0]! } == -3.5)
        var text = TextObservation(detected: true, strokeWidth: 2, inkFraction: 0.1, linePitch: 30, lineRegularity: 0.5, contrast: 150)
        text.legibility = 40
        text.skew = 3
        text.binarized = 0.4
        let prediction = ReadingPredictor(imageModel: model, layoutModel: model).predict(text, probe: nil)
        #expect(abs(prediction.accuracy - 1 / (1 + exp(0.75))) < 1e-12)
        // At the reference, binarized would gain 2 log-odds and skew 0.75: binarized is named.
        #expect(prediction.mainShortfall?.measure == "binarized" && prediction.mainShortfall?.logOdds == 2)
    }

    @Test func treesAreCheckedWhenAModelIsRead() throws {
        func text(_ trees: String) -> Data {
            Data("""
                {"format": 1, "detector": "text", "evidence": {"accuracy": {"intercept": 0, "weights": {"skew": -1}},
                 "accuracyWithLayout": {"intercept": 0.5, "weights": {"skew": -1}, "trees": \(trees)}},
                 "thresholds": {"minimumPredictedAccuracy": {"value": 0.5, "rule": "r"}, "minimumLinePitch": {"value": 0, "rule": "r"},
                 "minimumLegibility": {"value": 0, "rule": "r"}, "minimumTextContrast": {"value": 12, "rule": "r"}}}
                """.utf8)
        }
        let requirements = TextDetector.modelRequirements
        let tree = #"[[{"measure": "logLaidOutShare", "threshold": -1, "atOrBelow": 1, "above": 2}, {"value": -2}, {"value": 1}]]"#
        let good = try DetectorModel.decode(text(tree), source: "good.json").validated(as: requirements, source: "good.json")
        #expect(ReadingPredictor(model: good).weighsProbe)
        // Skew 2 weighed −1, and the tree's leaf −2 for a laid-out share at or below −1.
        #expect(good.evidence("accuracyWithLayout").predict { $0 == "logLaidOutShare" ? -3 : 2 } == -3.5)
        let malformed = ModelError(
            .invalid,
            "bad.json: evidence \"accuracyWithLayout\"'s trees must each be nodes from the root, each a split (measure, finite threshold, atOrBelow and above naming later nodes) or a leaf (a finite value alone)")
        for bad in [
            #"[[{"measure": "logLaidOutShare", "threshold": -1, "atOrBelow": 0, "above": 2}, {"value": -2}, {"value": 1}]]"#,  // a loop
            #"[[{"measure": "logLaidOutShare", "threshold": -1, "atOrBelow": 1, "above": 3}, {"value": -2}, {"value": 1}]]"#,  // no node 3
            #"[[{"measure": "logLaidOutShare", "threshold": -1, "atOrBelow": 1, "above": 2}, {"value": -2}, {"value": 1, "measure": "skew"}]]"#,
            #"[[{"measure": "logLaidOutShare", "atOrBelow": 1, "above": 2}, {"value": -2}, {"value": 1}]]"#,  // no threshold
            #"[[]]"#,
        ] {
            let model = try DetectorModel.decode(text(bad), source: "bad.json")
            #expect(throws: malformed, "\(bad)") { try model.validated(as: requirements, source: "bad.json") }
            // Unchecked, such a tree adds what it reaches before going wrong, without trapping or looping.
            #expect(model.evidence("accuracyWithLayout").treesValue { _ in 0 }.isFinite)
        }
        let unknown = try DetectorModel.decode(
            text(#"[[{"measure": "logXHeightOfNothing", "threshold": -1, "atOrBelow": 1, "above": 2}, {"value": -2}, {"value": 1}]]"#), source: "bad.json")
        #expect(throws: ModelError(.invalid, "bad.json: evidence \"accuracyWithLayout\" must weigh some of \(ReadingPredictor.measuresByModel["accuracyWithLayout"]!.sorted().joined(separator: ", ")), has logXHeightOfNothing, skew")) {
            try unknown.validated(as: requirements, source: "bad.json")
        }
        #expect(throws: ModelError.self) {
            try DetectorModel.decode(text(#"[[{"value": 1, "weight": 2}]]"#), source: "k.json")
        }
        var noTrees = requirements
        noTrees.evidenceTakesTrees = false
        #expect(throws: ModelError.self) { try good.validated(as: noTrees, source: "good.json") }
    }
}
