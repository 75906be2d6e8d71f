import Foundation
import QualityGating
import QualityMetrics
import Testing

@testable import QualityCalibration

@Suite("Calibration metrics on hand-computed cases")
struct CalibrationMetricsTests {
    func analysis(_ pairs: [(Double, Int)]) throws -> BinaryAnalysis {
        try BinaryAnalysis(pairs.map { LabeledValue($0.0, label: $0.1) })
    }

    @Test func perfectInvertedAndRandomRankings() throws {
        #expect(try analysis([(0.9, 1), (0.8, 1), (0.2, 0), (0.1, 0)]).auc == 1)
        #expect(try analysis([(0.1, 1), (0.2, 1), (0.8, 0), (0.9, 0)]).auc == 0)
        // One inversion out of 2 × 2 pairs: 3/4.
        #expect(try analysis([(0.9, 1), (0.5, 0), (0.4, 1), (0.1, 0)]).auc == 0.75)
    }

    @Test func tiesCountHalf() throws {
        #expect(try analysis([(0.5, 1), (0.5, 0)]).auc == 0.5)
        // Positives 0.7, 0.5; negatives 0.5, 0.2: pairs (0.7>0.5) 1, (0.7>0.2) 1, (0.5=0.5) ½, (0.5>0.2) 1 → 3.5/4.
        #expect(try analysis([(0.7, 1), (0.5, 1), (0.5, 0), (0.2, 0)]).auc == 0.875)
    }

    @Test func aMissingClassIsAClearError() {
        #expect(throws: CalibrationError("no good examples (label 0): AUC is undefined")) { try analysis([(0.1, 1), (0.2, 1)]) }
        #expect(throws: CalibrationError("no defective examples (label 1): AUC is undefined")) { try analysis([(0.1, 0)]) }
        #expect(throws: CalibrationError.self) { try analysis([(.nan, 0), (0.2, 1)]) }
    }

    @Test func averagePrecisionByHand() throws {
        // Ranking: 1, 0, 1 → AP = (1/2)·1 + (1/2)·(2/3).
        let ap = try analysis([(0.9, 1), (0.8, 0), (0.7, 1)]).averagePrecision
        #expect(abs(ap - (0.5 + 1.0 / 3)) < 1e-12)
    }

    @Test func thresholdsOnSeparatedScores() throws {
        // Negatives 0.0–0.4, positives 0.6–1.0: any threshold in (0.4, 0.6] is perfect.
        let pairs = (0...4).map { (Double($0) / 10, 0) } + (6...10).map { (Double($0) / 10, 1) }
        let a = try analysis(pairs)
        let f1 = try #require(a.operatingPoint(for: .bestF1))
        #expect(f1.threshold == 0.6 && f1.f1 == 1)
        #expect(a.youdenPoint.threshold == 0.6)
        #expect(a.operatingPoint(for: .recall(1))?.threshold == 0.6)
        #expect(a.operatingPoint(for: .precision(1))?.threshold == 0.6)
        #expect(a.operatingPoint(for: .falsePositiveRate(0))?.threshold == 0.6)
        #expect(a.operatingPoint(for: .falsePositiveRate(0.2))?.threshold == 0.4)
    }

    @Test func costWeighsTheErrors() throws {
        // Overlapping: a negative at 0.7 and a positive at 0.3.
        let a = try analysis([(0.1, 0), (0.3, 1), (0.5, 0), (0.7, 0), (0.8, 1), (0.9, 1)])
        // Missing a defect costs 10× a false alarm: catch everything (threshold 0.3).
        #expect(a.operatingPoint(for: .cost(falsePositive: 1, falseNegative: 10))?.threshold == 0.3)
        // False alarms cost 10×: call only the clear ones.
        #expect(a.operatingPoint(for: .cost(falsePositive: 10, falseNegative: 1))?.threshold == 0.8)
    }

    @Test func bootstrapIsDeterministicAndBracketsTheEstimate() throws {
        var values: [(Double, Int)] = []
        for i in 0..<60 { values.append((Double(i % 10) + (i < 30 ? 3 : 0), i < 30 ? 1 : 0)) }
        let a = try analysis(values)
        let interval = a.bootstrap({ $0.auc }, resamples: 300)
        #expect(interval == a.bootstrap({ $0.auc }, resamples: 300))
        #expect(interval.contains(a.auc))
        #expect(interval.upperBound - interval.lowerBound < 0.3)
    }

    @Test func logisticFitRecoversKnownParameters() throws {
        // Deterministic sample from P(1|x) = σ(−4 + 2x) on a grid: frequencies match the model.
        var xs: [Double] = [], ys: [Int] = []
        for step in 0...40 {
            let x = Double(step) / 10
            let p = 1 / (1 + exp(-(-4 + 2 * x)))
            let ones = Int((p * 200).rounded())
            for k in 0..<200 {
                xs.append(x)
                ys.append(k < ones ? 1 : 0)
            }
        }
        let fit = try LogisticFit.fit(features: xs, labels: ys)
        #expect(abs(fit.slope - 2) < 0.05 && abs(fit.intercept + 4) < 0.1, "\(fit)")
        #expect(abs(fit.midpoint - 2) < 0.02)
    }

    @Test func separableDataStillGivesAFiniteMonotoneFit() throws {
        let fit = try LogisticFit.fit(features: [0, 1, 2, 3, 10, 11, 12, 13], labels: [0, 0, 0, 0, 1, 1, 1, 1])
        #expect(fit.slope.isFinite && fit.slope > 0)
        #expect(fit.midpoint > 3 && fit.midpoint < 10)
    }

    @Test func reliabilityBinsHoldEqualCountsAndKeepTiesTogether() {
        // Five confidences for ten bins: one each, except the tied 0.95s, which share one.
        let bins = reliability(confidences: [0.95, 0.05, 0.15, 1.0, 0.95], labels: [1, 0, 1, 1, 0], bins: 10)
        #expect(bins.map(\.count) == [1, 1, 2, 1])
        #expect(bins[2].lower == 0.95 && bins[2].upper == 0.95 && bins[2].observedRate == 0.5)
        #expect(abs(expectedCalibrationError(bins) - (0.2 * 0.05 + 0.2 * 0.85 + 0.4 * 0.45 + 0.2 * 0)) < 1e-12)
        // Twenty in four bins: five each, in order of confidence.
        let even = reliability(confidences: (0..<20).map { Double(19 - $0) / 20 }, labels: (0..<20).map { $0 < 10 ? 1 : 0 }, bins: 4)
        #expect(even.map(\.count) == [5, 5, 5, 5])
        #expect(even.map(\.observedRate) == [0, 0, 1, 1])
        #expect(even[1].lower == 0.25 && even[1].upper == 0.45 && abs(even[1].meanConfidence - 0.35) < 1e-12)
        #expect(reliability(confidences: [], labels: [], bins: 4).isEmpty)
    }

    @Test func reliabilityIntervalsAreWilsonScoreIntervals() {
        let half = ReliabilityBin(lower: 0, upper: 1, count: 10, meanConfidence: 0.5, observedRate: 0.5).observedInterval
        #expect(abs(half.lowerBound - 0.2366) < 1e-4 && abs(half.upperBound - 0.7634) < 1e-4, "\(half)")
        // None of 16: the interval starts at 0 and reaches 0.194.
        let none = ReliabilityBin(lower: 0, upper: 0, count: 16, meanConfidence: 0, observedRate: 0).observedInterval
        #expect(none.lowerBound < 1e-12 && abs(none.upperBound - 0.1936) < 1e-4, "\(none)")
    }

    @Test func rankCorrelations() {
        #expect(spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1)
        #expect(spearman([1, 2, 3, 4], [40, 30, 20, 10]) == -1)
        #expect(spearman([1, 2, 3, 4], [1, 8, 27, 64]) == 1)  // monotone, not linear
        #expect(ranks([3, 1, 3, 2]) == [3.5, 1, 3.5, 2])
        #expect(pearson([1, 1, 1], [1, 2, 3]) == nil)
        #expect(abs(pearson([1, 2, 3], [2, 4, 7])! - 0.9933992677987828) < 1e-12)
    }
}

@Suite("Gate calibration")
struct GateCalibrationTests {
    /// Gate scores where rejected images (label 1) score low: best F1 cuts between 0.4 and 0.6.
    func samples() -> [CalibrationSample] {
        let scores: [(Double, Int)] = [(0.9, 0), (0.8, 0), (0.7, 0), (0.6, 0), (0.4, 1), (0.3, 1), (0.2, 1), (0.1, 1)]
        return scores.enumerated().map { index, pair in
            var sample = CalibrationSample(path: "\(index).jpg", file: "/\(index).jpg", label: pair.1, score: nil, split: nil, extras: [])
            sample.measurement = pair.0
            return sample
        }
    }

    /// What would otherwise be silently ignored: a split spelt otherwise, and a target
    /// accuracy on binary labels.
    @Test func aMistakenSplitOrTargetIsRefused() throws {
        var misspelt = samples()
        for index in misspelt.indices { misspelt[index].split = index % 2 == 0 ? "train" : "TEST" }
        #expect(throws: CalibrationError.self) {
            try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(misspelt, datasetPath: "l.csv", command: "t", created: "n")
        }
        #expect(throws: CalibrationError.self) {
            try Calibrator(quantity: .gate, accuracyTarget: 0.9, bootstrapResamples: 0).calibrate(samples(), datasetPath: "l.csv", command: "t", created: "n")
        }
        // Labels but no measurement at all: said as such, not as missing labels.
        var unmeasured = samples()
        for index in unmeasured.indices {
            unmeasured[index].measurement = nil
            unmeasured[index].error = "not in part.jsonl"
        }
        #expect(throws: CalibrationError("none of the 8 images could be measured (the first, 0.jpg: not in part.jsonl)")) {
            try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(unmeasured, datasetPath: "l.csv", command: "t", created: "n")
        }
    }

    @Test func writesTheMinimumScoreItChoseAndAPolicyAppliesIt() throws {
        let result = try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(samples(), datasetPath: "labels.csv", command: "test", created: "now")
        let gate = try #require(result.profile?.gate)
        #expect(result.profile?.detectors.isEmpty == true)
        // Rejected at or above a defect value t = 1 − score: the minimum score lies between the classes.
        #expect(gate.minimumScore > 0.4 && gate.minimumScore <= 0.6, "\(gate.minimumScore)")
        var analyzer = QualityAnalyzer()
        var policy = QualityPolicy.default
        result.profile?.apply(to: &analyzer, policy: &policy)
        #expect(policy.minimumScore == gate.minimumScore)
        let decoded = try JSONDecoder().decode(QualityProfile.self, from: try #require(result.profile).encoded())
        #expect(decoded.gate == gate)
    }

    /// Pages whose measured accuracy is σ(1 + 2 · logit p) of the predicted p, train and test alternating.
    func scoredPages(_ measured: (Double) -> Double = { 1 / (1 + exp(-(1 + 2 * AccuracyMapping.logit($0)))) }) -> [CalibrationSample] {
        (0..<40).map { index in
            let predicted = 0.05 + 0.9 * Double(index) / 39
            var sample = CalibrationSample(
                path: "\(index).jpg", file: "/\(index).jpg", label: nil, score: measured(predicted), split: index % 2 == 0 ? "train" : "test",
                extras: [])
            sample.measurement = predicted
            sample.predictedAccuracy = predicted
            return sample
        }
    }

    @Test func scoresRefitThePredictedAccuracyAndAProfileCarriesTheRefit() throws {
        let result = try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(scoredPages(), datasetPath: "pages.csv", command: "t", created: "n")
        let mapping = try #require(result.accuracyMapping)
        #expect(abs(mapping.intercept - 1) < 0.02 && abs(mapping.slope - 2) < 0.02, "\(mapping)")
        // The test samples are on the refitted scale: each now reads its measured accuracy.
        for sample in result.testSamples { #expect(abs(sample.measurement! - sample.score!) < 0.01) }
        let gate = try #require(result.profile?.gate)
        #expect(gate.accuracyMapping == mapping && gate.minimumScore == 0)
        #expect(gate.minimumPredictedAccuracy == QualityPolicy.default.minimumPredictedAccuracy)
        // What each minimum keeps: fewer pages, better on average, as it rises.
        #expect(result.keepAndLose.map(\.minimum).map { ($0 * 10).rounded() } == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let kept = result.keepAndLose.map(\.kept), means = result.keepAndLose.map(\.keptMean)
        #expect(kept == kept.sorted(by: >) && means == means.sorted())
        // A profile puts the refit in the policy, and it survives being written and read.
        var analyzer = QualityAnalyzer()
        var policy = QualityPolicy.default
        result.profile?.apply(to: &analyzer, policy: &policy)
        #expect(policy.accuracyMapping == mapping && policy.minimumPredictedAccuracy == gate.minimumPredictedAccuracy)
        let decoded = try JSONDecoder().decode(QualityProfile.self, from: try #require(result.profile).encoded())
        #expect(decoded.gate?.accuracyMapping == mapping)
        // With a target accuracy the minimum score is chosen on the refitted scale: the train
        // pages measured at 0.391 and better average at least 0.8, with the next lower page less.
        let targeted = try Calibrator(quantity: .gate, accuracyTarget: 0.8, bootstrapResamples: 0)
            .calibrate(scoredPages(), datasetPath: "pages.csv", command: "t", created: "n")
        let minimum = try #require(targeted.profile?.gate?.minimumPredictedAccuracy)
        #expect(abs(minimum - 0.3907) < 0.01 && targeted.profile?.gate?.accuracyMapping != nil, "\(minimum)")
    }

    @Test func aPredictionThatRunsAgainstTheScoresIsNotRefitted() {
        #expect(throws: CalibrationError.self) {
            try Calibrator(quantity: .gate, bootstrapResamples: 0)
                .calibrate(scoredPages { 1 - $0 }, datasetPath: "pages.csv", command: "t", created: "n")
        }
    }

    @Test func photosTakeNoPartInTheRefit() throws {
        // Every fourth page a photo (its gate score no prediction, and far from its label):
        // the refit is the documents' alone, and the photos' scores stay as they were.
        var pages = scoredPages()
        for index in pages.indices where index % 4 == 1 {
            pages[index].predictedAccuracy = nil
            pages[index].measurement = 0.01
        }
        let result = try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(pages, datasetPath: "pages.csv", command: "t", created: "n")
        let mapping = try #require(result.accuracyMapping)
        #expect(abs(mapping.intercept - 1) < 0.03 && abs(mapping.slope - 2) < 0.03, "\(mapping)")
        #expect(result.testSamples.filter { $0.predictedAccuracy == nil }.allSatisfy { $0.measurement == 0.01 })
    }
}
